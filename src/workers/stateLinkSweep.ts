import type { FastifyBaseLogger } from 'fastify';
import type { Store } from '../store/index.js';
import type { PeriodicJob } from './scheduler.js';

/**
 * Deletes expired app-state links (docs/state-links.md): at start, then every
 * BACKUP_INTERVAL_MS, on one replica at a time under the `state-link-sweep`
 * lease. Expired links already read as missing; this only frees their space.
 */
export function stateLinkSweepJob(store: Pick<Store, 'stateLinks'>, intervalMs: number, log: FastifyBaseLogger): PeriodicJob {
  return {
    name: 'state-link-sweep',
    intervalMs,
    runAtStart: true,
    async run(signal) {
      const n = await store.stateLinks.sweepExpired({ signal });
      if (n > 0) log.info(`state-link sweep removed ${n} expired links`);
    },
  };
}
