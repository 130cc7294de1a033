import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { ROUTE_KIND_INDEX, type Metrics, type RouteKind } from '../metrics.js';
import { NO_ROUTE, logRequest } from './accessLog.js';

/**
 * Every request Fastify answers is counted in the HTTP metrics by the kind of route that answered
 * it, and written to the access log when `JOE_ACCESS_LOG` asks for it (docs/operations.md#metrics-and-alerts,
 * docs/operations.md#logs). The kind is where the route is registered: each context marks its own
 * routes (`markRouteKind`), the resolver's catch-all is a redirect's; a request no route matched
 * is `other`. The go-link front records its redirects itself (http/goLinks.ts).
 */
export function recordRequests(app: FastifyInstance, deps: { metrics: Metrics; config: Pick<Config, 'accessLog'> }): void {
  const { metrics, config } = deps;
  app.addHook('onResponse', (req, reply, done) => {
    const ms = reply.elapsedTime;
    const options = req.routeOptions;
    metrics.http.record(ROUTE_KIND_INDEX[options.config?.routeKind ?? 'other'], reply.statusCode, ms / 1000);
    if (config.accessLog) logRequest(req.log, req.method, options.url ?? NO_ROUTE, reply.statusCode, ms);
    done();
  });
}

/** Marks the routes registered in `context` (and its children, unless they mark their own) as `kind`. */
export function markRouteKind(context: FastifyInstance, kind: RouteKind): void {
  context.addHook('onRoute', (r) => {
    r.config = { ...r.config, routeKind: r.config?.resolver ? 'redirect' : kind };
  });
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What kind of route this is, for the HTTP metrics and the access log. */
    routeKind?: RouteKind;
  }
}
