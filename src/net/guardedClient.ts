import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type Socket } from 'node:net';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import { classifyAddress } from '../domain/addressClass.js';

/**
 * The one outbound HTTP client for user-supplied destinations (docs/lifecycle.md#ssrf-guard):
 * the health checker, destination context fetching and webhook deliveries
 * all go through it, and nothing else opens a socket to a destination.
 *
 * The SSRF guard runs inside the connector, at dial time: each connection
 * resolves its host once, drops every address the classifier refuses, and
 * dials one of the survivors by IP — so the address checked is exactly the
 * address connected to, and a resolver that changes its answer between
 * "check" and "connect" (DNS rebinding) has no window. IP-literal hosts take
 * the same path. Redirects are followed here hop by hop, each hop a fresh
 * connection through the same connector.
 */

export interface LookupAddress {
  address: string;
  family: number;
}

/** Name resolution, injectable so tests can play a rebinding resolver. */
export type Lookup = (hostname: string) => Promise<LookupAddress[]>;

export const systemLookup: Lookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export interface GuardedClientOptions {
  /** JOE_HEALTH_CHECK_ALLOW_PRIVATE: turns the address classifier off, nothing else. */
  allowPrivate: boolean;
  userAgent: string;
  lookup?: Lookup;
  /**
   * Which addresses may be dialled while the private-address block is on.
   * Defaults to the classifier; tests widen it to let a loopback alias stand in
   * for a public host, since no public host is reachable from a test run.
   */
  addressAllowed?: (address: string) => boolean;
}

export interface FetchOptions {
  method: 'HEAD' | 'GET' | 'POST';
  /** Request body (POST), sent as given. */
  body?: string;
  /** Extra request headers; the client's user agent and accept stay its own. */
  headers?: Record<string, string>;
  /** False: a redirect is the final response, never followed (webhook deliveries). */
  followRedirects?: boolean;
  /** Bounds the whole request: connect, TLS, headers, every redirect hop and the body. */
  timeoutMs: number;
  maxRedirects?: number;
  /** Bytes of the final body to read before the connection is dropped. */
  maxBodyBytes?: number;
  /** Return what was read of the body (context fetching); the checker discards it. */
  keepBody?: boolean;
  /** Aborted by the caller (shutdown): the fetch rejects with the signal's reason. */
  signal?: AbortSignal;
}

export interface FetchResult {
  status: number;
  /** The URL of the final hop. */
  url: string;
  redirects: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer | null;
  bodyBytes: number;
}

export type OutboundErrorKind = 'refused' | 'scheme' | 'redirect-limit' | 'timeout' | 'network' | 'tls' | 'protocol';

/** Every way a guarded fetch can fail, with a short reason safe to store and show. */
export class OutboundError extends Error {
  constructor(
    readonly kind: OutboundErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'OutboundError';
  }
}

export const REFUSED_MESSAGE = 'destination is not checkable under current server policy';
export const DEFAULT_MAX_REDIRECTS = 5;
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

function isHttpUrl(u: URL): boolean {
  return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
}

/**
 * Parses a destination the client may fetch: http(s) with a host, else null.
 * The authority must be written out: a WHATWG parser would read `http:opaque`
 * as host `opaque`, which link validation never accepted as a destination.
 */
export function parseHttpUrl(raw: string): URL | null {
  if (!/^https?:\/\/[^/\\?#]/i.test(raw.trim())) return null;
  try {
    const u = new URL(raw.trim());
    return isHttpUrl(u) ? u : null;
  } catch {
    return null;
  }
}

type ConnectorCallback = Parameters<buildConnector.connector>[1];

/**
 * Wraps undici's connector: resolve once, filter by policy, dial by address.
 * The connected socket's peer is checked again before it is handed over, so no
 * later change to this code can make a refused address carry a request.
 */
function guardedConnector(allowed: (address: string) => boolean, lookup: Lookup, timeoutMs: number): buildConnector.connector {
  const base = buildConnector({ timeout: timeoutMs });
  return (options, callback: ConnectorCallback) => {
    const host = options.hostname;
    const addresses = isIP(host) ? Promise.resolve([host]) : lookup(host).then((found) => found.map((a) => a.address));
    addresses.then(
      (all) => {
        if (all.length === 0) return callback(new OutboundError('network', `DNS lookup for ${host} returned no addresses`), null);
        const dialable = all.filter(allowed);
        if (dialable.length === 0) return callback(new OutboundError('refused', REFUSED_MESSAGE), null);
        const attempt = (i: number, lastError: Error | null): void => {
          const address = dialable[i];
          if (address === undefined) return callback(lastError ?? new OutboundError('network', 'no address could be reached'), null);
          // `host` keeps the original name, so TLS still sends SNI for it and verifies its certificate.
          base({ ...options, hostname: address }, (err, socket) => {
            if (err || !socket) return attempt(i + 1, err ?? null);
            const peer = (socket as Socket).remoteAddress;
            if (peer === undefined || !allowed(peer)) {
              socket.destroy();
              return callback(new OutboundError('refused', REFUSED_MESSAGE), null);
            }
            callback(null, socket);
          });
        };
        attempt(0, null);
      },
      (err: Error) => callback(err, null),
    );
  };
}

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_|HOSTNAME_MISMATCH)/;

function errorCode(e: unknown): string {
  for (let cur = e, depth = 0; cur && depth < 4; cur = (cur as { cause?: unknown }).cause, depth++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return '';
}

/** Maps transport errors to a bounded, human reason; never echoes response content. */
function toOutboundError(e: unknown, timeoutMs: number): OutboundError {
  if (e instanceof OutboundError) return e;
  const code = errorCode(e);
  const seconds = `${Math.round(timeoutMs / 100) / 10}s`;
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return new OutboundError('timeout', `timed out after ${seconds}`, { cause: e });
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NODATA' || code === 'EAI_FAIL') {
    return new OutboundError('network', `DNS lookup failed (${code})`, { cause: e });
  }
  if (code === 'ECONNREFUSED') return new OutboundError('network', 'connection refused', { cause: e });
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET') {
    return new OutboundError('network', 'connection reset by the destination', { cause: e });
  }
  if (code === 'ENETUNREACH' || code === 'EHOSTUNREACH')
    return new OutboundError('network', `destination unreachable (${code})`, { cause: e });
  if (TLS_CODE.test(code)) return new OutboundError('tls', `TLS error (${code})`, { cause: e });
  if (
    (e as Error | null)?.name === 'HTTPParserError' ||
    code.startsWith('HPE_') ||
    code === 'UND_ERR_INFO' ||
    code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH' ||
    code === 'UND_ERR_HEADERS_OVERFLOW'
  ) {
    return new OutboundError('protocol', code ? `invalid HTTP response (${code})` : 'invalid HTTP response', { cause: e });
  }
  return new OutboundError('network', code ? `request failed (${code})` : 'request failed', { cause: e });
}

