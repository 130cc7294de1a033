// @ts-check
/**
 * Which navigations the extension redirects, and where to (docs/agents.md#navigation-interception).
 * Everything not recognised here yields null, and the browser's own
 * navigation proceeds untouched: that is the fallthrough guarantee.
 */
import { serverBase, serverHost, serverKeyword } from './settings.js';

/**
 * Main-frame search URLs and the parameter carrying the query (docs/agents.md#navigation-interception).
 * Google country domains: `google.de`, `google.co.uk`, `google.com.au`, …
 * @type {Array<{ host: RegExp, path: (p: string) => boolean, param: string }>}
 */
const SEARCH_ENGINES = [
  { host: /^(?:www\.)?google\.(?:com?\.)?[a-z]{2,3}$/, path: (p) => p === '/search', param: 'q' },
  { host: /^(?:www\.)?bing\.com$/, path: (p) => p === '/search', param: 'q' },
  { host: /^(?:start\.)?duckduckgo\.com$/, path: (p) => p === '/', param: 'q' },
  { host: /^search\.yahoo\.com$/, path: (p) => p.startsWith('/search'), param: 'p' },
  { host: /^search\.brave\.com$/, path: (p) => p === '/search', param: 'q' },
  { host: /^www\.ecosia\.org$/, path: (p) => p === '/search', param: 'q' },
  { host: /^www\.qwant\.com$/, path: (p) => p === '/', param: 'q' },
  { host: /^kagi\.com$/, path: (p) => p === '/search', param: 'q' },
  { host: /^www\.perplexity\.ai$/, path: (p) => p === '/search', param: 'q' },
];

/** `keyword/slug` with no whitespace anywhere (docs/agents.md#navigation-interception). */
const KEYWORD_QUERY = /^([A-Za-z][A-Za-z0-9-]*)\/(\S+)$/;

/**
 * The decoded search query when `url` is a recognised search results URL.
 * @param {URL} url
 * @returns {string | null}
 */
export function searchQueryOf(url) {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  const host = url.hostname.toLowerCase();
  for (const engine of SEARCH_ENGINES) {
    if (engine.host.test(host) && engine.path(url.pathname)) return url.searchParams.get(engine.param);
  }
  return null;
}

/**
 * Splits a query of the exact form `keyword/slug`; anything else is a real
 * search and yields null.
 * @param {string} query
 * @returns {{ keyword: string, slug: string } | null}
 */
export function parseKeywordQuery(query) {
  const m = KEYWORD_QUERY.exec(query);
  if (!m || m[1] === undefined || m[2] === undefined) return null;
  return { keyword: m[1].toLowerCase(), slug: m[2] };
}

/**
 * Replaces lone surrogates with U+FFFD so percent-encoding cannot throw.
 * @param {string} s
 */
export function wellFormed(s) {
  return s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

/**
 * Percent-encodes typed text for a server path, keeping `/` (so
 * `jira/ABC-1` stays two segments) and `?` (so a template's query passes),
 * and encoding `#` so it cannot become a fragment (docs/agents.md#navigation-interception).
 * @param {string} slug
 */
export function encodeSearchSlug(slug) {
  return encodeURI(wellFormed(slug)).replace(/#/g, '%23');
}

/**
 * Where `keyword` + path go on the server: the server's own host or keyword
 * maps to `{base}/{rest}`, any other keyword to the server's path-based
 * keyword routing, `{base}/{keyword}/{rest}`. `rest` is already encoded.
 * @param {import('./settings.js').Settings} settings
 * @param {string} keyword lowercased keyword
 * @param {string} rest
 */
export function keywordTarget(settings, keyword, rest) {
  const base = serverBase(settings);
  if (keyword === serverHost(settings) || keyword === serverKeyword(settings)) return `${base}/${rest}`;
  return `${base}/${keyword}/${rest}`;
}

/**
 * @param {import('./settings.js').Settings} settings
 * @param {string} keyword lowercased
 */
function isKnownKeyword(settings, keyword) {
  return keyword !== '' && (settings.keywords.some((k) => k.toLowerCase() === keyword) || keyword === serverKeyword(settings));
}

/**
 * The server URL a search for `keyword/slug` goes to, or null (docs/agents.md#navigation-interception).
 * @param {URL} url a main-frame navigation
 * @param {import('./settings.js').Settings} settings
 * @returns {string | null}
 */
export function searchRedirect(url, settings) {
  const query = searchQueryOf(url);
  if (query === null) return null;
  const parsed = parseKeywordQuery(query);
  if (parsed === null || !isKnownKeyword(settings, parsed.keyword)) return null;
  return keywordTarget(settings, parsed.keyword, encodeSearchSlug(parsed.slug));
}

/**
 * The fallback for browsers that open `go/slack` as `http://go/slack` when no
 * redirect rule covers that host (docs/agents.md#navigation-interception). The server's own host is
 * never redirected, and neither is a bare `http://go/`.
 * @param {URL} url a main-frame navigation
 * @param {import('./settings.js').Settings} settings
 * @returns {string | null}
 */
export function directHostRedirect(url, settings) {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  const host = url.hostname.toLowerCase();
  if (host === serverHost(settings) || !isKnownKeyword(settings, host)) return null;
  if (url.pathname.length <= 1) return null;
  // The URL parser already percent-encoded the path; it is passed on as is.
  return keywordTarget(settings, host, url.pathname.slice(1) + url.search);
}
