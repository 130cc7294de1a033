// @ts-check
/** The options page (docs/agents.md#extension-settings): server URL, API key, keyword list. */
import { parseServerInput, withDefaults } from './lib/settings.js';

/**
 * @template {HTMLElement} T
 * @param {string} id
 * @returns {T}
 */
function byId(id) {
  const el = document.getElementById(id);
  if (!el) throw new Error(`options.html lacks #${id}`);
  return /** @type {T} */ (el);
}

const form = /** @type {HTMLFormElement} */ (byId('settings-form'));
const baseInput = /** @type {HTMLInputElement} */ (byId('base-url'));
const baseError = byId('base-url-error');
const keyInput = /** @type {HTMLInputElement} */ (byId('api-key'));
const refreshButton = /** @type {HTMLButtonElement} */ (byId('refresh'));
const status = byId('status');
const keywordList = byId('keywords');
const keywordCount = byId('keyword-count');

/** @type {ReturnType<typeof setTimeout> | undefined} */
let statusTimer;

/**
 * Shows a status line for `ms`; a newer message replaces an older one.
 * @param {string} text
 * @param {'ok' | 'error'} kind
 * @param {number} ms
 */
function showStatus(text, kind, ms) {
  clearTimeout(statusTimer);
  status.textContent = text;
  status.dataset.kind = kind;
  statusTimer = setTimeout(() => {
    status.textContent = '';
    delete status.dataset.kind;
  }, ms);
}

/** @param {readonly string[]} keywords */
function renderKeywords(keywords) {
  keywordList.replaceChildren(
    ...keywords.map((k) => {
      const li = document.createElement('li');
      li.className = 'pill';
      li.textContent = k;
      return li;
    }),
  );
  keywordCount.textContent = `(${keywords.length})`;
}

/** @returns {Promise<{ ok: boolean, error?: string }>} */
async function requestRefresh() {
  try {
    const reply = await chrome.runtime.sendMessage({ type: 'refresh-keywords' });
    if (reply && typeof reply.ok === 'boolean') return reply;
    return { ok: false, error: 'The extension did not answer; try again.' };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const parsed = parseServerInput(baseInput.value);
  if (!parsed.ok) {
    baseError.textContent = parsed.error;
    baseError.hidden = false;
    baseInput.setAttribute('aria-invalid', 'true');
    baseInput.focus();
    return;
  }
  baseError.hidden = true;
  baseError.textContent = '';
  baseInput.removeAttribute('aria-invalid');
  const apiKey = keyInput.value.trim();
  await chrome.storage.local.set({ baseURL: parsed.origin, apiKey });
  baseInput.value = parsed.origin;
  keyInput.value = apiKey;
  showStatus('Saved.', 'ok', 3000);
  const result = await requestRefresh();
  if (!result.ok) showStatus(result.error ?? 'Refresh failed.', 'error', 5000);
});

refreshButton.addEventListener('click', async () => {
  refreshButton.disabled = true;
  try {
    const result = await requestRefresh();
    if (result.ok) showStatus('Keywords refreshed.', 'ok', 3000);
    else showStatus(result.error ?? 'Refresh failed.', 'error', 3000);
  } finally {
    refreshButton.disabled = false;
  }
});

chrome.storage.onChanged.addListener((changes, area) => {
  if (area === 'local' && changes.keywords) renderKeywords(withDefaults({ keywords: changes.keywords.newValue }).keywords);
});

const stored = await chrome.storage.local.get(null);
const settings = withDefaults(stored);
// A first run shows the placeholder rather than the built-in default, so the
// user types their server instead of saving `http://go` by accident.
baseInput.value = typeof stored.baseURL === 'string' ? settings.baseURL : '';
keyInput.value = settings.apiKey;
renderKeywords(settings.keywords);
document.body.dataset.ready = 'true';
