// @ts-check
/**
 * The `go` omnibox keyword (docs/agents.md#popup-and-omnibox): `go` + space + text suggests links and
 * opens `{base}/{text}` on Enter.
 */
import { callServer } from './api.js';
import { wellFormed } from './navigation.js';
import { serverBase, serverKeyword } from './settings.js';

export const OMNIBOX_DEBOUNCE_MS = 200;
/** A shorter delay would let fast typists fire a request per keystroke. */
export const OMNIBOX_MIN_DEBOUNCE_MS = 150;
export const MAX_OMNIBOX_SUGGESTIONS = 5;
export const DEFAULT_SUGGESTION = 'Open the typed go link';
export const NO_KEY_SUGGESTION = 'Open the typed go link — set an API key in the joe-links options to see suggestions';

/**
 * @typedef {{ content: string, description: string }} OmniboxSuggestion
 */

/**
 * Escapes text for the omnibox description, which browsers read as XML.
 * @param {string} s
 */
export function xmlEscape(s) {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

/**
 * Where Enter goes: the server plus the typed text, encoded so it stays one
 * path on the server (`?` and `#` included). The text is never parsed as a
 * URL, so `go evil.test/x` still opens a page on the server.
 * @param {import('./settings.js').Settings} settings
 * @param {string} text
 */
export function omniboxTarget(settings, text) {
  const path = encodeURI(wellFormed(text.trim())).replace(/#/g, '%23').replace(/\?/g, '%3F');
  return `${serverBase(settings)}/${path}`;
}

/**
 * Suggestions from a `GET /api/v1/links/suggest` body; anything malformed
 * yields none.
 * @param {unknown} body
 * @param {import('./settings.js').Settings} settings
 * @returns {OmniboxSuggestion[]}
 */
export function omniboxSuggestions(body, settings) {
  const list = /** @type {{ suggestions?: unknown } | null | undefined} */ (body)?.suggestions;
  if (!Array.isArray(list)) return [];
  const keyword = serverKeyword(settings);
  /** @type {OmniboxSuggestion[]} */
  const out = [];
  for (const item of list) {
    if (out.length === MAX_OMNIBOX_SUGGESTIONS) break;
    const slug = item?.slug;
    if (typeof slug !== 'string' || slug === '') continue;
    const title = typeof item.title === 'string' ? item.title : '';
    out.push({ content: slug, description: xmlEscape(`${keyword}/${slug}`) + (title ? ` — ${xmlEscape(title)}` : '') });
  }
  return out;
}

/**
 * Fetches suggestions for typed text. Never rejects: no key, empty text, a
 * network failure, a 401 or a bad body all mean "no suggestions".
 * @param {import('./settings.js').Settings} settings
 * @param {string} text
 * @returns {Promise<OmniboxSuggestion[]>}
 */
export async function fetchOmniboxSuggestions(settings, text) {
  const q = text.trim();
  if (q === '' || !settings.apiKey) return [];
  try {
    const res = await callServer(settings, `/api/v1/links/suggest?q=${encodeURIComponent(wellFormed(q))}`, {
      timeoutMs: 5000,
    });
    return res.status === 200 ? omniboxSuggestions(res.body, settings) : [];
  } catch {
    return [];
  }
}

/**
 * Runs only the last of a burst of scheduled calls, `delayMs` after it.
 * @param {number} delayMs
 * @param {{ setTimeout: (fn: () => void, ms: number) => unknown, clearTimeout: (id: any) => void }} [timers]
 */
export function createDebouncer(delayMs, timers = globalThis) {
  const delay = Math.max(OMNIBOX_MIN_DEBOUNCE_MS, delayMs);
  /** @type {unknown} */
  let pending = null;
  return {
    /** @param {() => void} fn */
    schedule(fn) {
      if (pending !== null) timers.clearTimeout(pending);
      pending = timers.setTimeout(() => {
        pending = null;
        fn();
      }, delay);
    },
    cancel() {
      if (pending !== null) timers.clearTimeout(pending);
      pending = null;
    },
    get pending() {
      return pending !== null;
    },
  };
}
