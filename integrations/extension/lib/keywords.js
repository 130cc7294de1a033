// @ts-check
/**
 * Keyword host discovery (docs/agents.md#keyword-discovery): which host names the extension intercepts.
 */
import { callServer } from './api.js';
import { serverHost, serverKeyword } from './settings.js';

export const KEYWORD_REFRESH_ALARM = 'keyword-refresh';
export const KEYWORD_REFRESH_MINUTES = 60;
const TIMEOUT_MS = 5000;

/** Names the server may list: keyword-shaped host labels. Anything else is ignored. */
const KEYWORD_SHAPE = /^[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$/;

/**
 * @typedef {{ ok: true, keywords: string[], shortKeyword: string } | { ok: false, error: string }} RefreshResult
 */

/**
 * Asks the server for its keywords and short keyword and returns the values
 * to store. On failure the caller keeps what it has: a server that is down
 * must not make the extension forget which hosts it intercepts.
 * @param {import('./settings.js').Settings} settings
 * @returns {Promise<RefreshResult>}
 */
export async function discoverKeywords(settings) {
  /** @type {import('./api.js').ServerResponse} */
  let list;
  try {
    list = await callServer(settings, '/api/v1/keywords', { timeoutMs: TIMEOUT_MS });
  } catch {
    return { ok: false, error: 'Could not reach server.' };
  }
  if (!list.ok) return { ok: false, error: `Server returned ${list.status}.` };
  if (!Array.isArray(list.body)) return { ok: false, error: 'Unexpected response from server.' };

  let shortKeyword = settings.shortKeyword;
  try {
    const config = await callServer(settings, '/api/v1/config', { timeoutMs: TIMEOUT_MS });
    // 404 = a server from before /config existed: fall back to the host label.
    if (config.status === 404) shortKeyword = '';
    else if (config.ok) {
      const value = /** @type {{ short_keyword?: unknown } | undefined} */ (config.body)?.short_keyword;
      if (typeof value === 'string') shortKeyword = value;
    }
  } catch {
    // Any other failure keeps the previous value; it never fails the refresh.
  }

  const next = { ...settings, shortKeyword };
  const fromServer = list.body.filter((k) => typeof k === 'string').map((k) => k.toLowerCase());
  const keywords = [...new Set([serverHost(next), serverKeyword(next), ...fromServer])].filter((k) => KEYWORD_SHAPE.test(k));
  return { ok: true, keywords, shortKeyword };
}
