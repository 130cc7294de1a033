import { randomUUID } from 'node:crypto';
import type { ExpressionBuilder, Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { CLASSIFICATION_VERSION, ClickClassifier, DIMENSIONS, DimensionTallies, Tally, type Dimension } from '../domain/breakdowns.js';
import { RUN_SPANS, RollupCoverage, rollupWindow, runSource, type SpanRecord } from '../domain/rollupCoverage.js';
import { DAY_MS, utcDayStart } from '../domain/timeseries.js';
import { clickRange, keysetBatches } from './clickKeyset.js';
import { isForeignKeyViolation } from './dbErrors.js';
import { clearMarks, dirtyMarks, dropMarksBefore } from './rollupMarks.js';
import { linkInScope, type StatsScope } from './statsScope.js';
import type { Clock } from './types.js';

/**
 * Click rollups — the escape hatch docs/analytics.md#rollups documents for when on-the-fly
 * aggregation misses the response-time target, which bench/analytics.ts
 * measured it to do at 1,000,000 rows. A rollup summarises one closed UTC day
 * (or an aligned run of days); link_clicks stays the single source of truth.
 * Every write that changes raw rows under a closed day marks the day dirty in
 * its own transaction (rollupMarks.ts); reads take only clean rolled-up days
 * from here and everything else (today, days not rolled yet, dirty days) from
 * raw rows, so an answer never depends on whether the job has run. The job
 * rebuilds dirty days, and, as a second check, any day whose raw click or
 * authenticated count no longer matches what its rollup was built from.
 */

export { ROLLUP_DAYS } from '../domain/rollupCoverage.js';
/**
 * A day is rolled up only this long after it closes: clicks are stamped when
 * the redirect happens and written moments later. A click written later still
 * (after a database outage) marks its day dirty, and the day is rebuilt.
 */
export const ROLLUP_GRACE_MS = 15 * 60_000;
const INSERT_BATCH = 500;
const READ_BATCH = 2_000;
const ALL_SPANS = [1, ...RUN_SPANS];
const ALL_DIMS = [...DIMENSIONS, 'total'];

export interface RollupRun {
  /** Days rebuilt from raw rows in this run. */
  rolled: number;
  /** Days whose rollup matched their raw counts. */
  current: number;
  /** Multi-day runs rebuilt. */
  runs: number;
}

type Row = { link_id: string; day: number; span: number; dim: string; dim_key: string; clicks: number };

export class ClickRollupStore {
  constructor(
    private readonly db: Kysely<Database>,
    readonly now: Clock,
  ) {}

  /**
   * Rollup records of runs starting in `[from, to)`, with the days marked
   * dirty there: a dirty day, and every run containing it, is not covered.
   * The marks are read after the records, so a day marked while this runs is
   * seen dirty even when its record was read before the mark's write.
   */
  async coverage(from: number, to: number): Promise<RollupCoverage> {
    if (to <= from) return new RollupCoverage([], CLASSIFICATION_VERSION);
    const rows = await this.db.selectFrom('link_click_rollup_spans').selectAll().where('day', '>=', from).where('day', '<', to).execute();
    const dirty = (await dirtyMarks(this.db, from, to)).map((m) => m.day);
    return new RollupCoverage(rows.map(toRecord), CLASSIFICATION_VERSION, dirty);
  }

  /** A link's clicks per rolled-up day. */
  async linkDayTotals(linkId: string, days: readonly number[]): Promise<Map<number, number>> {
    const out = new Map<number, number>();
    if (days.length === 0) return out;
    const rows = await this.db
      .selectFrom('link_click_rollups')
      .select((eb) => ['day', eb.fn.sum<number>('clicks').as('clicks')])
      .where('dim', '=', 'auth')
      .where('span', '=', 1)
      .where('link_id', '=', linkId)
      .where(onDays(days))
      .groupBy('day')
      .execute();
    for (const r of rows) out.set(Number(r.day), Number(r.clicks));
    return out;
  }

  /** A link's clicks per dimension key over rolled-up days, added into `into`. */
  async addLinkDimensions(linkId: string, days: readonly number[], into: DimensionTallies): Promise<void> {
    if (days.length === 0) return;
    const rows = await this.db
      .selectFrom('link_click_rollups')
      .select((eb) => ['dim', 'dim_key', eb.fn.sum<number>('clicks').as('clicks')])
      .where('dim', 'in', [...DIMENSIONS])
      .where('span', '=', 1)
      .where('link_id', '=', linkId)
      .where(onDays(days))
      .groupBy(['dim', 'dim_key'])
      .execute();
    for (const r of rows) if (isDimension(r.dim)) into.addCount(r.dim, r.dim_key, Number(r.clicks));
  }

  /**
   * Clicks per link in scope over the given runs, in one grouped query (an OR
   * of one index range per run length), split at `currentFrom` into the
   * current period and the total.
   */
  async scopeTotals(
    scope: StatsScope,
    runs: ReadonlyArray<[number, number]>,
    currentFrom: number,
  ): Promise<Array<{ linkId: string; current: number; total: number }>> {
    const bySpan = ALL_SPANS.map((span) => [span, runs.filter(([, s]) => s === span).map(([d]) => d)] as const).filter(
      ([, days]) => days.length > 0,
    );
    if (bySpan.length === 0) return [];
    const rows = await this.db
      .selectFrom('link_click_rollups')
      .select((eb) => [
        'link_id',
        eb.fn.sum<number>('clicks').as('total'),
        eb.fn.sum<number>(eb.case().when('day', '>=', currentFrom).then(eb.ref('clicks')).else(0).end()).as('current'),
      ])
      .where((eb) =>
        eb.or(
          bySpan.map(([span, days]) =>
            eb.and([eb('dim', '=', span === 1 ? 'auth' : 'total'), eb('span', '=', span), eb('day', 'in', days)]),
          ),
        ),
      )
      .where(linkInScope(scope, 'link_click_rollups.link_id'))
      .groupBy('link_id')
      .execute();
    return rows.map((r) => ({ linkId: r.link_id, current: Number(r.current ?? 0), total: Number(r.total) }));
  }

  /** Clicks per referrer key over rolled-up days, across the scope. */
  async scopeReferrers(scope: StatsScope, days: readonly number[]): Promise<Array<{ host: string; clicks: number }>> {
    if (days.length === 0) return [];
    if (scope.kind === 'all') {
      const rows = await this.db
        .selectFrom('click_referrer_rollups')
        .select((eb) => ['host', eb.fn.sum<number>('clicks').as('clicks')])
        .where('day', 'in', [...days])
        .groupBy('host')
        .execute();
      return rows.map((r) => ({ host: r.host, clicks: Number(r.clicks) }));
    }
    const rows = await this.db
      .selectFrom('link_click_rollups')
      .select((eb) => ['dim_key', eb.fn.sum<number>('clicks').as('clicks')])
      .where('dim', '=', 'referrer')
      .where('span', '=', 1)
      .where(onDays(days))
      .where(linkInScope(scope, 'link_click_rollups.link_id'))
      .groupBy('dim_key')
      .execute();
    return rows.map((r) => ({ host: r.dim_key, clicks: Number(r.clicks) }));
  }

  // ---------------------------------------------------------------- the roll-up job

  /**
   * Brings rollups up to date: drops days (and marks) older than any read
   * window; reads the dirty marks of the window, then rebuilds each closed
   * day that is marked, missing, built by another classification version, or
   * whose raw click and authenticated counts differ from those it was built
   * from; then rebuilds every multi-day run whose halves changed. A rebuild
   * deletes only the marks read here, before its raw rows were read, so a
   * mark written meanwhile keeps the day dirty for readers and the next run.
   * Stops between steps when `signal` aborts.
   */
  async rollUp(opts: { signal?: AbortSignal } = {}): Promise<RollupRun> {
    const now = this.now();
    const { oldest } = rollupWindow(now);
    const lastClosed = utcDayStart(now - ROLLUP_GRACE_MS) - DAY_MS;
    await this.db
      .deleteFrom('link_click_rollups')
      .where('dim', 'in', ALL_DIMS)
      .where('span', 'in', ALL_SPANS)
      .where('day', '<', oldest)
      .execute();
    await this.db.deleteFrom('click_referrer_rollups').where('day', '<', oldest).execute();
    await this.db.deleteFrom('link_click_rollup_spans').where('day', '<', oldest).execute();
    await dropMarksBefore(this.db, oldest);
    const marks = new Map<number, string[]>();
    for (const m of await dirtyMarks(this.db, oldest, lastClosed + DAY_MS)) {
      let ids = marks.get(m.day);
      if (!ids) marks.set(m.day, (ids = []));
      ids.push(m.markId);
    }
    const coverage = await this.coverage(oldest, lastClosed + DAY_MS);
    const run: RollupRun = { rolled: 0, current: 0, runs: 0 };

    for (let day = oldest; day <= lastClosed; day += DAY_MS) {
      if (opts.signal?.aborted) return run;
      const dayMarks = marks.get(day) ?? [];
      if (dayMarks.length === 0 && coverage.dayRolled(day)) {
        const raw = await this.rawDayCounts(day);
        const rec = coverage.record(day, 1)!;
        if (rec.clicks === raw.clicks && rec.authenticated === raw.authenticated) {
          run.current++;
          continue;
        }
      }
      coverage.put(await this.rollDay(day, dayMarks));
      run.rolled++;
    }

    for (const span of RUN_SPANS) {
      const half = span / 2;
      for (let day = oldest; day + (span - 1) * DAY_MS <= lastClosed; day += DAY_MS) {
        if (Math.round(day / DAY_MS) % span !== 0 || coverage.isValid(day, span)) continue;
        const right = day + half * DAY_MS;
        if (!coverage.isValid(day, half) || !coverage.isValid(right, half)) continue;
        if (opts.signal?.aborted) return run;
        coverage.put(await this.buildRun(day, span, coverage.record(day, half)!, coverage.record(right, half)!));
        run.runs++;
      }
    }
    return run;
  }

  private async rawDayCounts(day: number): Promise<{ clicks: number; authenticated: number }> {
    const r = await this.db
      .selectFrom('link_clicks')
      .select((eb) => [eb.fn.countAll<number>().as('clicks'), eb.fn.count<number>('user_id').as('authenticated')])
      .where('clicked_at', '>=', day)
      .where('clicked_at', '<', day + DAY_MS)
      .executeTakeFirstOrThrow();
    return { clicks: Number(r.clicks), authenticated: Number(r.authenticated) };
  }

  /**
   * Rebuilds one day from its raw rows, streamed in keyset batches and
   * classified in TypeScript, replacing the day's rows in one transaction
   * that also deletes `marks` — the day's dirty marks read before this call,
   * and no others. A
   * link deleted meanwhile fails the insert on its foreign key; the day is
   * then simply read again.
   */
  async rollDay(day: number, marks: readonly string[] = []): Promise<SpanRecord> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.rollDayOnce(day, marks);
      } catch (e) {
        if (attempt >= 2 || !isForeignKeyViolation(e)) throw e;
      }
    }
  }

  private async rollDayOnce(day: number, marks: readonly string[]): Promise<SpanRecord> {
    const perLink = new Map<string, DimensionTallies>();
    const site = new Tally();
    const classifier = new ClickClassifier();
    let clicks = 0;
    let authenticated = 0;
    const batches = keysetBatches(
      (p, limit) =>
        this.db
          .selectFrom('link_clicks')
          .select([
            'link_clicks.link_id',
            'link_clicks.clicked_at',
            'link_clicks.id',
            'link_clicks.referrer',
            'link_clicks.user_agent',
            'link_clicks.user_id',
          ])
          .where(clickRange(day, day + DAY_MS, p))
          .orderBy('link_clicks.clicked_at')
          .orderBy('link_clicks.id')
          .limit(limit)
          .execute(),
      READ_BATCH,
    );
    for await (const rows of batches) {
      for (const r of rows) {
        let t = perLink.get(r.link_id);
        if (!t) perLink.set(r.link_id, (t = new DimensionTallies()));
        const authed = r.user_id !== null;
        const keys = classifier.keys(r.referrer, r.user_agent, authed);
        t.addKeys(keys);
        site.add(keys.referrer);
        clicks++;
        if (authed) authenticated++;
      }
    }
    const record: SpanRecord = {
      day,
      span: 1,
      version: CLASSIFICATION_VERSION,
      clicks,
      authenticated,
      source: randomUUID().replace(/-/g, ''),
    };
    const rolledAt = this.now();
    await this.db.transaction().execute(async (trx) => {
      await trx
        .deleteFrom('link_click_rollups')
        .where('dim', 'in', [...DIMENSIONS])
        .where('span', '=', 1)
        .where('day', '=', day)
        .execute();
      await trx.deleteFrom('click_referrer_rollups').where('day', '=', day).execute();
      await trx.deleteFrom('link_click_rollup_spans').where('day', '=', day).where('span', '=', 1).execute();
      let pending: Row[] = [];
      for (const [linkId, tallies] of perLink) {
        for (const [dim, key, n] of tallies.entries()) {
          pending.push({ link_id: linkId, day, span: 1, dim, dim_key: key, clicks: n });
          if (pending.length >= INSERT_BATCH) {
            await trx.insertInto('link_click_rollups').values(pending).execute();
            pending = [];
          }
        }
      }
      if (pending.length > 0) await trx.insertInto('link_click_rollups').values(pending).execute();
      const hosts = [...site.counts].map(([host, n]) => ({ day, host, clicks: n }));
      for (let i = 0; i < hosts.length; i += INSERT_BATCH)
        await trx
          .insertInto('click_referrer_rollups')
          .values(hosts.slice(i, i + INSERT_BATCH))
          .execute();
      await trx
        .insertInto('link_click_rollup_spans')
        .values({ ...record, rolled_at: rolledAt })
        .execute();
      // Only the marks read before the raw rows: they are what this rebuild accounts for.
      await clearMarks(trx, day, marks);
    });
    return record;
  }

  /** Rebuilds the per-link totals of a run from its two halves (single days for a 2-day run). */
  private async buildRun(day: number, span: number, left: SpanRecord, right: SpanRecord): Promise<SpanRecord> {
    const half = span / 2;
    const record: SpanRecord = {
      day,
      span,
      version: CLASSIFICATION_VERSION,
      clicks: left.clicks + right.clicks,
      authenticated: left.authenticated + right.authenticated,
      source: runSource(left.source, right.source),
    };
    const rolledAt = this.now();
    await this.db.transaction().execute(async (trx) => {
      const totals = await trx
        .selectFrom('link_click_rollups')
        .select((eb) => ['link_id', eb.fn.sum<number>('clicks').as('clicks')])
        .where('dim', '=', half === 1 ? 'auth' : 'total')
        .where('span', '=', half)
        .where('day', 'in', [day, day + half * DAY_MS])
        .groupBy('link_id')
        .execute();
      await trx.deleteFrom('link_click_rollups').where('dim', '=', 'total').where('span', '=', span).where('day', '=', day).execute();
      await trx.deleteFrom('link_click_rollup_spans').where('day', '=', day).where('span', '=', span).execute();
      const rows: Row[] = totals.map((t) => ({ link_id: t.link_id, day, span, dim: 'total', dim_key: '', clicks: Number(t.clicks) }));
      for (let i = 0; i < rows.length; i += INSERT_BATCH)
        await trx
          .insertInto('link_click_rollups')
          .values(rows.slice(i, i + INSERT_BATCH))
          .execute();
      await trx
        .insertInto('link_click_rollup_spans')
        .values({ ...record, rolled_at: rolledAt })
        .execute();
    });
    return record;
  }
}

function toRecord(r: { day: number; span: number; version: string; clicks: number; authenticated: number; source: string }): SpanRecord {
  return {
    day: Number(r.day),
    span: Number(r.span),
    version: r.version,
    clicks: Number(r.clicks),
    authenticated: Number(r.authenticated),
    source: r.source,
  };
}

/**
 * `day` among the given day starts. A run of consecutive days — the usual
 * case, every closed day rolled up — becomes one range, which an index on
 * (…, link_id, day) reads as a single span per link instead of a seek per day.
 */
function onDays(days: readonly number[]) {
  return (eb: ExpressionBuilder<Database, 'link_click_rollups'>) => {
    const sorted = [...days].sort((a, b) => a - b);
    const first = sorted[0]!;
    const last = sorted[sorted.length - 1]!;
    if (last - first === (sorted.length - 1) * DAY_MS && new Set(sorted).size === sorted.length) {
      return eb.and([eb('day', '>=', first), eb('day', '<=', last)]);
    }
    return eb('day', 'in', sorted);
  };
}

function isDimension(d: string): d is Dimension {
  return (DIMENSIONS as readonly string[]).includes(d);
}
