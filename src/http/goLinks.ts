import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import { sessionToken } from '../auth/cookies.js';
import { proxiedEmail } from '../auth/webSession.js';
import type { Config } from '../config.js';
import type { Metrics } from '../metrics.js';
import type { Resolution, Resolver, ViewerSource } from '../resolve/resolver.js';
import { GO_LINK_ROUTE, logRequest } from './accessLog.js';
import { isFormHandoff, redirectResponse, storeClick, type RedirectDeps } from './redirectAnswer.js';
import { requestHost } from './shared/requestAddress.js';

export interface GoLinkDeps extends RedirectDeps {
  config: Pick<Config, 'authMode' | 'authProxyHeader' | 'trustedProxies' | 'accessLog'>;
  /** The app's logger, for the access log (the front exists before the app does). */
  log(): FastifyBaseLogger;
  resolver: Resolver;
  metrics: Metrics;
  /** True once the server has begun shutting down; Fastify then answers 503. */
  closing(): boolean;
  /** The first path segments the router owns; their requests go to Fastify untouched. */
  routedSegments(): ReadonlySet<string>;
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
    storeClick(deps, req, outcome);
    const { status, headers } = redirectResponse(req, outcome);
    res.writeHead(status, headers);
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
