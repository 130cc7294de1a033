// @ts-check
/**
 * The toolbar popup (docs/agents.md#popup-and-omnibox): create a link for the current tab. Everything
 * the server sends is inserted as text, never as markup.
 */
import { callServer, networkErrorMessage } from './lib/api.js';
import {
  addTag,
  createErrorMessage,
  createLinkBody,
  existingLinkRows,
  prefillSlug,
  shortcutRows,
  suggestionRows,
  templateShortcuts,
} from './lib/popup-logic.js';
import { serverBase, serverKeyword, withDefaults } from './lib/settings.js';

/**
 * @template {HTMLElement} T
 * @param {string} id
 * @returns {T}
 */
function byId(id) {
  const el = document.getElementById(id);
  if (!el) throw new Error(`popup.html lacks #${id}`);
  return /** @type {T} */ (el);
}

const urlInput = /** @type {HTMLInputElement} */ (byId('url'));
const slugInput = /** @type {HTMLInputElement} */ (byId('slug'));
const tagInput = /** @type {HTMLInputElement} */ (byId('tag-input'));
const tagPills = byId('tag-pills');
const visibility = /** @type {HTMLSelectElement} */ (byId('visibility'));
const more = /** @type {HTMLDetailsElement} */ (byId('more'));
const titleInput = /** @type {HTMLInputElement} */ (byId('title'));
const descriptionInput = /** @type {HTMLTextAreaElement} */ (byId('description'));
const createButton = /** @type {HTMLButtonElement} */ (byId('create'));
const result = byId('result');

const settings = withDefaults(await chrome.storage.local.get(null));
const keyword = serverKeyword(settings);
const base = serverBase(settings);

for (const id of ['open-options', 'no-key-options']) byId(id).addEventListener('click', () => void chrome.runtime.openOptionsPage());

// ---- tags ------------------------------------------------------------------

/** @type {string[]} */
let tags = [];

function renderTags() {
  tagPills.replaceChildren(
    ...tags.map((tag) => {
      const li = document.createElement('li');
      li.className = 'pill';
      li.append(tag);
      const remove = document.createElement('button');
      remove.type = 'button';
      remove.className = 'icon-button';
      remove.textContent = '×';
      remove.setAttribute('aria-label', `Remove tag ${tag}`);
      remove.addEventListener('click', () => {
        tags = tags.filter((t) => t !== tag);
        renderTags();
      });
      li.append(remove);
      return li;
    }),
  );
}

function flushTagInput() {
  if (tagInput.value.trim() === '') {
    tagInput.value = '';
    return;
  }
  tags = addTag(tags, tagInput.value);
  tagInput.value = '';
  renderTags();
}

tagInput.addEventListener('keydown', (e) => {
  if (e.key === 'Enter') {
    // Enter adds the tag; it must not submit the form half-filled.
    e.preventDefault();
    flushTagInput();
  } else if (e.key === 'Tab') {
    flushTagInput();
  } else if (e.key === 'Backspace' && tagInput.value === '' && tags.length > 0) {
    tags = tags.slice(0, -1);
    renderTags();
  }
});
tagInput.addEventListener('input', () => {
  // A comma (typed or pasted) closes every tag before it.
  if (!tagInput.value.includes(',')) return;
  const parts = tagInput.value.split(',');
  const last = parts.pop() ?? '';
  for (const p of parts) tags = addTag(tags, p);
  tagInput.value = last;
  renderTags();
});
tagInput.addEventListener('blur', flushTagInput);

// ---- rows ----------------------------------------------------------------------

/**
 * @param {HTMLButtonElement} button
 * @param {string} text
 */
async function copyFrom(button, text) {
  const label = button.textContent;
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = 'Copied';
  } catch {
    button.textContent = 'Copy failed';
  }
  setTimeout(() => {
    button.textContent = label;
  }, 1500);
}

/**
 * @param {string} text
 * @param {string} ariaLabel
 * @param {() => void} onClick
 */
function rowButton(text, ariaLabel, onClick) {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = text;
  b.setAttribute('aria-label', ariaLabel);
  b.addEventListener('click', onClick);
  return b;
}

/**
 * @param {string} label
 * @param {HTMLElement[]} buttons
 */
function row(label, buttons) {
  const li = document.createElement('li');
  const code = document.createElement('code');
  code.textContent = label;
  li.append(code, ...buttons);
  return li;
}

// ---- existing links and keyword shortcuts -----------------------------------

/** @param {string} tabUrl */
async function loadExistingLinks(tabUrl) {
  try {
    const res = await callServer(settings, `/api/v1/links?url=${encodeURIComponent(tabUrl)}`, { timeoutMs: 5000 });
    if (!res.ok) return;
    const rows = existingLinkRows(res.body, settings);
    if (rows.length === 0) return;
    byId('existing-rows').replaceChildren(
      ...rows.map((r) => {
        const copy = rowButton('Copy', `Copy ${r.copyURL}`, () => void copyFrom(copy, r.copyURL));
        const edit = rowButton('Edit', `Edit ${r.label}`, () => void chrome.tabs.create({ url: r.editURL }));
        return row(r.label, [edit, copy]);
      }),
    );
    byId('existing').hidden = false;
  } catch {
    // Nothing to show; creating a link still works.
  }
}

