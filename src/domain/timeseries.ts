import { AppError } from './errors.js';

/**
 * UTC day arithmetic for the analytics read side
 * (docs/analytics.md#daily-series). Timestamps are integer epoch milliseconds everywhere,
 * so a UTC day is a plain division: no SQL date function, no timezone
 * database, identical on every driver.
 */

export const DAY_MS = 86_400_000;

/** The chart windows the spec allows. */
export const SERIES_DAYS = [30, 90] as const;
export type SeriesDays = (typeof SERIES_DAYS)[number];

/**
 * `days` query value → window, or null for anything but the exact strings
 * "30" and "90" (docs/analytics.md#daily-series: `7`, `030`, `+30` are rejected). Absent means 30.
 */
export function parseSeriesDays(raw: string | undefined | null): SeriesDays | null {
  if (raw === undefined || raw === null) return 30;
  return raw === '30' ? 30 : raw === '90' ? 90 : null;
}

/** Epoch ms of the UTC midnight opening the day that contains `ms`. */
export function utcDayStart(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/** `YYYY-MM-DD` of the UTC day containing `ms`. */
export function utcDate(ms: number): string {
  return new Date(utcDayStart(ms)).toISOString().slice(0, 10);
}

/** RFC 3339 UTC with milliseconds — the exact stored instant, for APIs, CSV and `<time datetime>`. */
export function formatRfc3339(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * A window of whole UTC calendar days: today's (partial) UTC day is the
 * newest bucket, preceded by `days − 1` whole days. `start` is the UTC
 * midnight opening the oldest bucket — the range predicate is aligned to it,
 * never to a rolling `now − N days`. `end` is the midnight closing today.
 */
export interface DayWindow {
  days: number;
  start: number;
  end: number;
}

export function dayWindow(now: number, days: number): DayWindow {
  const today = utcDayStart(now);
  return { days, start: today - (days - 1) * DAY_MS, end: today + DAY_MS };
}

/**
 * The instant before which clicks have been pruned, or null when retention is
 * off (docs/analytics.md#retention). Pages label totals "since {date}" and
 * the never-clicked panel "no clicks within retention" when this is set.
 */
export function retentionHorizon(now: number, retentionDays: number | null | undefined): number | null {
  return retentionDays ? now - retentionDays * DAY_MS : null;
}

export interface SeriesPoint {
  /** UTC calendar day, `YYYY-MM-DD`. */
  date: string;
  /** Epoch ms of the midnight opening the day. */
  dayStart: number;
  count: number;
  /**
   * The day starts before the retention horizon, so some or all of its
   * clicks may have been pruned: a chart shows it as no-data, not zero.
   * `count` is then 0, which is what the API reports for it (docs/analytics.md#daily-series).
   */
  noData: boolean;
}

export interface DailySeries {
  days: number;
  /** Exactly `days` points, ascending, gap-filled. */
  series: SeriesPoint[];
  /** Null when retention is off. */
  retentionHorizon: number | null;
}

/**
 * Counts clicks into the buckets of one `DayWindow`, a row at a time. Memory
 * is one number per day regardless of how many rows stream through.
 */
export class DailyCounter {
  private readonly counts: Uint32Array;

  constructor(readonly window: DayWindow) {
    this.counts = new Uint32Array(window.days);
  }

  add(clickedAt: number): void {
    // Rows outside the window (a replica's clock ahead of ours) are not part of any bucket.
    const i = Math.floor((clickedAt - this.window.start) / DAY_MS);
    if (i >= 0 && i < this.window.days) this.counts[i]!++;
  }

  /** Adds a pre-counted day (a rollup). */
  addDay(dayStart: number, n: number): void {
    const i = Math.floor((dayStart - this.window.start) / DAY_MS);
    if (i >= 0 && i < this.window.days) this.counts[i]! += n;
  }

  /**
   * The gap-filled series. A day is no-data when it opens before the horizon:
   * the day holding the horizon is only partly retained, so its count would
   * understate it. Its count reads 0, as docs/analytics.md#daily-series reports such days.
   */
  series(horizon: number | null): DailySeries {
    const series: SeriesPoint[] = [];
    for (let i = 0; i < this.window.days; i++) {
      const dayStart = this.window.start + i * DAY_MS;
      const noData = horizon !== null && dayStart < horizon;
      series.push({ date: utcDate(dayStart), dayStart, count: noData ? 0 : this.counts[i]!, noData });
    }
    return { days: this.window.days, series, retentionHorizon: horizon };
  }
}

/**
 * Strict RFC 3339 date-time (`2026-07-17T14:00:00Z`, optional fraction,
 * `Z` or `±hh:mm`) → epoch ms, or null. Fractions beyond milliseconds are
 * truncated. Calendar-invalid values (`2026-02-30`) are rejected rather than
 * rolled over, because `Date.parse` would silently roll them.
 */
export function parseRfc3339(raw: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|([+-])(\d{2}):(\d{2}))$/.exec(raw);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac, , sign, oh, om] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const daysInMonth = month === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
  if (day > daysInMonth) return null;
  let offsetMin = 0;
  if (sign) {
    const offH = Number(oh);
    const offM = Number(om);
    if (offH > 23 || offM > 59) return null;
    offsetMin = (sign === '-' ? -1 : 1) * (offH * 60 + offM);
  }
  const ms = frac ? Number(frac.slice(1, 4).padEnd(3, '0')) : 0;
  // setUTCFullYear, unlike Date.UTC, does not map years 0–99 to 1900–1999.
  const at = new Date(0);
  at.setUTCFullYear(year, month - 1, day);
  at.setUTCHours(hour, minute, second, ms);
  return at.getTime() - offsetMin * 60_000;
}

