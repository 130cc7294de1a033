import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isAppError } from '../../domain/errors.js';
import { isBusy, isUnavailable } from '../../store/dbErrors.js';
import type { PageContext } from '../../views/context.js';
import { BadRequest, PlainNotFound, ServerError, TooManyRequests, Unavailable } from '../../views/pages/errors.js';
import { parseTheme } from '../../views/context.js';
import { errorToastHeader, isHtmx, pageContext, sendHtml, type PageDeps } from './render.js';

/**
 * The web context's error pages (http/web/index.ts): every failure of a page,
 * fragment or form post, and every path no context claims, answers in HTML.
 * The state-link redirects use the same handler.
 */

/** What a page needs when the session cannot (or should not) be loaded. */
function fallbackCtx(deps: PageDeps, req: FastifyRequest): PageContext {
  return { user: null, theme: null, path: req.url.split('?')[0]!, shortKeyword: deps.config.shortKeyword || 'go' };
}

export function webErrorHandler(deps: PageDeps) {
  return async function webError(error: FastifyError | Error, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const e = error as Error & { statusCode?: number; code?: string };
    if (isAppError(e)) {
      const ctx = await pageContext(deps, req).catch(() => fallbackCtx(deps, req));
      // A budget's 429 (docs/web-ui.md#error-pages) keeps the Retry-After the limiter set.
      if (e.code === 'RATE_LIMITED') {
        if (isHtmx(req)) errorToastHeader(reply, e.message);
        return sendHtml(req, reply, ctx, 'Too many requests', <TooManyRequests message={e.message} />, e.status);
      }
      return sendHtml(req, reply, ctx, 'Error', <PlainNotFound message={e.message} />, e.status);
    }
    if (e.statusCode === 413 || e.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return reply.code(413).type('text/plain').send('request body too large');
    }
    if (e.statusCode !== undefined && e.statusCode >= 400 && e.statusCode < 500) {
      if (isHtmx(req)) errorToastHeader(reply, e.message);
      return sendHtml(req, reply, fallbackCtx(deps, req), 'Bad request', <BadRequest message={e.message} />, e.statusCode);
    }
    if (isUnavailable(e) || isBusy(e)) {
      req.log.warn({ err: e }, 'database unavailable');
      return sendHtml(req, reply, fallbackCtx(deps, req), 'Unavailable', <Unavailable />, 503);
    }
    req.log.error({ err: e }, 'unhandled error');
    return sendHtml(req, reply, fallbackCtx(deps, req), 'Error', <ServerError />, 500);
  };
}

export function webNotFound(deps: PageDeps) {
  return async function notFound(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const ctx = await pageContext(deps, req).catch(() => fallbackCtx(deps, req));
    return sendHtml(req, reply, ctx, 'Not found', <PlainNotFound />, 404);
  };
}

/**
 * A request the router refused before any context was chosen (a malformed
 * %-escape, an oversized path segment; docs/web-ui.md#error-pages): the 400
 * page, with the security headers every page carries, which no hook has set
 * for it. Its path is never repeated back.
 */
export function sendMalformedUrlPage(
  deps: PageDeps,
  securityHeaders: Record<string, string>,
  req: FastifyRequest,
  reply: FastifyReply,
  theme: string | undefined,
): FastifyReply {
  reply.headers(securityHeaders);
  const ctx: PageContext = { user: null, theme: parseTheme(theme), path: '/', shortKeyword: deps.config.shortKeyword || 'go' };
  return sendHtml(req, reply, ctx, 'Bad request', <BadRequest message="This address has a malformed %-escape or is too long." />, 400);
}
