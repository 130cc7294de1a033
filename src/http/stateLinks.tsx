import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StringDecoder } from 'node:string_decoder';
import type { Config } from '../config.js';
import { clientIp } from '../domain/clientIp.js';
import { STATE_LINK_ID, maxBodyChars, payloadErrorStatus, payloadSha256, validatePayload } from '../domain/statePayload.js';
import { WindowLimiter } from '../domain/windowLimiter.js';
import { isBusy, isUnavailable } from '../store/dbErrors.js';
import type { Store } from '../store/index.js';
import type { CreateOutcome } from '../store/stateLinks.js';
import { LinkMissing, StateDemo } from '../views/pages/stateLinks.js';
import { pageContext, sendHtml } from './web/render.js';

/**
 * App-state short links: `POST /api/links`, `GET /api/links/<id>`, the
 * `/s/<id>` redirect and the two system pages under `/_/`. Anonymous by
 * design: no session, no owner, no clicks. Every redirect is built from
 * configuration, never from `Host`. Three registrations, one per context:
 * the API (`registerStateLinkApi`, inside `/api` with its own error body),
 * the redirects (`registerStateLinkRedirects`, a context of their own that
 * reads no session) and the pages (`registerStateLinkPages`, web pages like
 * any other). They share one set of per-client limits (`stateLinkLimits`).
 */

export interface StateLinkDeps {
  config: Config;
  store: Pick<Store, 'notifications' | 'now' | 'sessions' | 'stateLinks' | 'users'>;
}

type ErrorCode =
  | 'bad_prefix'
  | 'bad_encoding'
  | 'bad_gzip'
  | 'bad_json'
  | 'too_large'
  | 'unsupported_media_type'
  | 'forbidden_origin'
  | 'rate_limited'
  | 'not_found'
  | 'storage_full'
  | 'unavailable'
  | 'bad_request'
  | 'internal_error';

/** An error with the state-link body `{ "error": code }`. */
class StateLinkError extends Error {
  constructor(
    readonly statusCode: number,
    readonly stateCode: ErrorCode,
  ) {
    super(stateCode);
  }
}

const NO_STORE = 'no-store';

function sendError(reply: FastifyReply, status: number, code: ErrorCode): FastifyReply {
  return reply.code(status).header('cache-control', NO_STORE).type('application/json; charset=utf-8').send({ error: code });
}

function isPlainText(contentType: string | undefined): boolean {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase() === 'text/plain';
}

/**
 * Reads a text body while counting characters, and stops reading as soon as
 * it passes `maxChars`, so an oversized body is refused without being held.
 * A declared length over 4 × maxChars cannot fit (UTF-8 spends at most four
 * bytes per character) and is refused before reading anything.
 */
function boundedTextParser(maxChars: number) {
  return (req: FastifyRequest, payload: NodeJS.ReadableStream, done: (err: Error | null, body?: string) => void): void => {
    const declared = Number(req.headers['content-length']);
    if (declared > maxChars * 4) {
      done(new StateLinkError(413, 'too_large'));
      return;
    }
    const decoder = new StringDecoder('utf8');
    let text = '';
    const stop = () => {
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', onEnd);
    };
    function onData(chunk: Buffer | string) {
      text += typeof chunk === 'string' ? chunk : decoder.write(chunk);
      if (text.length > maxChars) {
        stop();
        done(new StateLinkError(413, 'too_large'));
      }
    }
    function onEnd(err?: Error) {
      stop();
      if (err) {
        done(new StateLinkError(400, 'bad_request'));
        return;
      }
      text += decoder.end();
      if (text.length > maxChars) done(new StateLinkError(413, 'too_large'));
      else done(null, text);
    }
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onEnd);
    payload.resume();
  };
}

/** The per-client limits the state-link routes share, created once per app. */
export interface StateLinkLimits {
  clientOf(req: FastifyRequest): string;
  /** Takes one event from `limiter`; on refusal the reply is sent and true returned. */
  limited(limiter: WindowLimiter, key: string, reply: FastifyReply): boolean;
  attempts: WindowLimiter;
  creates: WindowLimiter;
  reads: WindowLimiter;
}

export function stateLinkLimits(deps: StateLinkDeps): StateLinkLimits {
  const { config, store } = deps;
  const sl = config.stateLinks;
  // Per client and per replica, in memory: a client spreading requests over N
  // replicas gets N times each limit. The limits slow abuse and id guessing;
  // they are not a quota that needs to be exact.
  const windowMs = Math.max(sl.rateWindowMs, 1);
  return {
    attempts: new WindowLimiter(sl.maxAttempts, windowMs, store.now),
    creates: new WindowLimiter(sl.maxCreates, windowMs, store.now),
    reads: new WindowLimiter(sl.maxReads, windowMs, store.now),
    clientOf: (req) => clientIp(req.socket.remoteAddress ?? '', req.headers, config.trustedProxies),
    limited: (limiter, key, reply) => {
      const d = limiter.take(key);
      if (d.ok) return false;
      reply.header('retry-after', String(d.retryAfterSeconds));
      sendError(reply, 429, 'rate_limited');
      return true;
    },
  };
}

/**
 * `POST /api/links` and `GET /api/links/<id>`, registered with prefix
 * `/links` inside the `/api` context: their own error body
 * (`{ "error": code }`) and a bounded plain-text body parser.
 */
