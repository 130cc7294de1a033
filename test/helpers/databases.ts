import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import { createPool } from 'mysql2/promise';
import pg from 'pg';
import type { DbConfig, DbDriver } from '../../src/config.js';
import { connect, type Db } from '../../src/db/connect.js';
import { migrateUp } from '../../src/db/migrate.js';
import { createStore, type Store } from '../../src/store/index.js';

/**
 * Runs a suite against every database: SQLite always, PostgreSQL and MariaDB
 * when JOE_TEST_PG_DSN / JOE_TEST_MYSQL_DSN point at a server (`.ci/run` sets
 * both). Each suite gets a fresh, empty database of its own.
 */

export interface TestDatabase {
  driver: DbDriver;
  config: DbConfig;
  drop(): Promise<void>;
}

const notified = new Set<string>();

export function skipReason(driver: DbDriver): string | false {
  const env = driver === 'postgres' ? 'JOE_TEST_PG_DSN' : driver === 'mysql' ? 'JOE_TEST_MYSQL_DSN' : null;
  if (!env || process.env[env]) return false;
  if (!notified.has(env)) {
    notified.add(env);
    process.stderr.write(`NOTICE: ${env} is not set; ${driver} tests are skipped (run .ci/databases.sh start to enable)\n`);
  }
  return `${env} not set`;
}

function withDatabase(dsn: string, name: string): string {
  const u = new URL(dsn);
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * Runs `work` on an admin connection that is closed whatever happens: an open
 * client would keep the test process alive after its last test.
 */
async function onPostgres(admin: string, work: (c: pg.Client) => Promise<unknown>): Promise<void> {
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  try {
    await work(c);
  } finally {
    await c.end();
  }
}

async function onMysql(admin: string, statement: string): Promise<void> {
  const p = createPool({ uri: admin, connectionLimit: 1 });
  try {
    await p.query(statement);
  } finally {
    await p.end();
  }
}

/** SQLSTATE 42501: FORCE met a backend of a role the test user may not signal. */
const INSUFFICIENT_PRIVILEGE = '42501';

/**
 * `WITH (FORCE)` ends connections a stopped server may have left behind, but
 * PostgreSQL refuses it ("must be a member of the role whose process is being
 * terminated") when a backend on the database runs as a role the test user
 * may not signal; an autovacuum worker is one. A plain DROP asks autovacuum
 * to stop and waits a few seconds for other sessions to leave, so that is the
 * fallback.
 */
async function dropPostgresDatabase(c: pg.Client, name: string): Promise<void> {
  try {
    await c.query(`drop database if exists ${name} with (force)`);
  } catch (e) {
    if ((e as { code?: string }).code !== INSUFFICIENT_PRIVILEGE) throw e;
    await c.query(`drop database if exists ${name}`);
  }
}

export async function createTestDatabase(driver: DbDriver): Promise<TestDatabase> {
  const name = `jl_test_${randomBytes(6).toString('hex')}`;
  if (driver === 'sqlite3') {
    const dir = mkdtempSync(join(tmpdir(), 'joe-links-test-'));
    return {
      driver,
      config: { driver, dsn: join(dir, 'test.db') },
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  if (driver === 'postgres') {
    const admin = process.env.JOE_TEST_PG_DSN!;
    await onPostgres(admin, (c) => c.query(`create database ${name}`));
    return {
      driver,
      config: { driver, dsn: withDatabase(admin, name) },
      drop: () => onPostgres(admin, (c) => dropPostgresDatabase(c, name)),
    };
  }
  const admin = process.env.JOE_TEST_MYSQL_DSN!;
  await onMysql(admin, `create database ${name} character set utf8mb4 collate utf8mb4_bin`);
  return {
    driver,
    config: { driver, dsn: withDatabase(admin, name) },
    drop: () => onMysql(admin, `drop database if exists ${name}`),
  };
}

export const ALL_DRIVERS: readonly DbDriver[] = ['sqlite3', 'postgres', 'mysql'];

export interface DbContext {
  driver: DbDriver;
  config: DbConfig;
  db: Db;
  store: Store;
  /** The clock the store reads; tests move it to exercise time rules. */
  clock: { now: number };
}

/**
 * `describe` once per database. The callback receives a getter because the
 * database is only created in `before`.
 */
export function describeEachDatabase(title: string, body: (ctx: () => DbContext) => void, opts: { migrate?: boolean } = {}): void {
  for (const driver of ALL_DRIVERS) {
    const skip = skipReason(driver);
    describe(`${title} [${driver}]`, { skip }, () => {
      let ctx: DbContext | undefined;
      let test: TestDatabase | undefined;
      before(async () => {
        test = await createTestDatabase(driver);
        const db = connect(test.config, { poolSize: 5 });
        if (opts.migrate !== false) await migrateUp(db);
        const clock = { now: Date.UTC(2026, 0, 15, 12, 0, 0) };
        ctx = { driver, config: test.config, db, store: createStore(db, () => clock.now), clock };
      });
      after(async () => {
        await ctx?.db.close();
        await test?.drop();
      });
      body(() => {
        if (!ctx) throw new Error('database not ready');
        return ctx;
      });
    });
  }
}
