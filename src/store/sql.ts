import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import { escapeLike } from '../domain/text.js';

/**
 * `LOWER(col) LIKE LOWER(?) ESCAPE '!'` — the one case-insensitive search
 * form that behaves alike on all three databases (core.md §1.3). `pattern`
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
