import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { Database } from '../db/schema.js';
import { decodeClickCursor, encodeClickCursor, type ClickPosition } from '../domain/clickCursor.js';
import { ClickCsvEncoder, type ExportClick } from '../domain/csv.js';
import { AppError } from '../domain/errors.js';
import { clickRange, keysetBatches, positionOf, type ClicksEb } from './clickKeyset.js';

/** Hard per-response export cap (docs/analytics.md#csv-export). */
export const EXPORT_ROW_CAP = 100_000;
/** Rows per keyset batch, and so per CSV chunk handed to the response. */
const BATCH = 2_000;

export interface ExportOptions {
  /** Inclusive lower bound, epoch ms. */
  from?: number | null;
  /** Inclusive upper bound, epoch ms. */
  to?: number | null;
  /** Resume strictly after the position an earlier response's `nextCursor` named. */
  cursor?: string | null;
  /** The caller's CanManageShares: fills the `user_agent` and `user` columns. */
  attribution: boolean;
  /** Rows per response; the spec's 100,000 unless a test needs a smaller world. */
  cap?: number;
}

export interface ClickExport {
  /**
   * Decided before any row is read, so a route can send it as `X-Next-Cursor`
   * on the response head; null means this response completes the export.
   */
  nextCursor: string | null;
  /** The CSV text, header first, one chunk per keyset batch, read only as the consumer pulls. */
  rows: AsyncIterable<string>;
}

/**
 * The one export iterator behind both export routes
 * (docs/analytics.md#csv-export): a link's clicks oldest first by (clicked_at, id), optionally
 * bounded by inclusive `from`/`to`, resuming strictly after `cursor`, at most
 * `cap` rows. One probe, before any row is read, finds the cap-th row and
 * whether another follows it — so `nextCursor` can go out as a header ahead
 * of the streamed body — and the walk ends at that row (or at the last row
 * the probe saw), so a response holds exactly what the probe counted and a
 * resume neither skips nor repeats rows tied on clicked_at. Clicks recorded
 * during the walk belong to a later request.
 *
 * A malformed cursor is a BAD_REQUEST. The cursor grants nothing: callers
 * authorize every request for the link it names (CanStats).
 */
export async function exportClicks(db: Kysely<Database>, linkId: string, opts: ExportOptions): Promise<ClickExport> {
  const cap = opts.cap ?? EXPORT_ROW_CAP;
  let start: ClickPosition | null = null;
  if (opts.cursor) {
    start = decodeClickCursor(opts.cursor);
    if (!start) throw new AppError('BAD_REQUEST', 'invalid cursor', 'cursor');
  }
  const from = opts.from ?? null;
  const to = opts.to ?? null;
  const windowed = (eb: ClicksEb): Expression<SqlBool> =>
    eb.and([eb('link_clicks.link_id', '=', linkId), clickRange(from, to, start, true)(eb)]);

  // The cap-th row and the one after it: a second row means more than one response's worth.
  const probe = await db
    .selectFrom('link_clicks')
    .select(['link_clicks.clicked_at', 'link_clicks.id'])
    .where(windowed)
    .orderBy('link_clicks.clicked_at')
    .orderBy('link_clicks.id')
    .limit(2)
    .offset(cap - 1)
    .execute();
  let end: ClickPosition | null = null;
  let nextCursor: string | null = null;
  if (probe.length > 0) {
    end = positionOf(probe[0]!);
    if (probe.length > 1) nextCursor = encodeClickCursor(end);
  } else {
    const last = await db
      .selectFrom('link_clicks')
      .select(['link_clicks.clicked_at', 'link_clicks.id'])
      .where(windowed)
      .orderBy('link_clicks.clicked_at', 'desc')
      .orderBy('link_clicks.id', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (last) end = positionOf(last);
  }
  return { nextCursor, rows: csvRows(db, linkId, { from, start, end, cap, attribution: opts.attribution }) };
}

async function* csvRows(
  db: Kysely<Database>,
  linkId: string,
  w: { from: number | null; start: ClickPosition | null; end: ClickPosition | null; cap: number; attribution: boolean },
): AsyncGenerator<string> {
  const encoder = new ClickCsvEncoder(w.attribution);
  yield encoder.header();
  const end = w.end;
  if (!end) return;
  let emitted = 0;
  const batches = keysetBatches(
    (p, limit) =>
      db
        .selectFrom('link_clicks')
        .leftJoin('users', 'users.id', 'link_clicks.user_id')
        .select([
          'link_clicks.clicked_at',
          'link_clicks.id',
          'link_clicks.referrer',
          'link_clicks.user_agent',
          'link_clicks.user_id',
          // Governing: docs/analytics.md#csv-export — clicker names are read only for CanManageShares callers.
          w.attribution ? 'users.display_name' : sql<string | null>`null`.as('display_name'),
        ])
        .where('link_clicks.link_id', '=', linkId)
        .where(clickRange(w.from, end.clickedAt, p, true))
        .orderBy('link_clicks.clicked_at')
        .orderBy('link_clicks.id')
        .limit(limit)
        .execute(),
    BATCH,
    w.start,
  );
  for await (const rows of batches) {
    // One batch is encoded in one call, and is one chunk of the response.
    const clicks: ExportClick[] = [];
    let done = false;
    for (const r of rows) {
      const t = Number(r.clicked_at);
      // Rows tied with the end position but after it belong to the next response.
      if ((t === end.clickedAt && r.id > end.id) || emitted >= w.cap) {
        done = true;
        break;
      }
      clicks.push({ clickedAt: t, referrer: r.referrer, userAgent: r.user_agent, userId: r.user_id, userName: r.display_name });
      emitted++;
    }
    if (clicks.length > 0 || !done) yield encoder.lines(clicks);
    if (done) return;
  }
}
