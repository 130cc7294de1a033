import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import type { ClickPosition } from '../domain/clickCursor.js';
import type { Database } from '../db/schema.js';

/**
 * Keyset walks over `link_clicks` in (clicked_at, id) order — the one way the
 * analytics read side, the export and the roll-up job read click rows in
 * bounded batches on every driver. Batches rather than driver cursors:
 * Kysely's PostgreSQL stream needs pg-cursor, and keyset batches behave the
 * same on all three databases.
 */

export type ClicksEb = ExpressionBuilder<Database, 'link_clicks'>;

/** Anything keyed by a click position. */
export interface Keyed {
  id: string;
  clicked_at: number | string;
}

export const positionOf = (r: Keyed): ClickPosition => ({ clickedAt: Number(r.clicked_at), id: r.id });

/**
 * `from <= clicked_at < to`, resuming strictly after `p` when given. The
 * lower bound is written once, as the larger of the window start and the
 * position: SQLite plans a range from the first lower bound it sees, so a
 * second, looser `clicked_at >= start` would make every batch rescan the rows
 * already read. The OR only filters rows tied on the position's timestamp.
 */
export function clickRange(from: number | null, to: number | null, p: ClickPosition | null, inclusiveTo = false) {
  return (eb: ClicksEb): Expression<SqlBool> => {
    const conds: Expression<SqlBool>[] = [];
    const low = p === null ? from : from === null ? p.clickedAt : Math.max(from, p.clickedAt);
    if (low !== null) conds.push(eb('link_clicks.clicked_at', '>=', low));
    if (to !== null) conds.push(eb('link_clicks.clicked_at', inclusiveTo ? '<=' : '<', to));
    if (p !== null) conds.push(eb.or([eb('link_clicks.clicked_at', '>', p.clickedAt), eb('link_clicks.id', '>', p.id)]));
    return eb.and(conds);
  };
}

/** Strictly before `p` in ascending order, i.e. after it newest-first (same single-bound shape as above). */
export function beforePosition(p: ClickPosition) {
  return (eb: ClicksEb): Expression<SqlBool> =>
    eb.and([
      eb('link_clicks.clicked_at', '<=', p.clickedAt),
      eb.or([eb('link_clicks.clicked_at', '<', p.clickedAt), eb('link_clicks.id', '<', p.id)]),
    ]);
}

/**
 * Reads a keyset walk batch by batch. `page` returns up to `limit` rows
 * strictly after the given position (null: from the start) in ascending
 * (clicked_at, id) order.
 */
export async function* keysetBatches<R extends Keyed>(
  page: (after: ClickPosition | null, limit: number) => Promise<R[]>,
  limit: number,
  start: ClickPosition | null = null,
): AsyncGenerator<R[]> {
  let position = start;
  for (;;) {
    const rows = await page(position, limit);
    if (rows.length > 0) yield rows;
    if (rows.length < limit) return;
    position = positionOf(rows[rows.length - 1]!);
  }
}
