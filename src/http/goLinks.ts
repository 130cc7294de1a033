import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import { sessionToken } from '../auth/cookies.js';
import { proxiedEmail } from '../auth/webSession.js';
import type { Config } from '../config.js';
import { clientIp } from '../domain/clientIp.js';
import type { Metrics } from '../metrics.js';
import type { Resolution, Resolver, ViewerSource } from '../resolve/resolver.js';
import type { Clock } from '../store/types.js';
import type { ClickEvent } from '../workers/clickWriter.js';
import { GO_LINK_ROUTE, logRequest } from './accessLog.js';
import { REDIRECT_CACHE_CONTROL, locationHeader } from './redirectHeaders.js';
import { REFERRER_POLICY } from './securityHeaders.js';
import { requestHost } from './shared/requestAddress.js';

export interface GoLinkDeps {
  config: Pick<Config, 'authMode' | 'authProxyHeader' | 'trustedProxies' | 'accessLog'>;
  /** The app's logger, for the access log (the front exists before the app does). */
  log(): FastifyBaseLogger;
  resolver: Resolver;
  now: Clock;
  metrics: Metrics;
  recordClick(event: ClickEvent): void;
  /** True once the server has begun shutting down; Fastify then answers 503. */
  closing(): boolean;
  /** The first path segments the router owns; their requests go to Fastify untouched. */
  routedSegments(): ReadonlySet<string>;
}

/** The click a redirect of a link stores: the link, the visitor, where the request came from, when. */
export function clickOf(
  req: IncomingMessage,
  trustedProxies: Config['trustedProxies'],
  linkId: string,
  userId: string | null,
  at: number,
): ClickEvent {
  const headers = req.headers;
  return {
    linkId,
    userId,
    ip: clientIp(req.socket.remoteAddress ?? '', headers, trustedProxies),
    userAgent: headers['user-agent'],
    referer: headers.referer,
    at,
  };
}

/**
 * Whether a redirect answers the fill-in page's form (docs/links.md#fill-in-page): a value
 * filled by name, in a navigation from a page of this site. Browsers hold a redirect answering
 * a form to the CSP's `form-action 'self'`, so a destination on another site would be stopped;
 * such a request gets a page that moves on by itself (`Refresh`), which no form rule covers.
 * Typed or followed from elsewhere (`Sec-Fetch-Site` none or cross-site), it is redirected.
 */
export function isFormHandoff(req: IncomingMessage, outcome: Extract<Resolution, { kind: 'redirect' }>): boolean {
  return (
    outcome.filledByName === true &&
    req.headers['sec-fetch-site'] === 'same-origin' &&
    req.headers['sec-fetch-mode'] === 'navigate' &&
    req.headers['hx-request'] === undefined
  );
}

/** Resolutions the front computed but leaves to the web layer to render, per request. */
const pending = new WeakMap<IncomingMessage, Resolution>();

/** The resolution the front left for this request's page, if any (taken once). */
export function takeResolution(req: IncomingMessage): Resolution | undefined {
  const r = pending.get(req);
  if (r) pending.delete(req);
  return r;
}

/**
 * The URL with every escape the router could not decode written as a literal
 * `%` (`%25`), so it reaches the catch-all route; the resolver has already
 * read the path its own way.
 */
/** A `%` followed by two characters that are not both hex digits. */
const NOT_AN_ESCAPE = /%(?![0-9A-Fa-f]{2})[^]{2}/;

function routable(url: string): string {
  try {
    decodeURIComponent(url);
    return url;
  } catch {
    return url.replace(/%(?![0-9A-Fa-f]{2})|%(?=[89A-Fa-f][0-9A-Fa-f])/g, '%25');
  }
}

