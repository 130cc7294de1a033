import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { BreakdownAccumulator, type Breakdowns } from '../domain/breakdowns.js';
import { clampClicksLimit, encodeClickCursor, parseClicksBefore } from '../domain/clickCursor.js';
import { AppError } from '../domain/errors.js';
import {
  DAY_MS,
  DailyCounter,
  dayWindow,
  retentionHorizon,
  uncoveredSpans,
  utcDayStart,
  type DailySeries,
  type DayWindow,
  type Period,
  type TimeSpan,
} from '../domain/timeseries.js';
import { readDashboard, type Dashboard } from './analyticsDashboard.js';
import { exportClicks, type ClickExport, type ExportOptions } from './clickExport.js';
import { beforePosition, clickRange, keysetBatches, positionOf } from './clickKeyset.js';
import type { ClickRollupStore } from './clickRollups.js';
import { LIST_ACTIVITY_DAYS, readListActivity, type LinkActivity } from './listActivity.js';
import type { StatsScope } from './statsScope.js';
import type { Clock } from './types.js';

export type { ClickExport, ExportOptions } from './clickExport.js';
export { EXPORT_ROW_CAP } from './clickExport.js';
export type { Dashboard, DashboardScope, NeverClickedLink, TopLink } from './analyticsDashboard.js';
export type { LinkActivity } from './listActivity.js';

/**
 * The analytics read side (docs/analytics.md): totals,
 * recent clicks, daily series, breakdowns, the dashboard and the CSV export.
 *
 * SQL here is only what every driver does alike — indexed range scans,
 * COUNT/SUM, GROUP BY on plain columns. Day bucketing and text grouping
 * happen in TypeScript over rows read in bounded keyset batches on
 * (clicked_at, id), so no request holds a window's rows in memory
 * (Governing: docs/analytics.md#breakdowns — streaming, bounded memory).
 * Closed days that the roll-up job has summarised are read from the daily
 * rollups instead (the escape hatch of docs/analytics.md#rollups; see clickRollups.ts), which gives
 * the same answer at a fraction of the rows.
 *
 * Callers authorize first (CanStats through `store.access.caps`); methods
 * take the attribution decision (CanManageShares) as a parameter and never
 * return clicker identities without it.
 */

/** Rows per batch when only (clicked_at, id) is read: a few hundred KB. */
const NARROW_BATCH = 10_000;
/** Rows per batch when referrer/UA text is read (up to 2048 + 512 code points each). */
const WIDE_BATCH = 2_000;

export interface LinkTotals {
  /** All retained clicks (with retention on, the figure covers only the retention window). */
  total: number;
  last7d: number;
  last30d: number;
}

export interface RecentClick {
  id: string;
  clickedAt: number;
  referrer: string | null;
  /** Null for anonymous clicks and for every click when the caller lacks CanManageShares. */
  user: { id: string; displayName: string } | null;
}

export interface RecentClicksPage {
  clicks: RecentClick[];
  /** Position of the last click returned, or null on the last page. */
  nextCursor: string | null;
}

export interface LinkBreakdowns extends Breakdowns {
  days: number;
}

export class AnalyticsStore {
  constructor(
    private readonly db: Kysely<Database>,
    readonly now: Clock,
    private readonly rollups: ClickRollupStore,
  ) {}

  // ---------------------------------------------------------------- v1 surfaces

  /** docs/analytics.md#per-link-stats counters: all retained clicks, and `clicked_at >= now − 7 d` / `now − 30 d`. */
  async totals(linkId: string): Promise<LinkTotals> {
    const now = this.now();
    const r = await this.db
      .selectFrom('link_clicks')
      .select((eb) => [
        eb.fn.countAll<number>().as('total'),
        eb.fn
          .sum<number>(
            eb
              .case()
              .when('clicked_at', '>=', now - 7 * DAY_MS)
              .then(1)
              .else(0)
              .end(),
          )
          .as('last7d'),
        eb.fn
          .sum<number>(
            eb
              .case()
              .when('clicked_at', '>=', now - 30 * DAY_MS)
              .then(1)
              .else(0)
              .end(),
          )
          .as('last30d'),
      ])
      .where('link_id', '=', linkId)
      .executeTakeFirstOrThrow();
    // SUM over no rows is NULL on every database.
    return { total: Number(r.total), last7d: Number(r.last7d ?? 0), last30d: Number(r.last30d ?? 0) };
  }

