// @ts-check
/**
 * Every request the extension makes goes through `callServer`; the bearer
 * token is attached in exactly one place, `authorizationFor`, and only when
 * the request's origin is the configured server's origin. A keyword list, a
 * template, a suggestion or a tab URL can therefore never steer the token to
 * another host.
 */
import { serverBase, serverOrigin } from './settings.js';

/**
 * @typedef {object} ServerResponse
 * @property {number} status
 * @property {boolean} ok
 * @property {unknown} body parsed JSON, or undefined when the body was not JSON
 */

/**
 * The `Authorization` value for a request to `target`, or null. Null unless a
 * key is set, the server setting is an http(s) URL, and `target` has exactly
 * the server's origin (scheme, host and port).
 * @param {string} target absolute URL the request goes to
 * @param {{ baseURL: string, apiKey: string }} settings
 * @returns {string | null}
 */
export function authorizationFor(target, settings) {
  if (!settings.apiKey) return null;
  const origin = serverOrigin(settings);
  if (origin === null) return null;
  let url;
  try {
    url = new URL(target);
  } catch {
    return null;
  }
  // Userinfo (`https://go.example.com@evil.test/`) changes the host, and
  // `URL.origin` reflects that; a relative or opaque target has origin "null".
  if (url.origin !== origin || url.username !== '' || url.password !== '') return null;
  return `Bearer ${settings.apiKey}`;
}

/**
 * Calls the joe-links server. `path` starts with `/`; the URL is always the
 * configured base plus that path. Resolves with the status and parsed body;
 * rejects only on network failure or timeout.
 * @param {{ baseURL: string, apiKey: string }} settings
 * @param {string} path
 * @param {{ method?: string, json?: unknown, timeoutMs: number }} options
 * @returns {Promise<ServerResponse>}
 */
export async function callServer(settings, path, options) {
  if (!path.startsWith('/') || path.startsWith('//')) throw new Error('server paths start with a single /');
  const url = `${serverBase(settings)}${path}`;
  /** @type {Record<string, string>} */
  const headers = { accept: 'application/json' };
  if (options.json !== undefined) headers['content-type'] = 'application/json';
  const authorization = authorizationFor(url, settings);
  if (authorization !== null) headers.authorization = authorization;
  const res = await fetch(url, {
    method: options.method ?? 'GET',
    headers,
    ...(options.json !== undefined ? { body: JSON.stringify(options.json) } : {}),
    signal: AbortSignal.timeout(options.timeoutMs),
    // The API never redirects. Refusing redirects on authenticated calls means
    // the token cannot follow a redirect to another origin, whatever a given
    // browser version does about stripping Authorization on the way.
    redirect: authorization === null ? 'follow' : 'error',
    // Bearer tokens only: the browser's cookies for the server stay out of it.
    credentials: 'omit',
    cache: 'no-store',
  });
  const text = await res.text();
  /** @type {unknown} */
  let body;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, ok: res.ok, body };
}

/**
 * A short, human message for a failed call (timeouts and network errors).
 * @param {unknown} err
 */
export function networkErrorMessage(err) {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) return 'The server did not answer in time.';
  if (err instanceof Error && err.message) return err.message;
  return 'Could not reach server.';
}
