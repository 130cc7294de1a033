import { mkdirSync } from 'node:fs';
import { createPrivateFile } from './privateFile.js';
import { SqliteWaitingDialect } from './sqliteWrites.js';
import { dirname, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, MysqlDialect, PostgresDialect, sql } from 'kysely';
import { createRequire } from 'node:module';
import type * as Mysql2 from 'mysql2';
import type * as Pg from 'pg';
import type { DbConfig, DbDriver } from '../config.js';
import type { HotLookup } from './hotLookup.js';
import { pgHotLookup } from './pgHotLookup.js';
import { SqliteHotReader } from './sqliteHotReader.js';
import type { Database } from './schema.js';

export interface Db {
  kysely: Kysely<Database>;
  driver: DbDriver;
  /** The raw better-sqlite3 handle (backups), null on the server databases. */
  sqlite: SqliteDatabase.Database | null;
  /**
   * The redirect hot path's way to run one compiled single-row statement
   * (docs/server.md#the-redirect-hot-path), or null where Kysely's own
   * execution is the way.
   */
  hotLookup(sql: string): HotLookup | null;
  close(): Promise<void>;
}

/** Fail fast instead of hanging when a server database is unreachable (docs/server.md#http-basics). */
const CONNECT_TIMEOUT_MS = 5_000;

/**
 * The server databases' drivers are loaded by the first connection that needs
 * one, so a process on SQLite (the default install, most CLI commands, most
 * tests) never loads the two hundred modules they bring.
 */
const requireDriver = createRequire(import.meta.url);
const pgDriver = (): typeof Pg => requireDriver('pg') as typeof Pg;
const mysqlDriver = (): typeof Mysql2 => requireDriver('mysql2') as typeof Mysql2;

/** BIGINT and NUMERIC arrive as strings from pg; every value we store fits a double exactly. */
const PG_NUMERIC_TYPES = new Set([20, 1700]);
const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (PG_NUMERIC_TYPES.has(oid)) return (v: string) => Number(v);
    return pgDriver().types.getTypeParser(oid, format as 'text');
  },
};

/**
 * Accepts `mysql://user:pass@host:3306/db` (`mariadb://` alike) and the Go driver form
 * `user:pass@tcp(host:3306)/db?params`, so configs carried over keep working.
 */