  /**
   * One page of a link's clicks, newest first (docs/analytics.md#per-link-stats): `limit` is the
   * raw query value (default 50, max 200), `before` a `nextCursor` or a legacy
   * bare RFC 3339 timestamp; a malformed `before` is a BAD_REQUEST.
   * `attribution` is the caller's CanManageShares.
   */
  async recentClicks(
    linkId: string,
    opts: { limit?: string | number | null; before?: string | null; attribution: boolean },
  ): Promise<RecentClicksPage> {
    const limit = clampClicksLimit(opts.limit);
    const cut = opts.before ? parseClicksBefore(opts.before) : null;
    if (opts.before && !cut) {
      throw new AppError('BAD_REQUEST', 'invalid before: expected a next_cursor value or an RFC 3339 timestamp', 'before');
    }
    const rows = await this.db
      .selectFrom('link_clicks')
      .leftJoin('users', 'users.id', 'link_clicks.user_id')
      .select(['link_clicks.id', 'link_clicks.clicked_at', 'link_clicks.referrer', 'link_clicks.user_id', 'users.display_name'])
      .where((eb) => {
        const link = eb('link_clicks.link_id', '=', linkId);
        if (!cut) return link;
        return eb.and([link, cut.kind === 'time' ? eb('link_clicks.clicked_at', '<', cut.clickedAt) : beforePosition(cut.position)(eb)]);
      })
      .orderBy('link_clicks.clicked_at', 'desc')
      .orderBy('link_clicks.id', 'desc')
      .limit(limit + 1)
      .execute();
    const more = rows.length > limit;
    const page = more ? rows.slice(0, limit) : rows;
    const clicks = page.map((r) => ({
      id: r.id,
      clickedAt: Number(r.clicked_at),
      referrer: r.referrer ? r.referrer : null,
      // Governing: docs/analytics.md#who-sees-what — clicker identity only with CanManageShares.
      user: opts.attribution && r.user_id ? { id: r.user_id, displayName: r.display_name ?? '' } : null,
    }));
    const last = page[page.length - 1];
    return { clicks, nextCursor: more && last ? encodeClickCursor(positionOf(last)) : null };
  }

  // ---------------------------------------------------------------- per-link v2

  /** Which days of a window come from rollups, and the spans left for raw rows. */
  private async plan(window: DayWindow): Promise<{ rolled: number[]; raw: TimeSpan[] }> {
    const today = utcDayStart(this.now());
    const coverage = await this.rollups.coverage(window.start, today);
    const rolled: number[] = [];
    for (let day = window.start; day < today; day += DAY_MS) if (coverage.dayRolled(day)) rolled.push(day);
    return { rolled, raw: uncoveredSpans(window.start, window.end, rolled) };
  }

  /** A link's click times in the spans, oldest first, in batches; (link_id, clicked_at, id) covers the read. */
  private async *rawTimes(linkId: string, spans: readonly TimeSpan[]) {
    for (const span of spans) {
      yield* keysetBatches(
        (p, limit) =>
          this.db
            .selectFrom('link_clicks')
            .select(['link_clicks.clicked_at', 'link_clicks.id'])
            .where('link_clicks.link_id', '=', linkId)
            .where(clickRange(span.from, span.to, p))
            .orderBy('link_clicks.clicked_at')
            .orderBy('link_clicks.id')
            .limit(limit)
            .execute(),
        NARROW_BATCH,
      );
    }
  }

  /** A link's click rows in the spans with the columns breakdowns classify. */
  private async *rawRows(linkId: string, spans: readonly TimeSpan[]) {
    for (const span of spans) {
      yield* keysetBatches(
        (p, limit) =>
          this.db
            .selectFrom('link_clicks')
            .select(['link_clicks.clicked_at', 'link_clicks.id', 'link_clicks.referrer', 'link_clicks.user_agent', 'link_clicks.user_id'])
            .where('link_clicks.link_id', '=', linkId)
            .where(clickRange(span.from, span.to, p))
            .orderBy('link_clicks.clicked_at')
            .orderBy('link_clicks.id')
            .limit(limit)
            .execute(),
        WIDE_BATCH,
      );
    }
  }

