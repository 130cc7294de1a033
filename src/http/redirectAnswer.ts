import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { Config } from '../config.js';
import { clientIp } from '../domain/clientIp.js';
import type { Resolution } from '../resolve/resolver.js';
import type { Clock } from '../store/types.js';
import type { ClickEvent } from '../workers/clickWriter.js';
import { REFERRER_POLICY } from './securityHeaders.js';

/**
 * The one answer to a redirect (docs/server.md#redirects): what the go-link front
 * (goLinks.ts) writes straight to the socket and what the resolver's catch-all route
 * (resolve.tsx) sends through Fastify are built here, with the click each stores, so the two
 * ways a redirect leaves the server cannot drift apart.
 */

type Redirect = Extract<Resolution, { kind: 'redirect' }>;

/** A go link can be repointed at any time, so no hop may be cached. */
export const REDIRECT_CACHE_CONTROL = 'private, no-store';

const NOT_VISIBLE_ASCII = /[^\x21-\x7e]/u;

/** Header values must be visible ASCII; anything else is percent-encoded as UTF-8. */
export function locationHeader(url: string): string {
  // Nearly every destination is plain ASCII already: test before building a copy.
  return NOT_VISIBLE_ASCII.test(url) ? url.replace(/[^\x21-\x7e]/gu, (ch) => encodeURIComponent(ch)) : url;
}

/**
 * Whether a redirect answers the fill-in page's form (docs/links.md#fill-in-page): a value
 * filled by name, in a navigation from a page of this site. Browsers hold a redirect answering
 * a form to the CSP's `form-action 'self'`, so a destination on another site would be stopped;
 * such a request gets a page that moves on by itself (`Refresh`), which no form rule covers.
 * Typed or followed from elsewhere (`Sec-Fetch-Site` none or cross-site), it is redirected.
 */
export function isFormHandoff(req: IncomingMessage, outcome: Redirect): boolean {
  return (
    outcome.filledByName === true &&
    req.headers['sec-fetch-site'] === 'same-origin' &&
    req.headers['sec-fetch-mode'] === 'navigate' &&
    req.headers['hx-request'] === undefined
  );
}

export interface RedirectDeps {
  config: Pick<Config, 'trustedProxies'>;
  now: Clock;
  recordClick(event: ClickEvent): void;
}

export interface RedirectAnswer {
  /** 302, or 204 with `HX-Redirect` for an HTMX request to a link. */
  status: 204 | 302;
  headers: OutgoingHttpHeaders;
}

/** Stores a redirect's click: a `GET` of a link (a `HEAD` or a keyword template stores none). */
export function storeClick(deps: RedirectDeps, req: IncomingMessage, outcome: Redirect): void {
  if (outcome.linkId === null || req.method !== 'GET') return;
  const headers = req.headers;
  deps.recordClick({
    linkId: outcome.linkId,
    userId: outcome.userId,
    ip: clientIp(req.socket.remoteAddress ?? '', headers, deps.config.trustedProxies),
    userAgent: headers['user-agent'],
    referer: headers.referer,
    at: deps.now(),
  });
}

/**
 * How a redirect is answered, whichever way it leaves the server. Only the fill-in form's own
 * submission is answered otherwise (isFormHandoff), and only by the route.
 */
export function redirectResponse(req: IncomingMessage, outcome: Redirect): RedirectAnswer {
  const location = locationHeader(outcome.location);
  if (outcome.htmxAware && req.headers['hx-request'] !== undefined) {
    return {
      status: 204,
      headers: { 'referrer-policy': REFERRER_POLICY, 'cache-control': REDIRECT_CACHE_CONTROL, 'hx-redirect': location },
    };
  }
  return {
    status: 302,
    headers: { 'referrer-policy': REFERRER_POLICY, 'cache-control': REDIRECT_CACHE_CONTROL, location, 'content-length': '0' },
  };
}