/**
 * An optional RFC 3339 query parameter (the export's `from`/`to`): absent or
 * empty → null; anything unparseable is a BAD_REQUEST naming the parameter.
 */
export function parseInstantParam(name: string, raw: string | undefined | null): number | null {
  if (raw === undefined || raw === null || raw === '') return null;
  const t = parseRfc3339(raw);
  if (t === null) throw new AppError('BAD_REQUEST', `invalid ${name}: expected an RFC 3339 date-time such as 2026-07-17T14:00:00Z`, name);
  return t;
}

/** The dashboard periods (docs/analytics.md#dashboard). */
export type Period = 'week' | 'month';
export const PERIOD_DAYS: Record<Period, number> = { week: 7, month: 30 };

export function parsePeriod(raw: string | undefined | null): Period | null {
  if (raw === undefined || raw === null) return 'week';
  return raw === 'week' || raw === 'month' ? raw : null;
}

/**
 * The current period — the last 7 or 30 days, `clicked_at >= now − N days`,
 * the same rule as the v1 counters — and the equal-length period before it,
 * which the trend compares against.
 */
export interface PeriodWindows {
  period: Period;
  previousStart: number;
  currentStart: number;
}

export function periodWindows(now: number, period: Period): PeriodWindows {
  const len = PERIOD_DAYS[period] * DAY_MS;
  return { period, currentStart: now - len, previousStart: now - 2 * len };
}

/** Percentage change against the previous period; null ("new") when there was nothing to compare with. */
export function trendPct(count: number, previous: number): number | null {
  return previous === 0 ? null : (100 * (count - previous)) / previous;
}

/** A half-open span of time `[from, to)`; `to` null means open-ended. */
export interface TimeSpan {
  from: number;
  to: number | null;
}

/**
 * `[from, to)` minus the whole UTC days in `covered` (day starts), as
 * ascending spans with adjacent gaps merged. This is how a read splits a
 * window between rolled-up days and raw rows.
 */
export function uncoveredSpans(from: number, to: number | null, covered: Iterable<number>): TimeSpan[] {
  const days = [...covered].sort((a, b) => a - b);
  const out: TimeSpan[] = [];
  let cursor = from;
  for (const d of days) {
    if (to !== null && d >= to) break;
    if (d + DAY_MS <= cursor) continue;
    if (d > cursor) out.push({ from: cursor, to: d });
    cursor = Math.max(cursor, d + DAY_MS);
  }
  if (to === null || cursor < to) out.push({ from: cursor, to });
  return out;
}
