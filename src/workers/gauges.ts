import type { FastifyBaseLogger } from 'fastify';
import type { Metrics } from '../metrics.js';
import type { Store } from '../store/index.js';

/** Refreshes the link, user and outbox-depth gauges at start and every 60 s, on every replica (docs/server.md#background-jobs-and-leases). */
export function startGaugeUpdater(
  store: Pick<Store, 'links' | 'users' | 'outbox'>,
  metrics: Metrics,
  log: FastifyBaseLogger,
  everyMs = 60_000,
): { stop(): void } {
  const update = async () => {
    try {
      const [links, users, depth] = await Promise.all([store.links.count(), store.users.count(), store.outbox.depth()]);
      metrics.links.set(links);
      metrics.users.set(users);
      for (const [channel, n] of Object.entries(depth)) metrics.outboxDepth.set({ channel }, n);
    } catch (e) {
      log.warn(`gauge update failed: ${(e as Error).message}`);
    }
  };
  void update();
  const timer = setInterval(update, everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
