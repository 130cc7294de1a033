/**
 * The CSV click export as an HTTP response, shared by both export routes
 * (docs/analytics.md#csv-export):
 *
 *   sendClickCsv(reply: FastifyReply, store: Pick<Store, 'analytics'>, req: ClickCsvRequest): Promise<FastifyReply>
 *
 *   req.link         { id, slug } of a link the route has already authorized with CanStats
 *   req.attribution  the caller's CanManageShares: fills the `user_agent` and `user` columns
 *   req.query        the raw `from`, `to` and `cursor` query values, exactly as received
 *   req.cap          rows per response; omit it (100,000). Only tests pass a smaller one.
 *
 * It validates the query — a `from`/`to` that is not RFC 3339, a malformed
 * `cursor` or a repeated parameter throws AppError BAD_REQUEST before anything
 * is written, so each route answers that in its own error style — then asks
 * the store's one export iterator for the rows, sets every header
 * (`X-Next-Cursor` included, which the store decides before a row is read)
 * and streams the body through the one encoder. Both routes therefore send
 * the same bytes for the same link, caller capabilities and query.
 *
 * Authorization is the caller's job and must come first: the cursor carries
 * no capability, so every request is gated on its own link's CanStats.
 */
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { AppError } from '../../domain/errors.js';
import { parseInstantParam } from '../../domain/timeseries.js';
import type { Store } from '../../store/index.js';

export interface ClickCsvRequest {
  link: { id: string; slug: string };
  attribution: boolean;
  query: { from?: unknown; to?: unknown; cursor?: unknown };
  cap?: number;
}

export const NEXT_CURSOR_HEADER = 'x-next-cursor';

/** A single query value: absent, or one string; `?from=a&from=b` says two things and is refused. */
function single(name: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value;
  throw new AppError('BAD_REQUEST', `invalid ${name}: give it at most once`, name);
}

/**
 * Slug rules already allow only lower-case letters, digits and hyphens; anything else
 * (a row written before those rules) must still not break out of the quoted header value.
 */
function fileSafe(slug: string): string {
  return slug.replace(/[^A-Za-z0-9._-]/g, '_');
}

export async function sendClickCsv(reply: FastifyReply, store: Pick<Store, 'analytics'>, req: ClickCsvRequest): Promise<FastifyReply> {
  const from = parseInstantParam('from', single('from', req.query.from));
  const to = parseInstantParam('to', single('to', req.query.to));
  const cursor = single('cursor', req.query.cursor);
  // Throws BAD_REQUEST for a malformed cursor, and has already probed past the cap, so
  // whether this response completes the export is known before the head goes out.
  const csv = await store.analytics.exportClicks(req.link.id, { from, to, cursor, attribution: req.attribution, cap: req.cap });
  if (csv.nextCursor !== null) reply.header(NEXT_CURSOR_HEADER, csv.nextCursor);
  const body = Readable.from(csv.rows);
  // Once the head is sent a failure can only cut the body short; the log says why.
  body.on('error', (err) => reply.log.error({ err, linkId: req.link.id }, 'click export failed mid-stream'));
  return reply
    .code(200)
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${fileSafe(req.link.slug)}-clicks.csv"`)
    .header('cache-control', 'no-store')
    .send(body);
}
