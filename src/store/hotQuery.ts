import type SqliteDatabase from 'better-sqlite3';
import type { CompiledQuery, Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/**
 * A single-row lookup compiled once and run with fresh parameters, for the
 * redirect hot path. On an SQLite file it runs synchronously as a prepared
 * statement on the read-only connection (same SQL text, no async plumbing);
 * elsewhere it goes through Kysely like every other query.
 */
export class HotQuery<Row> {
  private stmt: SqliteDatabase.Statement | null | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly compiled: CompiledQuery,
    private readonly reader: () => SqliteDatabase.Database | null,
  ) {}

  async first(params: readonly unknown[]): Promise<Row | undefined> {
    if (this.stmt === undefined) this.stmt = this.reader()?.prepare(this.compiled.sql) ?? null;
    if (this.stmt) return this.stmt.get(...params) as Row | undefined;
    const res = await this.db.executeQuery<Row>({ ...this.compiled, parameters: params });
    return res.rows[0];
  }
}