export async function registerStateLinkApi(api: FastifyInstance, deps: StateLinkDeps & { limits: StateLinkLimits }): Promise<void> {
  const { config, store, limits } = deps;
  const { attempts, creates, reads, clientOf, limited } = limits;
  const sl = config.stateLinks;
  const allowedOrigin = new URL(sl.publicOrigin).origin;
  const linkUrl = (id: string) => `${sl.publicOrigin}/s/${id}`;
  // Not part of the REST API's OpenAPI document.
  const hidden = { hide: true };

  api.setErrorHandler(async (error: Error & { statusCode?: number }, req, reply) => {
    if (error instanceof StateLinkError) return sendError(reply, error.statusCode, error.stateCode);
    if (isUnavailable(error) || isBusy(error)) {
      req.log.warn({ err: error }, 'database unavailable');
      return sendError(reply, 503, 'unavailable');
    }
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      return sendError(reply, error.statusCode === 413 ? 413 : 400, error.statusCode === 413 ? 'too_large' : 'bad_request');
    }
    req.log.error({ err: error }, 'unhandled error');
    return sendError(reply, 500, 'internal_error');
  });
  api.removeContentTypeParser('text/plain');
  api.addContentTypeParser('text/plain', boundedTextParser(maxBodyChars(sl.payloadPrefix)));

  api.post(
    '',
    {
      schema: hidden,
      // Refusals that need no body happen before a byte of it is read.
      onRequest: async (req, reply) => {
        if (limited(attempts, clientOf(req), reply)) return reply;
        const origin = req.headers.origin;
        const site = req.headers['sec-fetch-site'];
        // Other sites must not use the service as free storage; clients without Origin are not browsers.
        if ((origin !== undefined && origin !== allowedOrigin) || (site !== undefined && site !== 'same-origin')) {
          return sendError(reply, 403, 'forbidden_origin');
        }
        if (!isPlainText(req.headers['content-type'])) return sendError(reply, 415, 'unsupported_media_type');
        return undefined;
      },
    },
    async (req, reply) => {
      const body = typeof req.body === 'string' ? req.body : '';
      const check = validatePayload(body, sl.payloadPrefix);
      if (!check.ok) return sendError(reply, payloadErrorStatus(check.code), check.code);
      const sha = payloadSha256(body);
      const found = await store.stateLinks.dedupe(sha, sl.unopenedTtlMs);
      const ok = (status: 200 | 201, id: string) =>
        reply
          .code(status)
          .header('cache-control', NO_STORE)
          .send({ id, url: linkUrl(id) });
      if (found !== null) return ok(200, found);
      // Only new links count against the creation limit; a post that ends
      // any other way gives its slot back.
      const client = clientOf(req);
      if (limited(creates, client, reply)) return reply;
      let outcome: CreateOutcome;
      try {
        outcome = await store.stateLinks.create(body, sha, sl.unopenedTtlMs, sl.maxBytes);
      } catch (e) {
        creates.refund(client);
        throw e;
      }
      if (outcome.kind !== 'created') creates.refund(client);
      switch (outcome.kind) {
        case 'created':
          return ok(201, outcome.id);
        case 'existing':
          return ok(200, outcome.id);
        case 'full':
          return sendError(reply, 507, 'storage_full');
        case 'exhausted':
          req.log.error('state link id space looks exhausted: every drawn id was taken');
          return sendError(reply, 503, 'unavailable');
      }
    },
  );
  api.get('/*', { schema: hidden }, async (req, reply) => {
    if (limited(reads, clientOf(req), reply)) return reply;
    const id = (req.params as { '*': string })['*'];
    const link = STATE_LINK_ID.test(id) ? await store.stateLinks.findLive(id) : null;
    if (!link) return sendError(reply, 404, 'not_found');
    return reply
      .header('cache-control', NO_STORE)
      .send({ id: link.id, payload: link.payload, createdAt: new Date(link.createdAt).toISOString() });
  });
}

/**
 * `/s` itself and every path under it, in a context of their own (no
 * session is read), ahead of the slug resolver: a malformed, unknown or
 * expired id goes to the missing page.
 */
export function registerStateLinkRedirects(app: FastifyInstance, deps: StateLinkDeps & { limits: StateLinkLimits }): void {
  const { config, store, limits } = deps;
  const { reads, clientOf, limited } = limits;
  const sl = config.stateLinks;
  const missingUrl = `${sl.publicOrigin}${sl.missingPath}`;
  const toMissing = (reply: FastifyReply) =>
    reply.code(302).header('cache-control', 'no-store, no-transform').header('location', missingUrl).send();

  const open = async (req: FastifyRequest, reply: FastifyReply) => {
    if (limited(reads, clientOf(req), reply)) return reply;
    const id = (req.params as { '*'?: string })['*'];
    const payload = id !== undefined && STATE_LINK_ID.test(id) ? await store.stateLinks.open(id) : null;
    if (payload === null) return toMissing(reply);
    return reply
      .code(302)
      .header('cache-control', 'no-store, no-transform')
      .header('location', `${sl.publicOrigin}${sl.targetPath}${payload}`)
      .send();
  };
  app.get('/s', open);
  app.get('/s/*', open);
}

/** The two pages under `/_/`, registered in the web context (they show the signed-in user like every page). */
export function registerStateLinkPages(app: FastifyInstance, deps: StateLinkDeps): void {
  const { config } = deps;
  const sl = config.stateLinks;
  const allowedOrigin = new URL(sl.publicOrigin).origin;

  app.get('/_/link-missing', async (req, reply) => sendHtml(req, reply, await pageContext(deps, req), 'Link gone', <LinkMissing />, 404));

  // The demo posts to this server, so it only makes sense when the app
  // origin is this server (the default); elsewhere the real app lives there.
  if (allowedOrigin === new URL(config.baseUrl).origin) {
    app.get('/_/state', async (req, reply) =>
      sendHtml(req, reply, await pageContext(deps, req), 'App-state links', <StateDemo prefix={sl.payloadPrefix} />),
    );
  }
}
