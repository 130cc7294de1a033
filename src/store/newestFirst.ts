import type { ExpressionBuilder, SelectQueryBuilder } from 'kysely';
import type { Database } from '../db/schema.js';

/** A row's place in a newest-first listing: its creation time, then its id for ties. */
export interface CreatedKey {
  createdAt: number;
  id: string;
}

/** Tables listed newest first by (created_at, id): a user's notifications, an endpoint's deliveries. */
type CreatedTable = 'notifications' | 'outbox';

/**
 * One keyset page of `q`, newest first, strictly after `before` when given; `hasMore` says
 * whether another page follows. The one way such listings page, so their cursors agree.
 */
export async function newestFirstPage<T extends CreatedTable, O>(
  q: SelectQueryBuilder<Database, T, O>,
  before: CreatedKey | undefined,
  limit: number,
): Promise<{ rows: O[]; hasMore: boolean }> {
  const from = before
    ? q.where((generic) => {
        // Every table of CreatedTable has these two columns with these types; TypeScript cannot see that through T.
        const eb = generic as unknown as ExpressionBuilder<Database, CreatedTable>;
        return eb.or([
          eb('created_at', '<', before.createdAt),
          eb.and([eb('created_at', '=', before.createdAt), eb('id', '<', before.id)]),
        ]);
      })
    : q;
  const rows = await from
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
  return { rows: rows.slice(0, limit), hasMore: rows.length > limit };
}
