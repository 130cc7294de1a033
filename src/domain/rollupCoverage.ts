import { createHash } from 'node:crypto';
import { DAY_MS } from './timeseries.js';

/**
 * Which closed UTC days, and which aligned runs of days, have a current
 * rollup — and how to cover a range of whole days with as few runs as
 * possible. Runs are aligned like a segment tree: a run of `span` days starts
 * on a day whose index since the epoch is a multiple of `span`, and is built
 * from its two halves, so any range of whole days is covered by a few runs.
 */

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

  constructor(
    records: Iterable<SpanRecord>,
    private readonly version: string,
  ) {
    for (const r of records) this.records.set(key(r.day, r.span), r);
  }

  /** Records a (re)built day or run; validity is re-derived, since runs depend on their parts. */
  put(record: SpanRecord): void {
    this.records.set(key(record.day, record.span), record);
    this.valid.clear();
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
    let ok = r !== undefined && r.version === this.version;
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
