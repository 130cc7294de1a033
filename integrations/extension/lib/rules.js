// @ts-check
/**
 * declarativeNetRequest rules for keyword hosts typed as URLs (docs/agents.md#navigation-interception):
 * `http://go/slack` is redirected by the browser itself, before any DNS
 * lookup, to the configured server. Only exact keyword hosts match, so no
 * other site is ever touched.
 */
import { serverHost, serverKeyword, serverOrigin } from './settings.js';

/** Host names a rule may be built for: DNS-label characters only. */
const HOST_SHAPE = /^[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$/;

/**
 * @typedef {object} RedirectRule
 * @property {number} id
 * @property {number} priority
 * @property {{ type: 'redirect', redirect: { regexSubstitution: string } }} action
 * @property {{ regexFilter: string, resourceTypes: ['main_frame'] }} condition
 */

/** @param {string} s */
function escapeRegex(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * One rule per stored keyword other than the server host. The captured group
 * is the path and query, so `http://go/jira?x=1` keeps `?x=1`.
 * @param {import('./settings.js').Settings} settings
 * @returns {RedirectRule[]}
 */
export function redirectRules(settings) {
  const origin = serverOrigin(settings);
  if (origin === null) return [];
  const ownHost = serverHost(settings);
  const ownKeyword = serverKeyword(settings);
  const hosts = [...new Set(settings.keywords.map((k) => k.toLowerCase()))].filter((k) => k !== ownHost && HOST_SHAPE.test(k));
  return hosts.map((host, i) => ({
    id: i + 1,
    priority: 1,
    action: { type: 'redirect', redirect: { regexSubstitution: host === ownKeyword ? `${origin}\\1` : `${origin}/${host}\\1` } },
    condition: { regexFilter: `^https?://${escapeRegex(host)}(/.*)?$`, resourceTypes: ['main_frame'] },
  }));
}

/**
 * The hosts that installed rules already redirect, read back from the rules
 * themselves (a restarted worker has no memory of what it installed).
 * @param {ReadonlyArray<{ condition?: { regexFilter?: string } }>} rules
 * @returns {Set<string>}
 */
export function hostsCoveredBy(rules) {
  const hosts = new Set();
  for (const r of rules) {
    const m = /^\^https\?:\/\/(.+)\(\/\.\*\)\?\$$/.exec(r.condition?.regexFilter ?? '');
    if (m && m[1] !== undefined) hosts.add(m[1].replace(/\\(.)/g, '$1'));
  }
  return hosts;
}
