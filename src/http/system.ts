import type { FastifyInstance } from 'fastify';
import { migrationStatus } from '../db/migrate.js';
import type { Metrics } from '../metrics.js';
import type { Store } from '../store/index.js';

/** Probes and metrics (core.md §1.5, §12.3): unauthenticated, cheap, never clicks. */
export function registerSystemRoutes(app: FastifyInstance, deps: { store: Store; metrics: Metrics }): void {
  app.get('/healthz', async (_req, reply) => {
    reply.header('cache-control', 'no-store');
    return reply.type('text/plain; charset=utf-8').send('ok\n');
  });

  app.get('/readyz', async (_req, reply) => {
    reply.header('cache-control', 'no-store').type('text/plain; charset=utf-8');
    try {
      const status = await migrationStatus(deps.store.db);
      if (status.pending.length > 0) return reply.code(503).send(`migrations pending: ${status.pending.join(', ')}\n`);
      return reply.send('ready\n');
    } catch (e) {
      return reply.code(503).send(`database unavailable: ${(e as Error).message}\n`);
    }
  });

  app.get('/metrics', async (_req, reply) => {
    reply.header('cache-control', 'no-store').type(deps.metrics.registry.contentType);
    return reply.send(await deps.metrics.registry.metrics());
  });
}
