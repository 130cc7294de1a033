import type { FastifyBaseLogger } from 'fastify';
import { announceExpiries } from '../notify/lifecycle.js';
import type { NotifyOptions } from '../notify/record.js';
import type { Store } from '../store/index.js';
import type { PeriodicJob } from './scheduler.js';

export const EXPIRY_WATCH_JOB = 'expiry-watch';
export const EXPIRY_WATCH_INTERVAL_MS = 5 * 60_000;

/**
 * The leased `expiry-watch` job (docs/notifications.md#expiry): every five
 * minutes, owners of links expiring within a week are notified and webhooks
 * hear `link.expired` for expiries that have passed, each once per expiry value.
 */
export function expiryWatchJob(store: Store, opts: NotifyOptions, log: FastifyBaseLogger): PeriodicJob {
  return {
    name: EXPIRY_WATCH_JOB,
    intervalMs: EXPIRY_WATCH_INTERVAL_MS,
    runAtStart: true,
    async run() {
      const s = await announceExpiries(store, opts);
      if (s.expiring + s.expired > 0) log.info(`expiry watch: ${s.expiring} expiring soon, ${s.expired} expired`);
    },
  };
}
