import { createHash } from 'node:crypto';
import { DAY_MS, utcDayStart } from './timeseries.js';

/**
 * Which closed UTC days, and which aligned runs of days, have a current
 * rollup — and how to cover a range of whole days with as few runs as
 * possible. Runs are aligned like a segment tree: a run of `span` days starts
 * on a day whose index since the epoch is a multiple of `span`, and is built
 * from its two halves, so any range of whole days is covered by a few runs.
 */

/** Rollups cover the longest read window (the 90-day series); older days are never read from them. */
export const ROLLUP_DAYS = 90;

/**
 * The closed UTC days `[oldest, today)` that may be read from rollups at
 * `now`. A write that changes raw rows under one of them marks the day dirty
 * (docs/analytics.md#rollups); older days need no mark, since no read takes
 * them from rollups.
 */
export function rollupWindow(now: number): { oldest: number; today: number } {
  const today = utcDayStart(now);
  return { oldest: today - (ROLLUP_DAYS - 1) * DAY_MS, today };
}

/** The distinct closed days of the window at `now` among click times, each once. */
export function closedRollupDays(now: number, times: Iterable<number>): number[] {
  const { oldest, today } = rollupWindow(now);
  const days = new Set<number>();
  for (const t of times) if (t >= oldest && t < today) days.add(utcDayStart(t));
  return [...days];
}

/** Run lengths above a single day, each built from two runs of half its length. */
export const RUN_SPANS = [2, 4, 8, 16, 32] as const;

export interface SpanRecord {
  day: number;
  span: number;
  version: string;
  clicks: number;
  authenticated: number;
  /** Days: a token of that build. Runs: `runSource` of the halves' sources at build time. */
  source: string;
}

/** The source a run records: changes whenever either half is rebuilt. */
export function runSource(left: string, right: string): string {
  return createHash('sha256').update(`${left}\u0000${right}`).digest('hex').slice(0, 32);
}

export interface Cover {
  /** `[day, span]` runs to read from rollups (span 1: a single day). */
  runs: Array<[day: number, span: number]>;
  /** Every day the runs cover. */
  days: number[];
}

export class RollupCoverage {
  private readonly records = new Map<string, SpanRecord>();
  private readonly valid = new Map<string, boolean>();
  private readonly dirty: Set<number>;

  /**
   * `dirty`: days marked since their rollup was built (a late click, a deleted
   * link or user, pruning). A dirty day is not covered, and neither is any run
   * that contains it, whatever its record says (docs/analytics.md#rollups).
   */
  constructor(
    records: Iterable<SpanRecord>,
    private readonly version: string,
    dirty: Iterable<number> = [],
  ) {
    for (const r of records) this.records.set(key(r.day, r.span), r);
    this.dirty = new Set(dirty);
  }

  /**
   * Records a (re)built day or run; validity is re-derived, since runs depend
   * on their parts. A rebuilt day counts as clean for the rest of the job's
   * pass: a mark written while it was rebuilt stays in the table, so readers
   * (and the next pass) still see the day dirty.
   */
  put(record: SpanRecord): void {
    this.records.set(key(record.day, record.span), record);
    if (record.span === 1) this.dirty.delete(record.day);
    this.valid.clear();
  }

  /** Whether the day was marked dirty when this coverage was read. */
  isDirty(day: number): boolean {
    return this.dirty.has(day);
  }

  record(day: number, span: number): SpanRecord | undefined {
    return this.records.get(key(day, span));
  }

  /** A day rolled up under the current classification. */
  dayRolled(day: number): boolean {
    return this.isValid(day, 1);
  }

  /** A run (or day, for span 1) whose rollup is current: built from halves that are themselves current. */
  isValid(day: number, span: number): boolean {
    const k = key(day, span);
    const known = this.valid.get(k);
    if (known !== undefined) return known;
    const r = this.records.get(k);
    let ok = r !== undefined && r.version === this.version && (span > 1 || !this.dirty.has(day));
    if (ok && span > 1) {
      const half = span / 2;
      const right = day + half * DAY_MS;
      ok =
        this.isValid(day, half) &&
        this.isValid(right, half) &&
        r!.source === runSource(this.records.get(key(day, half))!.source, this.records.get(key(right, half))!.source);
    }
    this.valid.set(k, ok);
    return ok;
  }

  /**
   * Covers the whole days `[from, to)` (UTC midnights) greedily with the
   * longest current runs; days with no current rollup are left out (read raw).
   */
  cover(from: number, to: number): Cover {
    const out: Cover = { runs: [], days: [] };
    for (let day = from; day < to;) {
      const index = Math.round(day / DAY_MS);
      let span: number = RUN_SPANS[RUN_SPANS.length - 1]!;
      while (span > 1 && (index % span !== 0 || day + span * DAY_MS > to || !this.isValid(day, span))) span /= 2;
      if (span === 1 && !this.isValid(day, 1)) {
        day += DAY_MS;
        continue;
      }
      out.runs.push([day, span]);
      for (let i = 0; i < span; i++) out.days.push(day + i * DAY_MS);
      day += span * DAY_MS;
    }
    return out;
  }
}

const key = (day: number, span: number) => `${day}:${span}`;
