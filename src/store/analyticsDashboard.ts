import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { DashboardScope } from '../domain/statsScope.js';
import { ReferrerTally, type HostCount } from '../domain/breakdowns.js';
import { DAY_MS, periodWindows, trendPct, uncoveredSpans, utcDayStart, type Period, type TimeSpan } from '../domain/timeseries.js';
import { clickRange, keysetBatches } from './clickKeyset.js';
import type { ClickRollupStore } from './clickRollups.js';
import { linkInScope, type StatsScope } from './statsScope.js';
import { inListChunks } from './sql.js';

/**
 * The global analytics dashboard
 * (docs/analytics.md#dashboard): top links with trend, never-clicked links, busiest referrer
 * hosts, over the scope the caller resolved (domain/statsScope.ts
 * dashboardScopeFor), applied here as a predicate. Aggregate counts only.
 */

export type { DashboardScope };

export interface TopLink {
  linkId: string;
  slug: string;
  count: number;
  previousCount: number;
  /** Null when the previous period had no clicks. */
  trendPct: number | null;
  /** Created within the current period: the only links the page calls "new". */
  isNew: boolean;
}

export interface NeverClickedLink {
  linkId: string;
  slug: string;
  createdAt: number;
}

export interface Dashboard {
  period: Period;
  scope: DashboardScope;
  topLinks: TopLink[];
  neverClicked: NeverClickedLink[];
  topReferrers: HostCount[];
}

const PANEL_SIZE = 10;
/** Never-clicked links must be at least this old. */
const NEVER_CLICKED_MIN_AGE_MS = 7 * DAY_MS;
/** Rows per batch when referrers are read. */
const BATCH = 2_000;

interface LinkCounts {
  current: number;
  previous: number;
  /** Current-period clicks that come from raw rows rather than rollups. */
  rawCurrent: number;
}

/**
 * The current period is `clicked_at >= now − N days` and the previous one
 * the N days before it. Whole UTC days lying entirely inside one period are
 * read from rollups when rolled up; the rest — the partial days at the period
 * edges, today, days not rolled yet — from raw rows.
 */
export async function readDashboard(
  db: Kysely<Database>,
  rollups: ClickRollupStore,
  now: number,
  opts: { period: Period; scope: StatsScope },
): Promise<Dashboard> {
  const { scope } = opts;
  const w = periodWindows(now, opts.period);
  const today = utcDayStart(now);
  const ceilDay = (t: number) => (utcDayStart(t) === t ? t : utcDayStart(t) + DAY_MS);
  const coverage = await rollups.coverage(ceilDay(w.previousStart), today);
  // Whole days inside one period: the previous period's end at the day holding currentStart, the current one's at today.
  const previous = coverage.cover(ceilDay(w.previousStart), utcDayStart(w.currentStart));
  const current = coverage.cover(ceilDay(w.currentStart), today);
  // Clicks are stamped at redirect time, so none lies past now; a day of allowance for a replica's
  // clock keeps every raw span a closed range, which planners estimate as narrow and serve from
  // the clicked_at index rather than scanning a whole index.
  const rawSpans = uncoveredSpans(w.previousStart, now + DAY_MS, [...previous.days, ...current.days]);

  const counts = new Map<string, LinkCounts>();
  const entry = (id: string) => {
    let e = counts.get(id);
    if (!e) counts.set(id, (e = { current: 0, previous: 0, rawCurrent: 0 }));
    return e;
  };
  for (const r of await rollups.scopeTotals(scope, [...previous.runs, ...current.runs], ceilDay(w.currentStart))) {
    const e = entry(r.linkId);
    e.current += r.current;
    e.previous += r.total - r.current;
  }
  // One grouped count per link and raw span — counters per clicked link, not click rows. A
  // query per span keeps each one a plain range that every planner serves from the
  // clicked_at index.
  for (const span of rawSpans) {
    const raw = await db
      .selectFrom('link_clicks')
      .select((eb) => [
        'link_clicks.link_id',
        eb.fn.countAll<number>().as('total'),
        eb.fn.sum<number>(eb.case().when('link_clicks.clicked_at', '>=', w.currentStart).then(1).else(0).end()).as('current'),
      ])
      .where(clickRange(span.from, span.to, null))
      .where(linkInScope(scope, 'link_clicks.link_id'))
      .groupBy('link_clicks.link_id')
      .execute();
    for (const r of raw) {
      const e = entry(r.link_id);
      const n = Number(r.current ?? 0);
      e.current += n;
      e.rawCurrent += n;
      e.previous += Number(r.total) - n;
    }
  }

  const currentRaw = rawSpans
    .map((s) => ({ from: Math.max(s.from, w.currentStart), to: s.to }))
    .filter((s) => s.to === null || s.to > s.from);
  const currentRolled = current.days;
  const [topLinks, neverClicked, topReferrers] = await Promise.all([
    topLinksOf(db, counts, w.currentStart),
    neverClickedIn(db, scope, now),
    busiestReferrers(db, rollups, scope, counts, currentRolled, currentRaw),
  ]);
  return { period: opts.period, scope: scope.kind === 'all' ? 'all' : 'mine', topLinks, neverClicked, topReferrers };
}

