import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { closedRollupDays } from '../domain/rollupCoverage.js';
import { markDirtyDays } from './rollupMarks.js';
import type { Clock } from './types.js';

/** The pinned batch bound: at most this many rows per DELETE. */
export const PRUNE_BATCH = 10_000;

export interface PruneResult {
  deleted: number;
  batches: number;
}

/**
 * Click retention deletes (docs/analytics.md#retention). The batching
 * pattern is pinned: keyset-select up to 10,000 victim ids, then delete
 * exactly those ids. `DELETE … LIMIT` is not portable (PostgreSQL has none,
 * SQLite needs a build option, MySQL refuses the same-table subselect), and a
 * bounded batch keeps each statement short so a large first prune never holds
 * a long write transaction on SQLite.
 */
export class ClickRetentionStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: Clock = Date.now,
  ) {}

  /**
   * One batch: deletes up to `limit` of the oldest clicks with `clicked_at <
   * horizon`; returns how many. Victims on a closed day of the rollup window
   * (a horizon inside it) mark that day dirty in the delete's transaction
   * (docs/analytics.md#rollups); with the 90-day retention floor they lie
   * before the window and the delete stands alone, as before.
   */
  async pruneBatch(horizon: number, limit = PRUNE_BATCH): Promise<number> {
    const victims = await this.db
      .selectFrom('link_clicks')
      .select(['id', 'clicked_at'])
      .where('clicked_at', '<', horizon)
      .orderBy('clicked_at')
      .orderBy('id')
      .limit(Math.min(limit, PRUNE_BATCH))
      .execute();
    if (victims.length === 0) return 0;
    const ids = victims.map((v) => v.id);
    const days = closedRollupDays(
      this.now(),
      victims.map((v) => Number(v.clicked_at)),
    );
    if (days.length === 0) {
      const r = await this.db.deleteFrom('link_clicks').where('id', 'in', ids).executeTakeFirst();
      return Number(r.numDeletedRows);
    }
    return this.db.transaction().execute(async (trx) => {
      const r = await trx.deleteFrom('link_clicks').where('id', 'in', ids).executeTakeFirst();
      await markDirtyDays(trx, days);
      return Number(r.numDeletedRows);
    });
  }

  /**
   * Deletes every click older than `horizon`, batch after batch, until none
   * is left or `signal` asks to stop (shutdown); the next run picks up where
   * this one stopped.
   */
  async pruneClicksOlderThan(
    horizon: number,
    opts: { batchSize?: number; signal?: AbortSignal; onBatch?: (deleted: number) => void } = {},
  ): Promise<PruneResult> {
    const limit = Math.min(opts.batchSize ?? PRUNE_BATCH, PRUNE_BATCH);
    let deleted = 0;
    let batches = 0;
    while (!opts.signal?.aborted) {
      const n = await this.pruneBatch(horizon, limit);
      if (n === 0) break;
      deleted += n;
      batches++;
      opts.onBatch?.(n);
      // A short batch means the select found the last victims.
      if (n < limit) break;
    }
    return { deleted, batches };
  }
}
