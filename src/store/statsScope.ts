import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { Database } from '../db/schema.js';
import type { StatsScope } from '../domain/statsScope.js';
import { heldLinkIds } from './holdings.js';

export type { StatsScope };

/**
 * The scope as a predicate on a link-id column, applied inside every panel
 * query — no aggregate is computed unconstrained and filtered afterwards.
 */
export function linkInScope(scope: StatsScope, column: string) {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the predicate applies to whichever table the caller's query starts from
  return (eb: ExpressionBuilder<Database, any>): Expression<SqlBool> => {
    if (scope.kind === 'all') return sql<SqlBool>`1 = 1`;
    // One IN over a UNION rather than ORed INs: planners can then seek the link id
    // inside an index instead of filtering every row against each list.
    return eb(
      sql.ref<string>(column),
      'in',
      sql<string>`(${heldLinkIds('owner', scope.viewerId)} union ${heldLinkIds('share', scope.viewerId)})`,
    );
  };
}