/** Top links by current-period clicks, ties by slug; only links clicked in the period qualify. */
async function topLinksOf(db: Kysely<Database>, counts: ReadonlyMap<string, LinkCounts>, currentStart: number): Promise<TopLink[]> {
  const clicked = [...counts].filter(([, c]) => c.current > 0).sort((a, b) => b[1].current - a[1].current);
  if (clicked.length === 0) return [];
  // Everything tied with the 10th entry is a candidate, so the slug tie-break is exact.
  const floor = clicked[Math.min(PANEL_SIZE, clicked.length) - 1]![1].current;
  const candidates = clicked.filter(([, c]) => c.current >= floor);
  const found = new Map<string, { slug: string; createdAt: number }>();
  for (const ids of inListChunks(candidates.map(([id]) => id))) {
    for (const r of await db
      .selectFrom('links')
      .select(['links.id', 'links.slug', 'links.created_at'])
      .where('links.id', 'in', ids)
      .execute())
      found.set(r.id, { slug: r.slug, createdAt: Number(r.created_at) });
  }
  return candidates
    .filter(([id]) => found.has(id))
    .map(([id, c]) => ({
      linkId: id,
      slug: found.get(id)!.slug,
      count: c.current,
      previousCount: c.previous,
      trendPct: trendPct(c.current, c.previous),
      // An old link merely idle in the previous period is not new (docs/analytics.md#dashboard).
      isNew: found.get(id)!.createdAt >= currentStart,
    }))
    .sort((a, b) => b.count - a.count || (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0))
    .slice(0, PANEL_SIZE);
}

/**
 * Links in scope created at least 7 days ago with no recorded click, newest
 * first. With retention on, "no recorded click" means none within retention;
 * the page labels it so.
 */
async function neverClickedIn(db: Kysely<Database>, scope: StatsScope, now: number): Promise<NeverClickedLink[]> {
  const rows = await db
    .selectFrom('links')
    .select(['links.id', 'links.slug', 'links.created_at'])
    .where('links.created_at', '<=', now - NEVER_CLICKED_MIN_AGE_MS)
    .where(linkInScope(scope, 'links.id'))
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('link_clicks')
            .select(sql`1`.as('one'))
            .whereRef('link_clicks.link_id', '=', 'links.id'),
        ),
      ),
    )
    .orderBy('links.created_at', 'desc')
    .orderBy('links.id', 'desc')
    .limit(PANEL_SIZE)
    .execute();
  return rows.map((r) => ({ linkId: r.id, slug: r.slug, createdAt: Number(r.created_at) }));
}

/**
 * Referrer hosts over the current period: rolled-up days summed by key, plus
 * raw rows of the remaining spans (today, the partial first day, days not
 * rolled yet). Instance-wide, each span is one ordered walk of the clicked_at
 * index. For a personal scope the grouped count already named every link
 * with raw clicks in the period and how many, so rows are read per group of
 * links whose counts fill one batch — each query an index range per link, its
 * sort bounded by the batch — and a link busier than a batch gets its own
 * ordered walk.
 */
