import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod, RouteShorthandOptions } from 'fastify';

/**
 * Form method override (docs/web-ui.md#rendering-conventions): HTML forms can only GET and POST, so
 * every PUT/DELETE web route also answers a plain form POST to the same path
 * carrying a hidden `_method=PUT|DELETE` field. Fastify routes on the method
 * before the body is read, so the override cannot rewrite the request;
 * instead `webRoute` registers the real method and one POST per path that
 * dispatches on `_method`:
 *
 *   webRoute(app, 'PUT', '/dashboard/links/:id', { preHandler: requireUser(deps) }, updateLink);
 *   webRoute(app, 'DELETE', '/dashboard/links/:id', { preHandler: requireUser(deps) }, deleteLink);
 *
 * Handlers see the request as sent (`req.method` is POST for an overridden
 * form) and can tell the two apart with `isMethodOverride(req)`: a form post
 * expects the full page or a 303 redirect rather than an HTMX fragment.
 *
 * The POST variant runs the target route's (async) preHandlers, so guards
 * hold for it too; other route options (e.g. a body schema) apply to the real
 * method only, so handlers validate form input themselves. A path used with
 * `webRoute` cannot also have a POST route of its own.
 */

export type OverridableMethod = 'PUT' | 'DELETE' | 'PATCH';

interface PathRoutes {
  handlers: Map<OverridableMethod, { opts: RouteShorthandOptions; handler: RouteHandlerMethod }>;
}

const registries = new WeakMap<FastifyInstance, Map<string, PathRoutes>>();
const overridden = new WeakSet<FastifyRequest>();

const FORM_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data'];

function isFormPost(req: FastifyRequest): boolean {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  return FORM_TYPES.includes(type);
}

/** True when a PUT/DELETE handler was reached through a form POST with `_method`. */
export function isMethodOverride(req: FastifyRequest): boolean {
  return overridden.has(req);
}

/** The method a form POST asks for, honoured only on form posts. */
export function overrideMethod(req: FastifyRequest): OverridableMethod | null {
  if (req.method !== 'POST' || !isFormPost(req)) return null;
  const m = (req.body as Record<string, unknown> | undefined)?._method;
  if (typeof m !== 'string') return null;
  const upper = m.toUpperCase();
  return upper === 'PUT' || upper === 'DELETE' || upper === 'PATCH' ? upper : null;
}

export function webRoute(
  app: FastifyInstance,
  method: OverridableMethod,
  path: string,
  opts: RouteShorthandOptions,
  handler: RouteHandlerMethod,
): void {
  app.route({ ...opts, method, url: path, handler });
  let registry = registries.get(app);
  if (!registry) {
    registry = new Map();
    registries.set(app, registry);
  }
  const existing = registry.get(path);
  if (existing) {
    existing.handlers.set(method, { opts, handler });
    return;
  }
  const routes: PathRoutes = { handlers: new Map([[method, { opts, handler }]]) };
  registry.set(path, routes);
  app.post(
    path,
    { config: { overrideTargets: routes.handlers } },
    async function overriddenPost(this: FastifyInstance, req: FastifyRequest, reply: FastifyReply) {
      const wanted = overrideMethod(req);
      const target = wanted ? routes.handlers.get(wanted) : undefined;
      if (!target) {
        const allow = [...routes.handlers.keys()].join(', ');
        return reply
          .code(405)
          .header('allow', allow)
          .type('text/plain; charset=utf-8')
          .send(`this form must carry _method=${allow.replaceAll(', ', ' or ')}`);
      }
      overridden.add(req);
      for (const hook of hookList(target.opts.preHandler)) {
        await hook.call(this, req, reply);
        if (reply.sent) return reply;
      }
      return target.handler.call(this, req, reply);
    },
  );
}

/**
 * The options of the route a form POST with `_method` dispatches to (null
 * for any other request), for hooks that run before the dispatch and depend
 * on the target's route config.
 */
export function overrideTarget(req: FastifyRequest): RouteShorthandOptions | null {
  const targets = req.routeOptions.config.overrideTargets;
  const wanted = targets ? overrideMethod(req) : null;
  return (wanted && targets?.get(wanted)?.opts) || null;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** On the POST `webRoute` adds for a path: the PUT/DELETE routes it dispatches to. */
    overrideTargets?: ReadonlyMap<OverridableMethod, { opts: RouteShorthandOptions; handler: RouteHandlerMethod }>;
  }
}

type PreHandler = (this: FastifyInstance, req: FastifyRequest, reply: FastifyReply) => unknown;

/** The target route's preHandlers (guards), run for the POST too, in order. */
function hookList(h: unknown): PreHandler[] {
  if (!h) return [];
  const list = Array.isArray(h) ? h : [h];
  for (const fn of list) {
    // Callback-style hooks would need `done`; the guards of this app are async.
    if (typeof fn !== 'function' || fn.length > 2) throw new Error('webRoute supports async preHandlers only');
  }
  return list as PreHandler[];
}