/**
 * The front of every go-link request: a `GET`/`HEAD` whose first path
 * segment is no route of the router is resolved here, before Fastify routes
 * it, by the one resolver. A redirect is answered at once (no Fastify hook
 * runs for it, and on an SQLite file no promise turn either); a page outcome
 * (sign in, forbidden, expired, not found) is left for the web layer's
 * catch-all route to render with its hooks and headers.
 *
 * Returns true once it has answered, false when Fastify should handle the
 * request (or a promise of either).
 */
export function goLinkFront(deps: GoLinkDeps): (req: IncomingMessage, res: ServerResponse) => boolean | Promise<boolean> {
  const { config, resolver, metrics } = deps;

  function answer(req: IncomingMessage, res: ServerResponse, outcome: Resolution, start: number): boolean {
    // The fill-in form's own submission gets the web layer's page that moves on (resolve.tsx).
    if (outcome.kind !== 'redirect' || isFormHandoff(req, outcome)) {
      // A handoff is the web layer's to settle; it resolves again once it has.
      if (outcome.kind !== 'handoff') pending.set(req, outcome);
      // The router refuses a malformed escape outright; the page the resolver chose must still be rendered.
      const url = req.url!;
      const fixed = routable(url);
      if (fixed !== url) req.url = fixed;
      return false;
    }
    const headers = req.headers;
    if (outcome.linkId !== null && req.method === 'GET') {
      deps.recordClick(clickOf(req, config.trustedProxies, outcome.linkId, outcome.userId, deps.now()));
    }
    const location = locationHeader(outcome.location);
    let status = 302;
    if (outcome.htmxAware && headers['hx-request'] !== undefined) {
      status = 204;
      res.writeHead(204, { 'referrer-policy': REFERRER_POLICY, 'cache-control': REDIRECT_CACHE_CONTROL, 'hx-redirect': location });
    } else {
      res.writeHead(302, {
        'referrer-policy': REFERRER_POLICY,
        'cache-control': REDIRECT_CACHE_CONTROL,
        location,
        'content-length': '0',
      });
    }
    res.end();
    // The fast path's whole record: numbers added to typed arrays, and a log line only when asked for.
    metrics.redirected(start, status);
    if (config.accessLog) logRequest(deps.log(), req.method!, GO_LINK_ROUTE, status, performance.now() - start);
    return true;
  }

  /** A trusted proxy's word wins over any session cookie, as in the web layer's forward-auth sign-in. */
  function viewerOf(req: IncomingMessage): ViewerSource {
    const email = config.authMode === 'proxy' ? proxiedEmail(config, req) : null;
    if (email !== null) return { kind: 'proxied', email };
    const token = sessionToken(req.headers.cookie);
    return token === null ? { kind: 'anonymous' } : { kind: 'session', token };
  }

  return function resolveGoLink(req, res) {
    const method = req.method;
    if ((method !== 'GET' && method !== 'HEAD') || deps.closing()) return false;
    const url = req.url ?? '';
    if (url.charCodeAt(0) !== 0x2f) return false;
    const q = url.indexOf('?');
    const path = (q === -1 ? url : url.slice(0, q)).slice(1);
    if (path === '') return false;
    // `%zz` is no escape at all: the router refuses it with the 400 page, which repeats nothing
    // (docs/web-ui.md#error-pages). A trailing `%` and a byte escape that is not UTF-8 (`%ff`)
    // are read literally below, as a name someone may have meant.
    if (NOT_AN_ESCAPE.test(path)) return false;
    const slash = path.indexOf('/');
    if (deps.routedSegments().has(slash === -1 ? path : path.slice(0, slash))) return false;
    const viewer = viewerOf(req);
    const start = performance.now();
    try {
      const outcome = resolver.resolve({ path, host: requestHost(req), viewer, query: q === -1 ? '' : url.slice(q + 1) });
      return outcome instanceof Promise
        ? outcome.then(
            (o) => answer(req, res, o, start),
            // Fastify answers a failed lookup again from scratch, with its error handling.
            () => false,
          )
        : answer(req, res, outcome, start);
    } catch {
      return false;
    }
  };
}
