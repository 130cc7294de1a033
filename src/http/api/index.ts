import type { FastifyInstance } from 'fastify';
import type { Store } from '../../store/index.js';
import { sendApiError } from './errors.js';
import { registerUserRoutes } from './users.js';

/**
 * The REST API under `/api/v1` (api.md §4): bearer tokens only, JSON only.
 * One module per resource registers its routes here.
 */
export function registerApiRoutes(app: FastifyInstance, deps: { store: Store }): void {
  registerUserRoutes(app, deps);

  // Unknown API paths answer the API's 404 body (api.md §4.1 rule 6). Without
  // these, the slug resolver's catch-all would answer them with an HTML page.
  const notFound = async (_req: unknown, reply: Parameters<typeof sendApiError>[0]) => sendApiError(reply, 'NOT_FOUND', 'not found');
  for (const url of ['/api/v1', '/api/v1/*']) {
    app.route({ method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'], url, handler: notFound });
  }
}
