import { randomUUID } from 'node:crypto';
import type { Ddl, MigrationStep } from './ddl.js';

/**
 * Click rollups, the escape hatch docs/analytics.md#rollups names for when on-the-fly
 * aggregation misses the response-time target (bench/analytics.ts measured
 * that it does at 1,000,000 rows). Raw link_clicks rows stay the source of
 * truth; these tables are a rebuildable summary of closed UTC days.
 *
 * `link_click_rollups` — per link, a run of `span` closed UTC days starting
 * at `day`, click counts by dimension. Single days (span 1) carry `auth`
 * (key `authenticated` / `anonymous`; their sum is the day's total),
 * `referrer` (host or "Direct / unknown"), `browser` and `os`. Aligned runs
 * of 2–32 days carry only `total` (key ''), so a month of per-link totals
 * is a handful of rows per link rather than thirty. Keys are computed in
 * TypeScript when a day is rolled up; queries only SUM and GROUP BY plain
 * columns. Both indexes cover the summed column: (dim, span, day, …) serves
 * instance-wide panels and per-day rewrites, (dim, span, link_id, day, …)
 * per-link reads and personal scopes, one index range per link.
 *
 * `click_referrer_rollups` — referrer hosts per day across all links, for the
 * admin-only instance-wide dashboard.
 *
 * `link_click_rollup_spans` — which days and runs are built, under which
 * classification version, from which raw counts (days) or which parts
 * (runs, via `source`), so a changed day invalidates exactly what depends on
 * it. Rows are only inserted and deleted, never upserted: portable upsert is
 * the dialect divergence docs/analytics.md#rollups warns about.
 */
export const analyticsMigrations: MigrationStep[] = [
  {
    name: '00017_create_link_click_rollups',
    async up(d: Ddl) {
      await d
        .createTable('link_click_rollups')
        .addColumn('link_id', d.str(36), (c) => c.notNull())
        .addColumn('day', 'bigint', (c) => c.notNull())
        .addColumn('span', 'integer', (c) => c.notNull())
        .addColumn('dim', d.str(16), (c) => c.notNull())
        .addColumn('dim_key', d.str(300), (c) => c.notNull())
        .addColumn('clicks', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('link_click_rollups_pkey', ['link_id', 'day', 'span', 'dim', 'dim_key'])
        .addForeignKeyConstraint('link_click_rollups_link_id_fkey', ['link_id'], 'links', ['id'], (f) => f.onDelete('cascade'))
        .execute();
      await d.db.schema
        .createIndex('idx_link_click_rollups_dim_span_day')
        .on('link_click_rollups')
        .columns(['dim', 'span', 'day', 'link_id', 'dim_key', 'clicks'])
        .execute();
      await d.db.schema
        .createIndex('idx_link_click_rollups_dim_span_link')
        .on('link_click_rollups')
        .columns(['dim', 'span', 'link_id', 'day', 'dim_key', 'clicks'])
        .execute();
      await d
        .createTable('click_referrer_rollups')
        .addColumn('day', 'bigint', (c) => c.notNull())
        .addColumn('host', d.str(300), (c) => c.notNull())
        .addColumn('clicks', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('click_referrer_rollups_pkey', ['day', 'host'])
        .execute();
      await d
        .createTable('link_click_rollup_spans')
        .addColumn('day', 'bigint', (c) => c.notNull())
        .addColumn('span', 'integer', (c) => c.notNull())
        .addColumn('version', d.str(32), (c) => c.notNull())
        .addColumn('clicks', 'bigint', (c) => c.notNull())
        .addColumn('authenticated', 'bigint', (c) => c.notNull())
        .addColumn('source', d.str(64), (c) => c.notNull())
        .addColumn('rolled_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('link_click_rollup_spans_pkey', ['day', 'span'])
        .execute();
    },
    async down(d: Ddl) {
      await d.db.schema.dropTable('link_click_rollup_spans').execute();
      await d.db.schema.dropTable('click_referrer_rollups').execute();
      await d.db.schema.dropTable('link_click_rollups').execute();
    },
  },
  {
    /**
     * Every redirect writes one entry into each link_clicks index, so their
     * width is paid per click. The trailing `id` (36 bytes) made the per-link
     * index the widest B-tree of the table, and its entries land all over it
     * (one region per link). Storing 960,000 clicks over 10,000 links into
     * SQLite, the last third took 11.4–13.2 µs of CPU per click without it,
     * 15.6–18.5 µs with it (and with `id` in the time index too). Readers
     * order ties on `clicked_at` by id themselves: SQLite and PostgreSQL sort
     * only the rows sharing one timestamp, and InnoDB keeps the primary key
     * in every secondary index. The new indexes are built before the old
     * ones go, because InnoDB will not drop the only index that serves the
     * link_id foreign key.
     */
    name: '00018_narrow_link_clicks_indexes',
    async up(d: Ddl) {
      await swapIndexes(d, WIDE_CLICK_INDEXES, NARROW_CLICK_INDEXES);
    },
    async down(d: Ddl) {
      await swapIndexes(d, NARROW_CLICK_INDEXES, WIDE_CLICK_INDEXES);
    },
  },
];

/**
 * `click_rollup_dirty_days` — closed days whose raw rows changed after they
 * may have been rolled up: one row per mark, written in the same transaction
 * as the change (a late click batch, a deleted link or user, pruning).
 * Readers take a marked day from raw rows; the roll-up job deletes exactly the
 * marks it read before rebuilding, so one written meanwhile survives
 * (docs/analytics.md#rollups). Rollups built before this table existed were
 * checked only by counts, which some changes leave equal, so every day
 * already rolled up starts out marked and is rebuilt by the next run.
 */
export const dirtyDayMigrations: MigrationStep[] = [
  {
    name: '00020_create_click_rollup_dirty_days',
    async up(d: Ddl) {
      await d
        .createTable('click_rollup_dirty_days')
        .addColumn('day', 'bigint', (c) => c.notNull())
        .addColumn('mark_id', d.str(36), (c) => c.notNull())
        .addPrimaryKeyConstraint('click_rollup_dirty_days_pkey', ['day', 'mark_id'])
        .execute();
      const rolled = (await d.db.selectFrom('link_click_rollup_spans').select('day').where('span', '=', 1).execute()) as { day: number }[];
      for (let i = 0; i < rolled.length; i += 500) {
        await d.db
          .insertInto('click_rollup_dirty_days')
          .values(rolled.slice(i, i + 500).map((r) => ({ day: Number(r.day), mark_id: randomUUID() })))
          .execute();
      }
    },
    async down(d: Ddl) {
      await d.db.schema.dropTable('click_rollup_dirty_days').execute();
    },
  },
];

type ClickIndex = readonly [name: string, columns: readonly string[]];
const WIDE_CLICK_INDEXES: ClickIndex[] = [
  ['idx_link_clicks_link_id_clicked_at', ['link_id', 'clicked_at', 'id']],
  ['idx_link_clicks_clicked_at', ['clicked_at', 'id']],
];
const NARROW_CLICK_INDEXES: ClickIndex[] = [
  ['idx_link_clicks_link_time', ['link_id', 'clicked_at']],
  ['idx_link_clicks_time', ['clicked_at']],
];

async function swapIndexes(d: Ddl, from: ClickIndex[], to: ClickIndex[]): Promise<void> {
  for (const [name, columns] of to) {
    await d.db.schema
      .createIndex(name)
      .on('link_clicks')
      .columns([...columns])
      .execute();
  }
  for (const [name] of from) await d.dropIndex(name, 'link_clicks');
}
