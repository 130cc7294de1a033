import type { ExpressionBuilder, Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { DAY_MS, type DayWindow } from '../domain/timeseries.js';

/**
 * The click figures every link list shows beside each row (docs/web-ui.md#link-tables): the
 * daily counts of the last 30 UTC days (the stats page's chart window, docs/analytics.md#daily-series),
 * their sum, and when the link was last clicked.
 */
export interface LinkActivity {
  /** One count per UTC day of the window, oldest first; today's partial day last. */
  daily: number[];
  /** The sum of `daily`. */
  clicks: number;
  /** The newest retained click, or null when there is none. */
  lastClickedAt: number | null;
}

/** The window of the list figures, in days. */
export const LIST_ACTIVITY_DAYS = 30;

type LinksEb = ExpressionBuilder<Database, 'links'>;

/**
 * The figures of a whole page of links in one query, whatever its length: one row per link, its
 * last click and one column per day. A day the roll-up job has summarised (`rolled`, from the
 * rollup coverage) is read from its rollup row, any other day is counted from raw clicks; each is
 * an index range of one link and one day, with the day's bounds computed here and bound as
 * epoch-ms parameters (no SQL date function). The last click is the newest entry of the
 * (link_id, clicked_at) index, an ordered LIMIT 1 every database answers from the index's end.
 */
export async function readListActivity(
  db: Kysely<Database>,
  linkIds: readonly string[],
  window: DayWindow,
  rolled: ReadonlySet<number>,
): Promise<Map<string, LinkActivity>> {
  const out = new Map<string, LinkActivity>();
  if (linkIds.length === 0) return out;
  const days = Array.from({ length: window.days }, (_, i) => window.start + i * DAY_MS);
  const dayCount = (eb: LinksEb, day: number, alias: string) =>
    rolled.has(day)
      ? eb
          .selectFrom('link_click_rollups')
          .select((sub) => sub.fn.sum<number>('link_click_rollups.clicks').as('n'))
          .whereRef('link_click_rollups.link_id', '=', 'links.id')
          .where('link_click_rollups.dim', '=', 'auth')
          .where('link_click_rollups.span', '=', 1)
          .where('link_click_rollups.day', '=', day)
          .as(alias)
      : eb
          .selectFrom('link_clicks')
          .select((sub) => sub.fn.countAll<number>().as('n'))
          .whereRef('link_clicks.link_id', '=', 'links.id')
          .where('link_clicks.clicked_at', '>=', day)
          .where('link_clicks.clicked_at', '<', day + DAY_MS)
          .as(alias);
  const rows = (await db
    .selectFrom('links')
    .select((eb) => [
      'links.id',
      eb
        .selectFrom('link_clicks')
        .select('link_clicks.clicked_at')
        .whereRef('link_clicks.link_id', '=', 'links.id')
        .orderBy('link_clicks.clicked_at', 'desc')
        .limit(1)
        .as('last_clicked_at'),
      ...days.map((day, i) => dayCount(eb, day, `d${i}`)),
    ])
    .where('links.id', 'in', [...linkIds])
    .execute()) as Array<Record<string, unknown> & { id: string; last_clicked_at: unknown }>;
  for (const r of rows) {
    // SUM over no rollup row is NULL; PostgreSQL answers counts and sums as strings.
    const daily = days.map((_, i) => Number(r[`d${i}`] ?? 0));
    out.set(r.id, {
      daily,
      clicks: daily.reduce((a, b) => a + b, 0),
      lastClickedAt: r.last_clicked_at === null || r.last_clicked_at === undefined ? null : Number(r.last_clicked_at),
    });
  }
  return out;
}
