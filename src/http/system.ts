import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../metrics.js';

export interface SystemDeps {
  metrics: Metrics;
  /** The migrations the database still lacks (server.ts hands down db/migrate.ts's answer). */
  migrationStatus(): Promise<{ pending: string[] }>;
  /** True once a shutdown has begun: the replica still serves but wants no new traffic. */
  draining?(): boolean;
}

/**
 * Probes and metrics, in a context of their own (app.tsx): unauthenticated,
 * cheap, never clicks; no session is read and no API budget spent.
 */
export function registerSystemRoutes(app: FastifyInstance, deps: SystemDeps): void {
  app.get('/healthz', async (_req, reply) => {
    reply.header('cache-control', 'no-store');
    return reply.type('text/plain; charset=utf-8').send('ok\n');
  });

  app.get('/readyz', async (_req, reply) => {
    reply.header('cache-control', 'no-store').type('text/plain; charset=utf-8');
    // Before the database is asked: a stopping replica is unready whatever its database says.
    if (deps.draining?.()) return reply.code(503).send('shutting down\n');
    try {
      const status = await deps.migrationStatus();
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
