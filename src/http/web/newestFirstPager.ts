import type { FastifyRequest } from 'fastify';
import type { CreatedKey, NewestFirstFrom } from '../../store/newestFirst.js';
import type { KeysetSpot } from '../../views/partials/pager.js';
import { decodeNewestFirstCursor, newestFirstCursor } from '../shared/newestFirstCursor.js';
import { query } from './support.js';

/**
 * The web pages listed newest first by (created_at, id) — notifications and a webhook's
 * deliveries — page Newer / Older through the one pager (docs/web-ui.md#paging). Their address
 * carries `older=<cursor>` (the rows after that one) or `newer=<cursor>` (the page before it);
 * a cursor this server did not issue is the newest page.
 */

export function newestFirstFrom(req: FastifyRequest): NewestFirstFrom {
  const before = decodeNewestFirstCursor(query(req, 'older'));
  return before ? { before } : { after: decodeNewestFirstCursor(query(req, 'newer')) };
}

/**
 * Where a page of `rows` sits among all of them and its Newer / Older addresses, from two counts:
 * all rows, and those above the page. `path` is the page's address without the cursor.
 */
export async function newestFirstSpot(
  rows: readonly CreatedKey[],
  count: (newerThan?: CreatedKey) => Promise<number>,
  path: string,
): Promise<KeysetSpot> {
  const first = rows[0];
  const last = rows[rows.length - 1];
  const [total, above] = await Promise.all([count(), first ? count(first) : Promise.resolve(0)]);
  const at = (side: 'older' | 'newer', row: CreatedKey) => `${path}?${side}=${encodeURIComponent(newestFirstCursor(row))}`;
  return {
    from: above + 1,
    to: above + rows.length,
    total,
    newerHref: first ? (above > 0 ? at('newer', first) : null) : total > 0 ? path : null,
    olderHref: last && above + rows.length < total ? at('older', last) : null,
  };
}
