// Generated from the JSDoc in the .js file beside this one by
// `node scripts/package-extension.mjs --types`. Do not edit.
/**
 * @typedef {{ content: string, description: string }} OmniboxSuggestion
 */
/**
 * Escapes text for the omnibox description, which browsers read as XML.
 * @param {string} s
 */
export function xmlEscape(s: string): string;
/**
 * Where Enter goes: the server plus the typed text, encoded so it stays one
 * path on the server (`?` and `#` included). The text is never parsed as a
 * URL, so `go evil.test/x` still opens a page on the server.
 * @param {import('./settings.js').Settings} settings
 * @param {string} text
 */
export function omniboxTarget(settings: import("./settings.js").Settings, text: string): string;
/**
 * Suggestions from a `GET /api/v1/links/suggest` body; anything malformed
 * yields none.
 * @param {unknown} body
 * @param {import('./settings.js').Settings} settings
 * @returns {OmniboxSuggestion[]}
 */
export function omniboxSuggestions(body: unknown, settings: import("./settings.js").Settings): OmniboxSuggestion[];
/**
 * Fetches suggestions for typed text. Never rejects: no key, empty text, a
 * network failure, a 401 or a bad body all mean "no suggestions".
 * @param {import('./settings.js').Settings} settings
 * @param {string} text
 * @returns {Promise<OmniboxSuggestion[]>}
 */
export function fetchOmniboxSuggestions(settings: import("./settings.js").Settings, text: string): Promise<OmniboxSuggestion[]>;
/**
 * Runs only the last of a burst of scheduled calls, `delayMs` after it.
 * @param {number} delayMs
 * @param {{ setTimeout: (fn: () => void, ms: number) => unknown, clearTimeout: (id: any) => void }} [timers]
 */
export function createDebouncer(delayMs: number, timers?: {
    setTimeout: (fn: () => void, ms: number) => unknown;
    clearTimeout: (id: any) => void;
}): {
    /** @param {() => void} fn */
    schedule(fn: () => void): void;
    cancel(): void;
    readonly pending: boolean;
};
export const OMNIBOX_DEBOUNCE_MS: 200;
/** A shorter delay would let fast typists fire a request per keystroke. */
export const OMNIBOX_MIN_DEBOUNCE_MS: 150;
export const MAX_OMNIBOX_SUGGESTIONS: 5;
export const DEFAULT_SUGGESTION: "Open the typed go link";
export const NO_KEY_SUGGESTION: "Open the typed go link \u2014 set an API key in the joe-links options to see suggestions";
export type OmniboxSuggestion = {
    content: string;
    description: string;
};