async function busiestReferrers(
  db: Kysely<Database>,
  rollups: ClickRollupStore,
  scope: StatsScope,
  counts: ReadonlyMap<string, LinkCounts>,
  rolledDays: readonly number[],
  spans: readonly TimeSpan[],
): Promise<HostCount[]> {
  const tally = new ReferrerTally();
  for (const r of await rollups.scopeReferrers(scope, rolledDays)) tally.addCount(r.host, r.clicks);
  if (spans.length === 0) return tally.top();

  if (scope.kind === 'all') {
    for (const span of spans) {
      const batches = keysetBatches(
        (p, limit) =>
          db
            .selectFrom('link_clicks')
            .select(['link_clicks.clicked_at', 'link_clicks.id', 'link_clicks.referrer'])
            .where(clickRange(span.from, span.to, p))
            .orderBy('link_clicks.clicked_at')
            .orderBy('link_clicks.id')
            .limit(limit)
            .execute(),
        BATCH,
      );
      for await (const rows of batches) for (const r of rows) tally.add(r.referrer);
    }
    return tally.top();
  }

  const groups: string[][] = [];
  let group: string[] = [];
  let filled = 0;
  for (const [id, c] of counts) {
    if (c.rawCurrent === 0) continue;
    if (c.rawCurrent >= BATCH) {
      groups.push([id]);
      continue;
    }
    if (filled + c.rawCurrent > BATCH || group.length >= 500) {
      groups.push(group);
      group = [];
      filled = 0;
    }
    group.push(id);
    filled += c.rawCurrent;
  }
  if (group.length > 0) groups.push(group);

  for (const span of spans) {
    for (const ids of groups) {
      const batches = ids.length === 1 ? linkReferrers(db, ids[0]!, span) : groupReferrers(db, ids, span);
      for await (const rows of batches) for (const r of rows) tally.add(r.referrer);
    }
  }
  return tally.top();
}

/** One link's referrers in a span, an ordered keyset walk of its index range. */
function linkReferrers(db: Kysely<Database>, linkId: string, span: TimeSpan) {
  return keysetBatches(
    (p, limit) =>
      db
        .selectFrom('link_clicks')
        .select(['link_clicks.clicked_at', 'link_clicks.id', 'link_clicks.referrer'])
        .where('link_clicks.link_id', '=', linkId)
        .where(clickRange(span.from, span.to, p))
        .orderBy('link_clicks.clicked_at')
        .orderBy('link_clicks.id')
        .limit(limit)
        .execute(),
    BATCH,
  );
}

/**
 * Several links' referrers in a span, walked in (link_id, clicked_at, id)
 * order. The counts say the group fits one batch; the continuation only
 * matters when clicks landed between the count and this read.
 */
async function* groupReferrers(db: Kysely<Database>, ids: string[], span: TimeSpan): AsyncGenerator<Array<{ referrer: string | null }>> {
  type Position = { linkId: string; clickedAt: number; id: string };
  let last: Position | null = null;
  for (;;) {
    const p: Position | null = last;
    const rows = await db
      .selectFrom('link_clicks')
      .select(['link_clicks.link_id', 'link_clicks.clicked_at', 'link_clicks.id', 'link_clicks.referrer'])
      .where('link_clicks.link_id', 'in', ids)
      .where(clickRange(span.from, span.to, null))
      .$if(p !== null, (q) =>
        q.where((eb) =>
          eb.or([
            eb('link_clicks.link_id', '>', p!.linkId),
            eb.and([eb('link_clicks.link_id', '=', p!.linkId), eb('link_clicks.clicked_at', '>', p!.clickedAt)]),
            eb.and([
              eb('link_clicks.link_id', '=', p!.linkId),
              eb('link_clicks.clicked_at', '=', p!.clickedAt),
              eb('link_clicks.id', '>', p!.id),
            ]),
          ]),
        ),
      )
      .orderBy('link_clicks.link_id')
      .orderBy('link_clicks.clicked_at')
      .orderBy('link_clicks.id')
      .limit(BATCH)
      .execute();
    if (rows.length > 0) yield rows;
    if (rows.length < BATCH) return;
    const end: { link_id: string; clicked_at: number; id: string } = rows[rows.length - 1]!;
    last = { linkId: end.link_id, clickedAt: Number(end.clicked_at), id: end.id };
  }
}
