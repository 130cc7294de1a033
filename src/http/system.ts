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

  app.get('/metrics', async (req, reply) => {
    const registry = deps.metrics.registry;
    reply.header('cache-control', 'no-store').type(registry.contentType);
    const names = metricNames(req.query);
    if (names === null) return reply.send(await registry.metrics());
    const wanted = new Set(names.filter((n) => registry.getSingleMetric(n) !== undefined));
    // Our own families each hold their own values, so a poll for one counter is answered
    // without the whole scrape (reading /proc, every histogram: a millisecond or more of the
    // core the redirects use). Node's families fill each other when one is collected (the
    // event-loop delays, the heap sizes), so asking for any of them takes the whole scrape.
    if ([...wanted].every((n) => n.startsWith(OWN_PREFIX))) {
      const parts = await Promise.all([...wanted].map((n) => registry.getSingleMetricAsString(n)));
      return reply.send(parts.map((p) => `${p}\n`).join(''));
    }
    return reply.send(onlyFamilies(await registry.metrics(), wanted));
  });
}

const OWN_PREFIX = 'joelinks_';

/** The blocks of a text exposition whose family is in `wanted`. */
function onlyFamilies(text: string, wanted: ReadonlySet<string>): string {
  return text
    .split(/(?=^# HELP )/m)
    .filter((block) => wanted.has(block.slice('# HELP '.length, block.indexOf(' ', '# HELP '.length))))
    .join('');
}

/**
 * The families asked for with `name[]=` (as Prometheus's own client libraries read it), or null
 * for all of them (docs/operations.md#metrics-and-alerts).
 */
function metricNames(query: unknown): string[] | null {
  const raw = (query as Record<string, unknown> | undefined)?.['name[]'];
  if (raw === undefined) return null;
  return (Array.isArray(raw) ? raw : [raw]).filter((n): n is string => typeof n === 'string');
}
