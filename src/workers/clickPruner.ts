import type { FastifyBaseLogger } from 'fastify';
import { formatRfc3339, retentionHorizon } from '../domain/timeseries.js';
import type { Metrics } from '../metrics.js';
import type { ClickRetentionStore } from '../store/clickRetention.js';
import type { Clock } from '../store/types.js';
import type { PeriodicJob } from './scheduler.js';

/**
 * Well inside the spec's "at least every 24 hours": the scheduler starts a
 * due job on its next tick, so a 24-hour interval would drift past a day.
 */
export const CLICK_PRUNER_INTERVAL_MS = 12 * 3_600_000;

export interface ClickPrunerDeps {
  retention: ClickRetentionStore;
  metrics: Metrics;
  log: FastifyBaseLogger;
  now: Clock;
  retentionDays: number;
  intervalMs?: number;
}

/**
 * The retention pruner (docs/analytics.md#retention): at start and then
 * periodically, under the `click-pruner` lease so one replica runs it, delete
 * clicks older than now − JOE_CLICK_RETENTION days. Pruning ignores link
 * lifecycle on purpose: archiving protects clicks from the delete cascade,
 * not from retention.
 */
export function clickPrunerJob(deps: ClickPrunerDeps): PeriodicJob {
  return {
    name: 'click-pruner',
    intervalMs: deps.intervalMs ?? CLICK_PRUNER_INTERVAL_MS,
    runAtStart: true,
    async run(signal) {
      const horizon = retentionHorizon(deps.now(), deps.retentionDays)!;
      const r = await deps.retention.pruneClicksOlderThan(horizon, {
        signal,
        // Counted per batch so a run cut short by shutdown still reports what it deleted.
        onBatch: (n) => deps.metrics.clicksPruned.inc(n),
      });
      deps.log.info(
        `click pruner: deleted ${r.deleted} click rows older than ${formatRfc3339(horizon)} (${deps.retentionDays}-day retention) in ${r.batches} batches`,
      );
    },
  };
}

/**
 * The startup line docs/analytics.md asks for whenever retention is set: deletion is
 * irreversible, so an operator must be able to see it is on.
 */
export function logRetentionAtStartup(log: FastifyBaseLogger, retentionDays: number | null): void {
  if (!retentionDays) return;
  log.info(
    `click retention enabled: clicks older than ${retentionDays} days (${retentionDays}-day horizon) are permanently deleted by the click-pruner job`,
  );
}