async function discard(body: Dispatcher.ResponseData['body']): Promise<void> {
  body.on('error', () => {});
  body.destroy();
}

/** Reads at most `cap` bytes and drops the rest of the stream unread. */
async function readCapped(
  body: Dispatcher.ResponseData['body'],
  cap: number,
  keep: boolean,
): Promise<{ bytes: number; data: Buffer | null }> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  body.on('error', () => {});
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      const room = cap - bytes;
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
      bytes += part.length;
      if (keep) chunks.push(part);
      if (bytes >= cap) break;
    }
  } finally {
    body.destroy();
  }
  return { bytes, data: keep ? Buffer.concat(chunks) : null };
}

export class GuardedClient {
  private readonly agent: Agent;
  private readonly userAgent: string;

  constructor(opts: GuardedClientOptions, timeoutMs = 30_000) {
    const allowed = opts.allowPrivate
      ? (address: string) => classifyAddress(address).class !== 'invalid'
      : (opts.addressAllowed ?? ((address: string) => classifyAddress(address).class === 'public'));
    this.userAgent = opts.userAgent;
    this.agent = new Agent({
      connect: guardedConnector(allowed, opts.lookup ?? systemLookup, timeoutMs),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      // Probes are spaced seconds apart; idle sockets would only be a second path to a host.
      keepAliveTimeout: 1_000,
    });
  }

  /**
   * Fetches `url` following at most `maxRedirects` http(s) redirects. A
   * redirect to any other scheme is not followed: that response is final.
   * Sends no cookies or credentials (userinfo in the URL is dropped).
   */
  async fetch(rawUrl: string, opts: FetchOptions): Promise<FetchResult> {
    const first = parseHttpUrl(rawUrl);
    if (!first) throw new OutboundError('scheme', 'destination is not an http(s) URL with a host');
    const maxRedirects = opts.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
    const maxBody = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    const deadline = AbortSignal.timeout(opts.timeoutMs);
    const signal = opts.signal ? AbortSignal.any([deadline, opts.signal]) : deadline;
    let current = first;
    let method = opts.method;
    try {
      for (let redirects = 0; ; redirects++) {
        const res = await this.agent.request({
          origin: current.origin,
          path: `${current.pathname}${current.search}`,
          method,
          headers: { ...opts.headers, 'user-agent': this.userAgent, accept: '*/*' },
          body: method === 'POST' ? opts.body : undefined,
          signal,
          // A fresh connection per request: every request passes the dial-time check.
          reset: true,
          headersTimeout: opts.timeoutMs,
          bodyTimeout: opts.timeoutMs,
        });
        const locationHeader = res.headers.location;
        const location = Array.isArray(locationHeader) ? locationHeader[0] : locationHeader;
        if (opts.followRedirects !== false && REDIRECT_STATUSES.has(res.statusCode) && location !== undefined) {
          let next: URL | null = null;
          try {
            next = new URL(location, current);
          } catch {
            next = null;
          }
          if (next && isHttpUrl(next)) {
            await discard(res.body);
            if (redirects >= maxRedirects) {
              throw new OutboundError('redirect-limit', `too many redirects (redirect limit of ${maxRedirects} reached)`);
            }
            if (res.statusCode === 303 && method !== 'HEAD') method = 'GET';
            current = next;
            continue;
          }
        }
        let body: { bytes: number; data: Buffer | null } = { bytes: 0, data: null };
        if (method === 'GET') body = await readCapped(res.body, maxBody, opts.keepBody === true);
        else await discard(res.body);
        return { status: res.statusCode, url: current.href, redirects, headers: res.headers, body: body.data, bodyBytes: body.bytes };
      }
    } catch (e) {
      if (opts.signal?.aborted) throw opts.signal.reason ?? e;
      if (deadline.aborted) throw new OutboundError('timeout', `timed out after ${Math.round(opts.timeoutMs / 100) / 10}s`, { cause: e });
      throw toOutboundError(e, opts.timeoutMs);
    }
  }

  async close(): Promise<void> {
    await this.agent.destroy();
  }
}
