import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.js';

/**
 * Cross-site request protection for cookie-authenticated writes: the rule
 * only. A browser always sends `Origin` on a cross-origin
 * POST/PUT/PATCH/DELETE (and modern ones send `Sec-Fetch-Site`), so comparing
 * it with our own host refuses forged form posts and fetches without a token
 * field in every form. Where it applies is decided by where the hook is
 * registered: the web context (http/web/crossSite.tsx) checks every request it
 * answers; the bearer-only API and MCP contexts carry no ambient credential
 * and never run it, and the state-link API has its own origin rule.
 */

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** `host[:port]` as the URL parser normalises it (lower case, default port dropped), or null. */
function normalHost(protocol: string, host: string): string | null {
  try {
    const u = new URL(`${protocol}//${host}`);
    // A Host header carrying a path, userinfo or the like is not a host.
    if (u.pathname !== '/' || u.username || u.password || u.search || u.hash) return null;
    return u.host;
  } catch {
    return null;
  }
}

/** Why a state-changing request is refused, or null when it may proceed. */
export function crossSiteReason(config: Pick<Config, 'baseUrl'>, method: string, headers: FastifyRequest['headers']): string | null {
  if (!UNSAFE.has(method)) return null;
  const origin = headers.origin;
  if (typeof origin === 'string' && origin !== '') {
    let o: URL;
    try {
      o = new URL(origin);
    } catch {
      return 'unparseable Origin'; // includes the opaque `null` origin of sandboxed frames and file: pages
    }
    if (o.protocol !== 'http:' && o.protocol !== 'https:') return 'non-http Origin';
    const base = new URL(config.baseUrl);
    const allowed = [typeof headers.host === 'string' ? normalHost(o.protocol, headers.host) : null, normalHost(o.protocol, base.host)];
    return allowed.includes(o.host) ? null : 'Origin differs from Host and JOE_BASE_URL';
  }
  return headers['sec-fetch-site'] === 'cross-site' ? 'Sec-Fetch-Site: cross-site' : null;
}
