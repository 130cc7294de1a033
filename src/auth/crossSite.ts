import type { FastifyReply, FastifyRequest } from 'fastify';
import { h } from 'preact';
import type { Config } from '../config.js';
import { sendHtml } from '../http/web/render.js';
import { parseTheme } from '../views/context.js';
import { CrossSiteRefused } from '../views/pages/auth.js';

/**
 * Cross-site request protection for cookie-authenticated writes (api.md
 * §2.10), one global onRequest hook. A browser always sends `Origin` on a
 * cross-origin POST/PUT/PATCH/DELETE (and modern ones send `Sec-Fetch-Site`),
 * so comparing it with our own host refuses forged form posts and fetches
 * without a token field in every form. Bearer-only surfaces carry no ambient
 * credential and are exempt; `/api/links` has its own origin rule.
 */

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/** Routes whose writes are not authenticated by a browser's cookies. */
export function isExemptPath(url: string): boolean {
  const p = pathOf(url);
  return (
    p === '/api/v1' ||
    p.startsWith('/api/v1/') ||
    p === '/mcp' ||
    p.startsWith('/mcp/') ||
    p === '/api/links' ||
    p.startsWith('/api/links/')
  );
}

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
export function crossSiteReason(
  config: Pick<Config, 'baseUrl'>,
  method: string,
  url: string,
  headers: FastifyRequest['headers'],
): string | null {
  if (!UNSAFE.has(method) || isExemptPath(url)) return null;
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

export function crossSiteGuard(config: Pick<Config, 'baseUrl'>) {
  return async function refuseCrossSite(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    const reason = crossSiteReason(config, req.method, req.url, req.headers);
    if (reason === null) return undefined;
    req.log.warn({ method: req.method, url: req.url, origin: req.headers.origin, reason }, 'cross-site write refused');
    // Rendered without loading the session: a refused request should cost nothing and touch nothing.
    const theme = parseTheme((req.cookies as Record<string, string | undefined> | undefined)?.theme);
    const ctx = { user: null, theme, path: pathOf(req.url), shortKeyword: 'go' };
    return sendHtml(req, reply, ctx, 'Request refused', h(CrossSiteRefused, {}), 403);
  };
}
