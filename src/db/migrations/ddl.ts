import { sql, type CreateTableBuilder, type Kysely, type RawBuilder } from 'kysely';
import type { DbDriver } from '../../config.js';

/**
 * The few places the three databases need different DDL, kept in one spot
 * (docs/server.md#databases): byte-order collation on text (utf8mb4_bin on MySQL,
 * COLLATE "C" on PostgreSQL), blob types, MySQL's table options and its
 * table-qualified DROP INDEX.
 */
/** One named schema change, applied by `up` and undone by `down`. */
export type MigrationStep = { name: string; up(d: Ddl): Promise<void>; down(d: Ddl): Promise<void> };

export class Ddl {
  constructor(
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a migration runs against a past schema, not today's table types
    readonly db: Kysely<any>,
    readonly driver: DbDriver,
  ) {}

  /** Bounded, indexable text: ids 36, slugs 128, others 255 (docs/server.md#databases). */
  str(n: number): RawBuilder<unknown> {
    return this.driver === 'postgres' ? sql.raw(`varchar(${n}) collate "C"`) : sql.raw(`varchar(${n})`);
  }

  /** Unbounded text (URLs have no length limit; MySQL's plain TEXT stops at 64 KiB). */
  text(): RawBuilder<unknown> {
    if (this.driver === 'postgres') return sql.raw('text collate "C"');
    return sql.raw(this.driver === 'mysql' ? 'mediumtext' : 'text');
  }

  blob(): RawBuilder<unknown> {
    return sql.raw(this.driver === 'postgres' ? 'bytea' : this.driver === 'mysql' ? 'mediumblob' : 'blob');
  }

  createTable(name: string): CreateTableBuilder<string, never> {
    const t = this.db.schema.createTable(name);
    return this.driver === 'mysql' ? t.modifyEnd(sql`engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin`) : t;
  }

  /**
   * An auto-incrementing integer primary key: the order rows were inserted in,
   * for append-only logs (bigserial, AUTO_INCREMENT, SQLite's AUTOINCREMENT,
   * which never hands out a number twice).
   */
  serialKey(t: CreateTableBuilder<string, never>, name: string): CreateTableBuilder<string, never> {
    if (this.driver === 'postgres') return t.addColumn(name, 'bigserial', (c) => c.primaryKey());
    return t.addColumn(name, this.driver === 'mysql' ? 'bigint' : 'integer', (c) => c.primaryKey().autoIncrement());
  }

  /** MySQL names the table an index belongs to; the others reject it. */
  async dropIndex(name: string, table: string): Promise<void> {
    const drop = this.db.schema.dropIndex(name);
    await (this.driver === 'mysql' ? drop.on(table) : drop).execute();
  }
}