/** @param {string} tabUrl */
async function loadShortcuts(tabUrl) {
  try {
    const res = await callServer(settings, '/api/v1/keywords/templates', { timeoutMs: 5000 });
    if (!res.ok) return;
    const shortcuts = templateShortcuts(res.body, tabUrl);
    if (shortcuts.length === 0) return;
    byId('shortcut-rows').replaceChildren(
      ...shortcutRows(shortcuts, settings).map((r) => {
        const copy = rowButton('Copy', `Copy ${r.copyURL}`, () => void copyFrom(copy, r.copyURL));
        return row(r.label, [copy]);
      }),
    );
    byId('shortcuts').hidden = false;
    if (slugInput.value === '') slugInput.value = prefillSlug(shortcuts);
  } catch {
    // As above: shortcuts are a convenience.
  }
}

// ---- suggestions -------------------------------------------------------------

/**
 * Runs in the tab: the page's own title and meta description, which are often
 * better than the tab title alone.
 */
function readPageMeta() {
  const meta = document.querySelector('meta[name="description" i]');
  return { title: document.title, description: meta?.getAttribute('content') ?? '' };
}

/** @param {chrome.tabs.Tab} tab */
async function loadSuggestions(tab) {
  let title = tab.title ?? '';
  let description = '';
  try {
    if (tab.id === undefined) throw new Error('no tab id');
    const [injected] = await chrome.scripting.executeScript({ target: { tabId: tab.id }, func: readPageMeta });
    const meta = /** @type {{ title?: unknown, description?: unknown } | undefined} */ (injected?.result);
    if (typeof meta?.title === 'string') title = meta.title;
    if (typeof meta?.description === 'string') description = meta.description;
  } catch {
    // Privileged pages (the browser's own, the web store) refuse scripts.
  }
  let res;
  try {
    res = await callServer(settings, '/api/v1/links/suggest', {
      method: 'POST',
      json: { url: tab.url, title, description },
      timeoutMs: 8000,
    });
  } catch {
    return;
  }
  // 503 means the server has no language model configured: no strip, no error.
  if (res.status !== 200) return;
  const rows = suggestionRows(res.body);
  if (rows.length === 0) return;
  const list = byId('suggestion-rows');
  list.replaceChildren(
    ...rows.map((r) => {
      const li = document.createElement('li');
      const name = document.createElement('span');
      name.className = 'field-name';
      name.textContent = r.field;
      const text = document.createElement('span');
      text.className = 'suggested';
      text.textContent = r.text;
      const use = rowButton('Use', `Use suggested ${r.field}`, () => applySuggestion(r));
      li.append(name, text, use);
      return li;
    }),
  );
  byId('suggestions').hidden = false;
}

/** @param {import('./lib/popup-logic.js').SuggestionRow} r */
function applySuggestion(r) {
  if (r.field === 'tags') {
    tags = Array.isArray(r.value) ? [...r.value] : [];
    renderTags();
  } else if (typeof r.value === 'string') {
    if (r.field === 'slug') slugInput.value = r.value;
    if (r.field === 'title') titleInput.value = r.value;
    if (r.field === 'description') descriptionInput.value = r.value;
    if (r.field === 'title' || r.field === 'description') more.open = true;
  }
}

byId('dismiss-suggestions').addEventListener('click', () => {
  byId('suggestions').hidden = true;
});

// ---- create --------------------------------------------------------------------

/**
 * @param {string} message
 * @param {'ok' | 'error'} kind
 * @param {string} [link]
 */
function showResult(message, kind, link) {
  const line = document.createElement('p');
  line.textContent = message;
  result.replaceChildren(line);
  if (link) {
    const code = document.createElement('code');
    code.className = 'created-link';
    code.textContent = link;
    result.append(code);
  }
  result.dataset.kind = kind;
}

byId('create-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  flushTagInput();
  const built = createLinkBody({
    url: urlInput.value,
    slug: slugInput.value,
    visibility: visibility.value,
    title: titleInput.value,
    description: descriptionInput.value,
    tags,
  });
  if (!built.ok) {
    showResult(built.error, 'error');
    return;
  }
  createButton.disabled = true;
  try {
    const res = await callServer(settings, '/api/v1/links', { method: 'POST', json: built.body, timeoutMs: 10000 });
    if (!res.ok) {
      showResult(createErrorMessage(res.status, res.body), 'error');
      return;
    }
    const slug = String(built.body.slug);
    let copied = true;
    try {
      await navigator.clipboard.writeText(`${base}/${slug}`);
    } catch {
      copied = false;
    }
    showResult(copied ? 'Link created — copied to clipboard!' : 'Link created', 'ok', `${keyword}/${slug}`);
    slugInput.value = '';
    tags = [];
    renderTags();
    visibility.value = 'public';
  } catch (err) {
    showResult(networkErrorMessage(err), 'error');
  } finally {
    createButton.disabled = !settings.apiKey;
  }
});

// ---- start -------------------------------------------------------------------

byId('slug-prefix').textContent = `${keyword}/`;
const [tab] = await chrome.tabs.query({ active: true, currentWindow: true });
urlInput.value = tab?.url ?? '';
titleInput.value = tab?.title ?? '';
slugInput.focus();

if (!settings.apiKey) {
  byId('no-key').hidden = false;
  createButton.disabled = true;
} else if (tab?.url) {
  // The suggestion may take seconds (a language model); it is not awaited.
  void loadSuggestions(tab);
  await Promise.all([loadExistingLinks(tab.url), loadShortcuts(tab.url)]);
}
document.body.dataset.ready = 'true';
