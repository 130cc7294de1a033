import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { BadRequest } from '../../views/pages/errors.js';
import { overrideTarget } from './methodOverride.js';
import { errorToastHeader, isHtmx, pageContext, sendHtml, type PageDeps } from './render.js';

/**
 * NUL characters in web input. PostgreSQL refuses NUL in text parameters, so
 * a NUL reaching a query is a 500 there and stored data on SQLite and MySQL.
 * No web field has a use for it, so it is refused at the edge, alike on every
 * database, as the REST API and MCP do:
 *
 * - forms that report errors beside their fields check their own fields
 *   (`nulMessage`, route config `handlesNul: true`) so the form comes back
 *   with the input kept;
 * - everything else — query strings, path parameters, other form bodies —
 *   is answered here with a plain 400 before the handler runs.
 */

const NUL = '\u0000';

export function hasNul(v: string): boolean {
  return v.includes(NUL);
}

/** The message shown for a field holding a NUL (same wording as the REST API). */
export function nulMessage(field: string): string {
  return `${field} must not contain NUL characters`;
}

/** For re-rendering submitted text: a NUL becomes U+FFFD, which is what a browser would show anyway. */
export function visibleNul(v: string): string {
  return v.includes(NUL) ? v.replaceAll(NUL, '\uFFFD') : v;
}

/** The name of the first entry holding a NUL (strings, arrays, nested objects), or null. */
export function firstNulKey(value: unknown, prefix = '', depth = 0): string | null {
  if (typeof value === 'string') return value.includes(NUL) ? prefix || 'value' : null;
  if (depth > 8 || typeof value !== 'object' || value === null) return null;
  const entries: Array<[string, unknown]> = Array.isArray(value)
    ? value.map((v, i) => [`${prefix}[${i}]`, v])
    : Object.entries(value).map(([k, v]) => [prefix ? `${prefix}.${k}` : k, v]);
  for (const [key, v] of entries) {
    if (hasNul(key)) return prefix || 'field name';
    const hit = firstNulKey(v, key, depth + 1);
    if (hit) return hit;
  }
  return null;
}

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
    const message = `${where} must not contain NUL characters`;
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