  /**
   * Daily clicks over the last `days` UTC days, gap-filled
   * (docs/analytics.md#daily-series): today's partial UTC day plus the `days − 1`
   * before it, the range starting at the UTC midnight opening the oldest
   * bucket. Days before the retention horizon are flagged `noData`.
   */
  async dailySeries(linkId: string, opts: { days: number; retentionDays?: number | null }): Promise<DailySeries> {
    const now = this.now();
    const counter = new DailyCounter(dayWindow(now, opts.days));
    const { rolled, raw } = await this.plan(counter.window);
    for (const [day, n] of await this.rollups.linkDayTotals(linkId, rolled)) counter.addDay(day, n);
    for await (const rows of this.rawTimes(linkId, raw)) for (const r of rows) counter.add(Number(r.clicked_at));
    return counter.series(retentionHorizon(now, opts.retentionDays));
  }

  /**
   * Referrer hosts, browser and OS families and the authenticated/anonymous
   * split over the same whole-UTC-day window as the series
   * (docs/analytics.md#breakdowns). Counts only: nothing here identifies a clicker, so
   * every CanStats caller gets the full result.
   */
  async breakdowns(linkId: string, opts: { days: number }): Promise<LinkBreakdowns> {
    const acc = new BreakdownAccumulator();
    const { rolled, raw } = await this.plan(dayWindow(this.now(), opts.days));
    await this.rollups.addLinkDimensions(linkId, rolled, acc);
    for await (const rows of this.rawRows(linkId, raw)) for (const r of rows) acc.add(r.referrer, r.user_agent, r.user_id !== null);
    return { days: opts.days, ...acc.result() };
  }

  /** Series and breakdowns of one window in a single pass — what the stats page's chart fragment shows together. */
  async linkWindow(
    linkId: string,
    opts: { days: number; retentionDays?: number | null },
  ): Promise<{ series: DailySeries; breakdowns: LinkBreakdowns }> {
    const now = this.now();
    const counter = new DailyCounter(dayWindow(now, opts.days));
    const acc = new BreakdownAccumulator();
    const { rolled, raw } = await this.plan(counter.window);
    for (const [day, n] of await this.rollups.linkDayTotals(linkId, rolled)) counter.addDay(day, n);
    await this.rollups.addLinkDimensions(linkId, rolled, acc);
    for await (const rows of this.rawRows(linkId, raw)) {
      for (const r of rows) {
        counter.add(Number(r.clicked_at));
        acc.add(r.referrer, r.user_agent, r.user_id !== null);
      }
    }
    return { series: counter.series(retentionHorizon(now, opts.retentionDays)), breakdowns: { days: opts.days, ...acc.result() } };
  }

  /**
   * The 30-day daily counts, their sum and the last click of every link of a list page, in one
   * query after the rollup coverage (docs/web-ui.md#link-tables); links without a row in the
   * answer (deleted meanwhile) are absent. Callers list only links the viewer may see.
   */
  async listActivity(linkIds: readonly string[]): Promise<Map<string, LinkActivity>> {
    if (linkIds.length === 0) return new Map();
    const window = dayWindow(this.now(), LIST_ACTIVITY_DAYS);
    const { rolled } = await this.plan(window);
    return readListActivity(this.db, linkIds, window, new Set(rolled));
  }

  // ---------------------------------------------------------------- cross-link and export

  /**
   * `/dashboard/analytics` and `GET /api/v1/analytics`: top links with their
   * trend, never-clicked links and the busiest referrer hosts over a scope
   * the caller resolved for its viewer (domain/statsScope.ts dashboardScopeFor:
   * the personal scope, or every link for admins only).
   */
  async dashboard(opts: { period: Period; scope: StatsScope }): Promise<Dashboard> {
    return readDashboard(this.db, this.rollups, this.now(), opts);
  }

  /** The one streaming export iterator both CSV routes serve; see clickExport.ts. */
  exportClicks(linkId: string, opts: ExportOptions): Promise<ClickExport> {
    return exportClicks(this.db, linkId, opts);
  }
}
