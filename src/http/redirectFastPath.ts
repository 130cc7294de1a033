import type { IncomingMessage, ServerResponse } from 'node:http';
import { SESSION_COOKIE } from '../auth/currentUser.js';
import type { Config } from '../config.js';
import { clientIp } from '../domain/clientIp.js';
import { lifecycleState } from '../domain/lifecycle.js';
import { isSlugShaped } from '../domain/slug.js';
import { hasPlaceholders } from '../domain/url.js';
import type { Metrics } from '../metrics.js';
import { andThen, type MaybePromise } from '../store/hotQuery.js';
import type { Store } from '../store/index.js';
import type { ResolveTarget } from '../store/links.js';
import { KEYWORD_PATTERN } from '../store/keywords.js';
import type { ClickEvent } from '../workers/clickWriter.js';
import { REDIRECT_CACHE_CONTROL, locationHeader } from './redirectHeaders.js';
import { requestHost } from './web/render.js';
import { REFERRER_POLICY } from './web/security.js';

export interface FastPathDeps {
  config: Pick<Config, 'authMode' | 'trustedProxies'>;
  store: Store;
  metrics: Metrics;
  recordClick(event: ClickEvent): void;
  /** True once the server has begun shutting down; Fastify then answers 503. */
  closing(): boolean;
}

const SESSION_COOKIE_PREFIX = `${SESSION_COOKIE}=`;

/**
 * The one hop nearly every go-link visit is: an anonymous `GET /{slug}` of an
 * active, non-secure, non-template link, answered straight from node:http
 * before Fastify routes it and runs its hooks. That per-request machinery is
 * most of the cost of a redirect (docs/server.md#performance-targets measures it against a bare
 * server), and none of it changes this answer.
 *
 * It answers exactly what the resolver (resolve.tsx) would — same lookups in
 * the same order (a keyword-shaped host's template first, read in the same
 * query as the slug's link), same status and headers, same click — and returns false,
 * having written nothing, for everything else: a session cookie or
 * forward-auth (the click names the user, a secure link needs them), HEAD,
 * HTMX, a query string, percent-escapes, more than one segment, a keyword
 * host with a template, a miss, a secure, expired, archived or template link,
 * shutdown, or any error. Fastify then handles the request from scratch.
 */
export function redirectFastPath(deps: FastPathDeps): (req: IncomingMessage, res: ServerResponse) => MaybePromise<boolean> {
  const { config, store, metrics } = deps;
  const found = metrics.redirects.labels('found');

  /** Answers with the link, or declines; runs once the lookups are in. */
  function answer(req: IncomingMessage, res: ServerResponse, link: ResolveTarget | null, timer: () => void): boolean {
    if (!link || link.visibility === 'secure' || hasPlaceholders(link.url)) return false;
    const now = store.now();
    if (lifecycleState(link, now) !== 'active') return false;
    const headers = req.headers;
    deps.recordClick({
      linkId: link.id,
      userId: null,
      ip: clientIp(req.socket.remoteAddress ?? '', headers, config.trustedProxies),
      userAgent: headers['user-agent'],
      referer: headers.referer,
      at: now,
    });
    found.inc();
    res.writeHead(302, {
      'referrer-policy': REFERRER_POLICY,
      'cache-control': REDIRECT_CACHE_CONTROL,
      location: locationHeader(link.url),
      'content-length': '0',
    });
    res.end();
    timer();
    return true;
  }

  // Not async: on an SQLite file both lookups answer synchronously, and the
  // whole hop then runs inside the request event without a promise or a
  // microtask turn. Elsewhere it continues once the lookups resolve.
  return function tryFastRedirect(req, res) {
    if (req.method !== 'GET' || config.authMode === 'proxy' || deps.closing()) return false;
    const url = req.url ?? '';
    const slug = url.slice(1);
    // Plain lower-case slug shapes only: folding, decoding, normalisation and prefixes stay in the resolver.
    if (!isSlugShaped(slug) || slug !== slug.toLowerCase()) return false;
    const headers = req.headers;
    if (headers['hx-request'] !== undefined) return false;
    if (headers.cookie?.includes(SESSION_COOKIE_PREFIX)) return false;
    const timer = metrics.redirectDuration.startTimer();
    try {
      // The resolver tries the host as a keyword before any slug (docs/links.md#keywords). A
      // keyword-shaped host (`go`, as most installs are reached) reads both at once.
      const host = requestHost(req);
      const served = KEYWORD_PATTERN.test(host)
        ? andThen(store.links.lookupHostAndSlug(host, slug), (r) => r.hostTemplate === null && answer(req, res, r.link, timer))
        : andThen(store.links.lookupForResolve(slug), (link) => answer(req, res, link, timer));
      // Fastify answers a failed lookup again from scratch, with its error handling.
      return served instanceof Promise ? served.catch(() => false) : served;
    } catch {
      return false;
    }
  };
}
