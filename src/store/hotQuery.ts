import type SqliteDatabase from 'better-sqlite3';
import type { CompiledQuery, Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/** A value now, or later: hot-path lookups answer synchronously where the database can. */
export type MaybePromise<T> = T | Promise<T>;

/** Applies `f` to a value that may still be on its way, without a detour through a promise when it is not. */
export function andThen<T, R>(value: MaybePromise<T>, f: (v: T) => MaybePromise<R>): MaybePromise<R> {
  return value instanceof Promise ? value.then(f) : f(value);
}

/**
 * A single-row lookup compiled once and run with fresh parameters, for the
 * redirect hot path. On an SQLite file it runs synchronously as a prepared
 * statement on the read-only connection (same SQL text, no async plumbing,
 * and the result is returned as is, not wrapped in a promise); elsewhere it
 * goes through Kysely like every other query.
 */
export class HotQuery<Row> {
  private stmt: SqliteDatabase.Statement | null | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly compiled: CompiledQuery,
    private readonly reader: () => SqliteDatabase.Database | null,
  ) {}

  first(params: readonly unknown[]): MaybePromise<Row | undefined> {
    if (this.stmt === undefined) this.stmt = this.reader()?.prepare(this.compiled.sql) ?? null;
    if (this.stmt) return this.stmt.get(...params) as Row | undefined;
    return this.db.executeQuery<Row>({ ...this.compiled, parameters: params }).then((res) => res.rows[0]);
  }
}
