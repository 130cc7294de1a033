// @ts-check
/**
 * The background worker (a service worker in Chrome, an event page in
 * Firefox): keyword discovery, search interception, keyword-host redirects
 * and the `go` omnibox keyword. It holds no state that matters across
 * restarts; everything is re-read from storage and from installed rules.
 */
import { KEYWORD_REFRESH_ALARM, KEYWORD_REFRESH_MINUTES, discoverKeywords } from './lib/keywords.js';
import { directHostRedirect, searchRedirect } from './lib/navigation.js';
import {
  DEFAULT_SUGGESTION,
  NO_KEY_SUGGESTION,
  OMNIBOX_DEBOUNCE_MS,
  createDebouncer,
  fetchOmniboxSuggestions,
  omniboxTarget,
} from './lib/omnibox.js';
import { hostsCoveredBy, redirectRules } from './lib/rules.js';
import { withDefaults } from './lib/settings.js';

/** @typedef {import('./lib/settings.js').Settings} Settings */

const loadSettings = async () => withDefaults(await chrome.storage.local.get(null));

// Settings are cached and re-read on every change, so a save on the options
// page applies at once without reloading the extension.
let settings = loadSettings();

chrome.storage.onChanged.addListener((changes, area) => {
  if (area !== 'local') return;
  settings = loadSettings();
  if ('baseURL' in changes || 'keywords' in changes || 'shortKeyword' in changes) void rebuildRules();
});

// ---- keyword-host redirect rules (docs/agents.md#navigation-interception) ------------------------------------

const dnr = chrome.declarativeNetRequest;
/** Hosts an installed rule already redirects; the navigation fallback leaves them alone. */
let ruleHosts = dnr?.getDynamicRules ? dnr.getDynamicRules().then(hostsCoveredBy, () => new Set()) : Promise.resolve(new Set());
/** Rebuilds run one after another: two overlapping ones would both add rule 1. */
let rulesChain = Promise.resolve();

function rebuildRules() {
  rulesChain = rulesChain.then(async () => {
    if (!dnr?.updateDynamicRules) return;
    const rules = redirectRules(await settings);
    try {
      const existing = await dnr.getDynamicRules();
      await dnr.updateDynamicRules({ removeRuleIds: existing.map((r) => r.id), addRules: rules });
      ruleHosts = Promise.resolve(hostsCoveredBy(rules));
    } catch (err) {
      console.warn('joe-links: could not install redirect rules', err);
    }
  });
  return rulesChain;
}

// ---- keyword discovery (docs/agents.md#keyword-discovery) ----------------------------------------------

/** @returns {Promise<{ ok: true } | { ok: false, error: string }>} */
async function refreshKeywords() {
  // Read afresh, not from the cache: the options page saves and asks for a
  // refresh at once, and its storage change may not have reached us yet.
  const current = await loadSettings();
  const result = await discoverKeywords(current);
  if (!result.ok) return result;
  // A refresh that raced a change of server must not store the old server's list.
  if ((await loadSettings()).baseURL !== current.baseURL)
    return { ok: false, error: 'The server URL changed during the refresh; refresh again.' };
  await chrome.storage.local.set({ keywords: result.keywords, shortKeyword: result.shortKeyword });
  settings = loadSettings();
  await rebuildRules();
  return { ok: true };
}

function refreshQuietly() {
  // Failures keep the stored list and show nothing while browsing (docs/agents.md#keyword-discovery).
  refreshKeywords().catch((err) => console.warn('joe-links: keyword refresh failed', err));
}

chrome.runtime.onInstalled.addListener(async (details) => {
  if (details.reason === 'install') {
    const { baseURL } = await chrome.storage.local.get('baseURL');
    if (!baseURL) await chrome.tabs.create({ url: chrome.runtime.getURL('options.html') });
  }
  refreshQuietly();
});

chrome.runtime.onStartup.addListener(refreshQuietly);

chrome.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name === KEYWORD_REFRESH_ALARM) refreshQuietly();
});

// Every worker start makes sure the hourly alarm exists, without resetting a
// correct one (re-creating it would push the next refresh back each time).
void chrome.alarms.get(KEYWORD_REFRESH_ALARM).then((alarm) => {
  if (!alarm || alarm.periodInMinutes !== KEYWORD_REFRESH_MINUTES) {
    return chrome.alarms.create(KEYWORD_REFRESH_ALARM, { periodInMinutes: KEYWORD_REFRESH_MINUTES });
  }
});

chrome.runtime.onMessage.addListener((message, _sender, sendResponse) => {
  if (message?.type !== 'refresh-keywords') return false;
  refreshKeywords().then(
    (r) => sendResponse(r.ok ? { ok: true } : { ok: false, error: r.error }),
    (err) => sendResponse({ ok: false, error: err instanceof Error ? err.message : String(err) }),
  );
  return true; // the reply is sent asynchronously
});

// ---- navigations (docs/agents.md#navigation-interception) ---------------------------------

// onBeforeNavigate only observes: nothing here can delay or alter a
// navigation the extension does not redirect.
chrome.webNavigation.onBeforeNavigate.addListener((details) => {
  if (details.frameId !== 0) return;
  // A prerender is the browser guessing, not the user navigating; redirecting
  // the tab for it would open a link the user never asked for.
  if (details.documentLifecycle !== undefined && details.documentLifecycle !== 'active') return;
  let url;
  try {
    url = new URL(details.url);
  } catch {
    return;
  }
  void redirectNavigation(details.tabId, url);
});

/**
 * @param {number} tabId
 * @param {URL} url
 */
async function redirectNavigation(tabId, url) {
  const current = await settings;
  let target = searchRedirect(url, current);
  if (target === null && !(await ruleHosts).has(url.hostname.toLowerCase())) target = directHostRedirect(url, current);
  if (target === null) return;
  try {
    await chrome.tabs.update(tabId, { url: target });
  } catch {
    // The tab closed or navigated elsewhere meanwhile; nothing to redirect.
  }
}

// ---- omnibox (docs/agents.md#popup-and-omnibox) --------------------------------------------------------

const omnibox = chrome.omnibox;
if (omnibox?.onInputEntered) {
  const debouncer = createDebouncer(OMNIBOX_DEBOUNCE_MS);
  // Answers to older input are dropped: only the latest text gets suggestions.
  let generation = 0;

  /** @param {Settings} s */
  const setDefault = (s) => omnibox.setDefaultSuggestion({ description: s.apiKey ? DEFAULT_SUGGESTION : NO_KEY_SUGGESTION });
  void settings.then(setDefault);

  omnibox.onInputStarted.addListener(() => {
    void settings.then(setDefault);
  });

  omnibox.onInputChanged.addListener((text, suggest) => {
    const gen = ++generation;
    debouncer.cancel();
    void settings.then((s) => {
      setDefault(s);
      if (gen !== generation || !s.apiKey || text.trim() === '') return;
      debouncer.schedule(() => {
        void fetchOmniboxSuggestions(s, text).then((list) => {
          if (gen === generation) suggest(list);
        });
      });
    });
  });

  omnibox.onInputEntered.addListener((text, disposition) => {
    debouncer.cancel();
    generation++;
    void settings.then(async (s) => {
      const url = omniboxTarget(s, text);
      try {
        if (disposition === 'newForegroundTab') await chrome.tabs.create({ url, active: true });
        else if (disposition === 'newBackgroundTab') await chrome.tabs.create({ url, active: false });
        else await chrome.tabs.update({ url });
      } catch (err) {
        console.warn('joe-links: could not open', url, err);
      }
    });
  });
}
