import type { FastifyBaseLogger } from 'fastify';
import type { Metrics } from '../metrics.js';
import type { Store } from '../store/index.js';

/** Refreshes the link and user gauges at start and every 60 s, on every replica (docs/server.md#background-jobs-and-leases). */
export function startGaugeUpdater(
  store: Pick<Store, 'links' | 'users'>,
  metrics: Metrics,
  log: FastifyBaseLogger,
  everyMs = 60_000,
): { stop(): void } {
  const update = async () => {
    try {
      const [links, users] = await Promise.all([store.links.count(), store.users.count()]);
      metrics.links.set(links);
      metrics.users.set(users);
    } catch (e) {
      log.warn(`gauge update failed: ${(e as Error).message}`);
    }
  };
  void update();
  const timer = setInterval(update, everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
