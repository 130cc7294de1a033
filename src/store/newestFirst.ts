import type { ExpressionBuilder, SelectQueryBuilder } from 'kysely';
import type { Database } from '../db/schema.js';

/** A row's place in a newest-first listing: its creation time, then its id for ties. */
export interface CreatedKey {
  createdAt: number;
  id: string;
}

/** Where a page starts: strictly older than `before` (Older), or strictly newer than `after` (Newer). */
export interface NewestFirstFrom {
  before?: CreatedKey;
  after?: CreatedKey;
}

/** Tables listed newest first by (created_at, id): a user's notifications, an endpoint's deliveries. */
type CreatedTable = 'notifications' | 'outbox';

/** The rows strictly older (`<`) or strictly newer (`>`) than `key` in (created_at, id) order. */
function beyond<T extends CreatedTable, O>(q: SelectQueryBuilder<Database, T, O>, op: '<' | '>', key: CreatedKey) {
  return q.where((generic) => {
    // Every table of CreatedTable has these two columns with these types; TypeScript cannot see that through T.
    const eb = generic as unknown as ExpressionBuilder<Database, CreatedTable>;
    return eb.or([eb('created_at', op, key.createdAt), eb.and([eb('created_at', '=', key.createdAt), eb('id', op, key.id)])]);
  });
}

/**
 * One keyset page of `q`, newest first: the newest rows, those older than `from.before`, or the
 * page right after `from.after` towards the newest (read oldest first and turned round).
 * `hasMore` says whether another page follows in the direction read. The one way such listings
 * page, so their cursors agree.
 */
export async function newestFirstPage<T extends CreatedTable, O>(
  q: SelectQueryBuilder<Database, T, O>,
  from: NewestFirstFrom,
  limit: number,
): Promise<{ rows: O[]; hasMore: boolean }> {
  const newer = from.before === undefined && from.after !== undefined;
  const bounded = from.before ? beyond(q, '<', from.before) : newer ? beyond(q, '>', from.after!) : q;
  const order = newer ? 'asc' : 'desc';
  const rows = await bounded
    .orderBy('created_at', order)
    .orderBy('id', order)
    .limit(limit + 1)
    .execute();
  const kept = rows.slice(0, limit);
  return { rows: newer ? kept.reverse() : kept, hasMore: rows.length > limit };
}

/**
 * How many rows `q` lists, or only those newer than `newerThan`: the listing's size and how
 * many rows sit above a page, for a pager's "31–60 of 75" (docs/web-ui.md#paging).
 */
export async function newestFirstCount<T extends CreatedTable>(
  q: SelectQueryBuilder<Database, T, object>,
  newerThan?: CreatedKey,
): Promise<number> {
  const bounded = newerThan ? beyond(q, '>', newerThan) : q;
  const r = await bounded.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirst();
  return Number(r?.n ?? 0);
}
