import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { firstNulKey, nulMessage } from '../../domain/nul.js';
import { BadRequest } from '../../views/pages/errors.js';
import { overrideTarget } from './methodOverride.js';
import { errorToastHeader, isHtmx, pageContext, sendHtml, type PageDeps } from './render.js';

/**
 * NUL characters in web input, refused by the one rule (domain/nul.ts) at the
 * web edge:
 *
 * - forms that report errors beside their fields check their own fields
 *   (`nulMessage`, route config `handlesNul: true`) so the form comes back
 *   with the input kept;
 * - everything else — query strings, path parameters, other form bodies —
 *   is answered here with a plain 400 before the handler runs.
 */

/** Where a request carries a NUL the route does not report itself, described for the reader. */
function nulLocation(req: FastifyRequest): string | null {
  const params = firstNulKey(req.params);
  if (params) return 'the address';
  const query = firstNulKey(req.query);
  if (query) return `query parameter ${query}`;
  const target = overrideTarget(req);
  const handled = req.routeOptions.config.handlesNul === true || target?.config?.handlesNul === true;
  if (!handled) {
    const body = firstNulKey(req.body);
    if (body) return `form field ${body}`;
  }
  return null;
}

function refuseNul(deps: PageDeps): preHandlerAsyncHookHandler {
  return async function nulGuard(req: FastifyRequest, reply: FastifyReply) {
    const where = nulLocation(req);
    if (where === null) return;
    const message = nulMessage(where);
    if (isHtmx(req)) {
      errorToastHeader(reply, message);
      return reply.code(400).type('text/plain; charset=utf-8').header('cache-control', 'no-store').send(message);
    }
    return sendHtml(req, reply, await pageContext(deps, req), 'Bad request', <BadRequest message={message} />, 400);
  };
}

/**
 * Adds the guard, after the route's own preHandlers (sign-in and role
 * checks answer first), to every route registered in this context from here
 * on: the pages' context (http/web/index.ts). The API, MCP, state links and
 * the resolver live in other contexts with their own rules.
 */
export function installNulGuard(app: FastifyInstance, deps: PageDeps): void {
  const guard = refuseNul(deps);
  app.addHook('onRoute', (route) => {
    const existing = route.preHandler;
    const list = existing === undefined ? [] : Array.isArray(existing) ? existing : [existing];
    route.preHandler = [...list, guard];
  });
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The handler reports NUL characters in its form fields itself, beside the field (http/web/nulGuard.tsx). */
    handlesNul?: boolean;
  }
}
