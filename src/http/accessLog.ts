import type { FastifyBaseLogger } from 'fastify';

/**
 * The access log (`JOE_ACCESS_LOG`, docs/operations.md#logs): one info line per request with its
 * method, the route pattern that answered it (never the path, which may name a private link),
 * the status and the milliseconds taken. The message repeats them for readable logs; JSON logs
 * carry them as fields.
 */
export function logRequest(log: FastifyBaseLogger, method: string, route: string, status: number, ms: number): void {
  const rounded = Math.round(ms * 100) / 100;
  log.info({ access: true, method, route, status, ms: rounded }, `${method} ${route} ${status} ${rounded}ms`);
}

/** The route pattern the go-link front answers for: the resolver's own catch-all. */
export const GO_LINK_ROUTE = '/*';

/** A request no route matched. */
export const NO_ROUTE = '(no route)';
