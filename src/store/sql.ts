import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import { escapeLike } from '../domain/text.js';

/**
 * `LOWER(col) LIKE LOWER(?) ESCAPE '!'` — the one case-insensitive search
 * form that behaves alike on all three databases (docs/server.md#databases). `pattern`
 * is built from escaped user text by the helpers below.
 */
export function ilike(column: Expression<unknown> | string, pattern: string): RawBuilder<SqlBool> {
  const col = typeof column === 'string' ? sql.ref(column) : column;
  return sql<SqlBool>`lower(${col}) like lower(${pattern}) escape '!'`;
}

/** Case-sensitive LIKE with the same escaping, for columns stored lower-case (slugs). */
export function like(column: string, pattern: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`${sql.ref(column)} like ${pattern} escape '!'`;
}

export const contains = (text: string): string => `%${escapeLike(text)}%`;
export const startsWith = (text: string): string => `${escapeLike(text)}%`;

/** Id lists go into `IN (…)` in slices well below every driver's bound-parameter limit. */
const IN_LIST_SIZE = 500;

/** `items` in slices of at most IN_LIST_SIZE, for one `IN (…)` query each. */
export function inListChunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += IN_LIST_SIZE) out.push(items.slice(i, i + IN_LIST_SIZE));
  return out;
}
