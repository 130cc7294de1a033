// @ts-check
/**
 * The extension's stored settings (docs/agents.md#extension-settings) and the
 * names derived from them. Pure functions: the background worker, the popup,
 * the options page and the tests all read settings through these.
 */

/**
 * @typedef {object} Settings
 * @property {string} baseURL server origin, e.g. `https://go.example.com`
 * @property {string} apiKey personal access token (`jl_…`); `""` = unauthenticated
 * @property {string[]} keywords keyword hosts to intercept
 * @property {string} shortKeyword the value `/api/v1/config` announced; `""` = use the host label
 */

/** @type {Readonly<Settings>} */
export const DEFAULT_SETTINGS = Object.freeze({ baseURL: 'http://go', apiKey: '', keywords: ['go'], shortKeyword: '' });

/**
 * Settings from whatever `storage.local` holds: missing or mistyped values
 * fall back to the defaults, so a hand-edited or half-written store never
 * breaks navigation handling.
 * @param {Record<string, unknown> | null | undefined} stored
 * @returns {Settings}
 */
export function withDefaults(stored) {
  const s = stored ?? {};
  return {
    baseURL: typeof s.baseURL === 'string' && s.baseURL.trim() !== '' ? s.baseURL.trim() : DEFAULT_SETTINGS.baseURL,
    apiKey: typeof s.apiKey === 'string' ? s.apiKey : '',
    keywords: Array.isArray(s.keywords) ? s.keywords.filter((k) => typeof k === 'string' && k !== '') : [...DEFAULT_SETTINGS.keywords],
    shortKeyword: typeof s.shortKeyword === 'string' ? s.shortKeyword : '',
  };
}

/**
 * The configured server as a URL, or null when the stored value is not an
 * http(s) URL (nothing is then sent anywhere with credentials).
 * @param {Pick<Settings, 'baseURL'>} settings
 * @returns {URL | null}
 */
export function serverURL(settings) {
  let u;
  try {
    u = new URL(settings.baseURL);
  } catch {
    return null;
  }
  return u.protocol === 'http:' || u.protocol === 'https:' ? u : null;
}

/**
 * `scheme://host[:port]` of the server, or null.
 * @param {Pick<Settings, 'baseURL'>} settings
 */
export function serverOrigin(settings) {
  return serverURL(settings)?.origin ?? null;
}

/**
 * The server's host name without port (`go.example.com`), or `""`.
 * @param {Pick<Settings, 'baseURL'>} settings
 */
export function serverHost(settings) {
  return serverURL(settings)?.hostname.toLowerCase() ?? '';
}

/**
 * The "server keyword" (docs/agents.md#extension-settings): the announced short keyword lowercased, else
 * the first DNS label of the server host (`go.example.com` → `go`).
 * @param {Pick<Settings, 'baseURL' | 'shortKeyword'>} settings
 */
export function serverKeyword(settings) {
  if (settings.shortKeyword) return settings.shortKeyword.toLowerCase();
  return serverHost(settings).split('.')[0] ?? '';
}

/**
 * The base every server URL is built on. Stored values are origins already;
 * trailing slashes are trimmed anyway so `{base}/{slug}` never holds `//`.
 * @param {Pick<Settings, 'baseURL'>} settings
 */
export function serverBase(settings) {
  return settings.baseURL.replace(/\/+$/, '');
}

/**
 * Validates what the user typed as the server URL on the options page (docs/agents.md#extension-settings):
 * only a parseable http(s) URL is accepted, and only its origin is kept, so a
 * pasted link like `https://go.example.com/dashboard` still configures the server.
 * @param {string} input
 * @returns {{ ok: true, origin: string } | { ok: false, error: string }}
 */
export function parseServerInput(input) {
  const text = input.trim();
  const error = 'Enter the server URL starting with http:// or https://, e.g. https://go.example.com';
  let u;
  try {
    u = new URL(text);
  } catch {
    return { ok: false, error };
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.hostname === '') return { ok: false, error };
  return { ok: true, origin: u.origin };
}
