import type { FastifyBaseLogger } from 'fastify';
import type { ClickRollupStore } from '../store/clickRollups.js';
import type { PeriodicJob } from './scheduler.js';

export const CLICK_ROLLUP_INTERVAL_MS = 3_600_000;

/**
 * Keeps the daily click rollups current (see store/clickRollups.ts): at start
 * and hourly, under the `click-rollup` lease so one replica does it. Until a
 * day is rolled up, reads use its raw rows, so a late or skipped run only
 * costs read time, never correctness.
 */
export function clickRollupJob(rollups: ClickRollupStore, log: FastifyBaseLogger, intervalMs = CLICK_ROLLUP_INTERVAL_MS): PeriodicJob {
  return {
    name: 'click-rollup',
    intervalMs,
    runAtStart: true,
    async run(signal) {
      const started = Date.now();
      const r = await rollups.rollUp({ signal });
      if (r.rolled > 0) log.info(`click rollup: rebuilt ${r.rolled} days (${r.current} current) in ${Date.now() - started} ms`);
    },
  };
}
