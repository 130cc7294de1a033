// Generated from the JSDoc in the .js file beside this one by
// `node scripts/package-extension.mjs --types`. Do not edit.
/**
 * The decoded search query when `url` is a recognised search results URL.
 * @param {URL} url
 * @returns {string | null}
 */
export function searchQueryOf(url: URL): string | null;
/**
 * Splits a query of the exact form `keyword/slug`; anything else is a real
 * search and yields null.
 * @param {string} query
 * @returns {{ keyword: string, slug: string } | null}
 */
export function parseKeywordQuery(query: string): {
    keyword: string;
    slug: string;
} | null;
/**
 * Replaces lone surrogates with U+FFFD so percent-encoding cannot throw.
 * @param {string} s
 */
export function wellFormed(s: string): string;
/**
 * Percent-encodes typed text for a server path, keeping `/` (so
 * `jira/ABC-1` stays two segments) and `?` (so a template's query passes),
 * and encoding `#` so it cannot become a fragment (docs/agents.md#navigation-interception).
 * @param {string} slug
 */
export function encodeSearchSlug(slug: string): string;
/**
 * Where `keyword` + path go on the server: the server's own host or keyword
 * maps to `{base}/{rest}`, any other keyword to the server's path-based
 * keyword routing, `{base}/{keyword}/{rest}`. `rest` is already encoded.
 * @param {import('./settings.js').Settings} settings
 * @param {string} keyword lowercased keyword
 * @param {string} rest
 */
export function keywordTarget(settings: import("./settings.js").Settings, keyword: string, rest: string): string;
/**
 * The server URL a search for `keyword/slug` goes to, or null (docs/agents.md#navigation-interception).
 * @param {URL} url a main-frame navigation
 * @param {import('./settings.js').Settings} settings
 * @returns {string | null}
 */
export function searchRedirect(url: URL, settings: import("./settings.js").Settings): string | null;
/**
 * The fallback for browsers that open `go/slack` as `http://go/slack` when no
 * redirect rule covers that host (docs/agents.md#navigation-interception). The server's own host is
 * never redirected, and neither is a bare `http://go/`.
 * @param {URL} url a main-frame navigation
 * @param {import('./settings.js').Settings} settings
 * @returns {string | null}
 */
export function directHostRedirect(url: URL, settings: import("./settings.js").Settings): string | null;