export function mysqlUri(dsn: string): string {
  if (/^mysql:\/\//i.test(dsn)) return dsn;
  if (/^mariadb:\/\//i.test(dsn)) return `mysql://${dsn.slice('mariadb://'.length)}`;
  const m = /^(?:([^:@]*)(?::([^@]*))?@)?(?:tcp\(([^)]*)\))?\/([^?]*)(?:\?(.*))?$/.exec(dsn);
  if (!m) throw new Error('JOE_DB_DSN for mysql must look like mysql://user:pass@host:3306/dbname');
  const [, user = '', pass, host = '127.0.0.1:3306', db = ''] = m;
  const auth = user ? `${encodeURIComponent(user)}${pass !== undefined ? `:${encodeURIComponent(pass)}` : ''}@` : '';
  return `mysql://${auth}${host}/${db}`;
}

/** Page size of a new SQLite database file, in bytes (SQLite's default is 4096). */
export const SQLITE_PAGE_SIZE = 16_384;

/** Errors that mean the file or its directory cannot be created or written, as opposed to a damaged file. */
const UNWRITABLE = new Set([
  'SQLITE_CANTOPEN',
  'SQLITE_READONLY',
  'SQLITE_READONLY_DIRECTORY',
  'EACCES',
  'EPERM',
  'EROFS',
  'ENOTDIR',
  'EEXIST',
]);

export function openSqlite(path: string): SqliteDatabase.Database {
  let db: SqliteDatabase.Database;
  try {
    if (path !== ':memory:') {
      mkdirSync(dirname(resolve(path)), { recursive: true });
      // A new database starts as an empty file only its owner may read; SQLite's WAL follows its mode.
      createPrivateFile(path);
    }
    db = new SqliteDatabase(path);
    // Takes effect only while the file is still empty (a new install), and only before WAL mode
    // is on; an existing database keeps its page size. Every click dirties one page of the
    // per-link index per clicked link, and larger pages gather more of a link's clicks per page
    // write: at 480,000 stored clicks and a steady 14,000 redirects a second, the thread that
    // stores them used 12.4–12.8 µs per click with 16 KiB pages against 15.4–16.9 µs with 4 KiB.
    db.pragma(`page_size = ${SQLITE_PAGE_SIZE}`);
    // The first statement that needs to write: an unwritable directory fails here.
    db.pragma('journal_mode = WAL');
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (typeof code !== 'string' || !UNWRITABLE.has(code)) throw e;
    // SQLite's own words ("unable to open database file") name neither the file nor the fix.
    const who = typeof process.getuid === 'function' ? ` by uid ${process.getuid()}` : '';
    throw new Error(
      `cannot open the SQLite database ${resolve(path)}: ${(e as Error).message}; ` +
        `its directory must exist and be writable${who} (JOE_DB_DSN; joe-links doctor checks it)`,
      { cause: e },
    );
  }
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  db.pragma('synchronous = NORMAL');
  return db;
}

/** Enough for every distinct query shape the application issues; older ones are finalised. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * Hands Kysely a better-sqlite3 handle that reuses prepared statements, so a
 * query pays SQLite's parse and plan once per distinct SQL text instead of on
 * every call. Kysely runs one query at a time per connection, so a cached
 * statement is never in use twice at once.
 */
function withStatementCache(db: SqliteDatabase.Database, beforeWrite: () => void) {
  const cache = new Map<string, SqliteDatabase.Statement>();
  return {
    prepare(sql: string) {
      let stmt = cache.get(sql);
      if (stmt) {
        cache.delete(sql);
      } else {
        stmt = db.prepare(sql);
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      }
      cache.set(sql, stmt);
      // Kysely runs what it prepares at once: a write (BEGIN and COMMIT included) is about to run.
      if (!stmt.reader) beforeWrite();
      return stmt;
    },
    close() {
      cache.clear();
      db.close();
    },
  };
}

export function connect(cfg: DbConfig, opts: { poolSize?: number } = {}): Db {
  const poolSize = opts.poolSize ?? 10;
  switch (cfg.driver) {
    case 'sqlite3': {
      const sqlite = openSqlite(cfg.dsn);
      // In-memory databases are private to their connection: no second one can read them.
      const reader = cfg.dsn === ':memory:' ? null : new SqliteHotReader(cfg.dsn);
      const database = withStatementCache(sqlite, () => reader?.endRead());
      // Its writes wait for the click thread's batches without stopping the event loop.
      sqlite.pragma('busy_timeout = 0');
      const kysely = new Kysely<Database>({ dialect: new SqliteWaitingDialect({ database }) });
      return {
        kysely,
        driver: 'sqlite3',
        sqlite,
        hotLookup: (sql) => reader?.lookup(sql) ?? null,
        close: async () => {
          reader?.close();
          await kysely.destroy();
        },
      };
    }
    case 'postgres': {
      const pool = new (pgDriver().Pool)({
        connectionString: cfg.dsn,
        max: poolSize,
        connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
        // Notice a server that vanished without closing the connection (failover, partition).
        keepAlive: true,
        types: pgTypes,
      });
      // An idle client losing its server must not crash the process; the next query reports it.
      pool.on('error', () => {});
      // Nor may a checked-out one: when the server goes away mid-query (a restart), the query
      // fails and the client then emits 'error' too, which pg-pool leaves unheard while a
      // client is checked out. The pool discards the broken client when it is released.
      pool.on('connect', (client) => client.on('error', () => {}));
      const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
      let statements = 0;
      return {
        kysely,
        driver: 'postgres',
        sqlite: null,
        hotLookup: (sql) => pgHotLookup(pool, sql, `hot_lookup_${++statements}`),
        close: () => kysely.destroy(),
      };
    }
    case 'mysql': {
      const pool = mysqlDriver().createPool({
        uri: mysqlUri(cfg.dsn),
        connectionLimit: poolSize,
        connectTimeout: CONNECT_TIMEOUT_MS,
        charset: 'utf8mb4_bin',
        decimalNumbers: true,
        supportBigNumbers: true,
        bigNumberStrings: false,
        timezone: 'Z',
      });
      const kysely = new Kysely<Database>({ dialect: new MysqlDialect({ pool }) });
      return { kysely, driver: 'mysql', sqlite: null, hotLookup: () => null, close: () => kysely.destroy() };
    }
  }
}

/** One round trip that proves the database answers (used where nothing else has been read yet). */
export async function ping(db: Db): Promise<void> {
  await sql`select 1`.execute(db.kysely);
}
