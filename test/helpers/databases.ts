import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import { createPool } from 'mysql2/promise';
import pg from 'pg';
import type { DbConfig, DbDriver } from '../../src/config.js';
import { connect, type Db } from '../../src/db/connect.js';
import { migrateUp } from '../../src/db/migrate.js';
import { ROOT } from '../../src/paths.js';
import { createStore, type Store } from '../../src/store/index.js';

/**
 * Runs a suite against every database: SQLite always, PostgreSQL and MariaDB
 * when JOE_TEST_PG_DSN / JOE_TEST_MYSQL_DSN point at a server (`.ci/run` sets
 * both). Each suite gets a fresh database of its own: empty, or a copy of one
 * migrated database per dialect (see "Migrated copies" below).
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

/**
 * A fresh database of its own. `migrated`: with every migration applied, as a
 * copy of the dialect's template (below) rather than by running the
 * migrations again; otherwise empty.
 */
export async function createTestDatabase(driver: DbDriver, opts: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const name = `jl_test_${randomBytes(6).toString('hex')}`;
  if (driver === 'sqlite3') {
    const dir = mkdtempSync(join(tmpdir(), 'joe-links-test-'));
    const dsn = join(dir, 'test.db');
    if (opts.migrated) copyFileSync(await sqliteTemplate(), dsn);
    return {
      driver,
      config: { driver, dsn },
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  if (driver === 'postgres') {
    const admin = process.env.JOE_TEST_PG_DSN!;
    const template = opts.migrated ? await postgresTemplate(admin) : null;
    await onPostgres(admin, (c) => c.query(`create database ${name}${template ? ` template ${template}` : ''}`));
    return {
      driver,
      config: { driver, dsn: withDatabase(admin, name) },
      drop: () => onPostgres(admin, (c) => dropPostgresDatabase(c, name)),
    };
  }
  const admin = process.env.JOE_TEST_MYSQL_DSN!;
  const template = opts.migrated ? await mysqlTemplate(admin) : null;
  await onMysql(admin, `create database ${name} character set utf8mb4 collate utf8mb4_bin`);
  if (template) await copyMysqlTables(admin, template, name);
  return {
    driver,
    config: { driver, dsn: withDatabase(admin, name) },
    drop: () => onMysql(admin, `drop database if exists ${name}`),
  };
}

/*
 * Migrated copies. Running every migration costs a second or more per
 * database on MariaDB and a few hundred milliseconds on PostgreSQL, and the
 * suite makes hundreds of databases. So each dialect's migrations run once
 * into a template, named by a digest of the migration sources (an edited
 * migration makes a new one), and each test database is a copy: a file copy
 * on SQLite, CREATE DATABASE … TEMPLATE on PostgreSQL, the template's tables
 * and rows replayed on MariaDB. Templates stay between runs (they are small);
 * any `jl_tmpl_*` database or file may be dropped at any time. Whoever makes
 * one first does so under a lock (a rename on SQLite), so test processes
 * running at once agree on it.
 */

const SCHEMA_SOURCES = join(ROOT, 'src', 'db') + '/';

let schemaKeyMemo: string | undefined;
function schemaKey(): string {
  if (schemaKeyMemo) return schemaKeyMemo;
  const hash = createHash('sha256');
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) hash.update(path.slice(SCHEMA_SOURCES.length)).update(readFileSync(path));
    }
  };
  walk(join(SCHEMA_SOURCES, 'migrations'));
  hash.update(readFileSync(join(SCHEMA_SOURCES, 'connect.ts')));
  return (schemaKeyMemo = hash.digest('hex').slice(0, 16));
}

const templateName = (): string => `jl_tmpl_${schemaKey()}`;

async function migrateInto(config: DbConfig): Promise<void> {
  const db = connect(config, { poolSize: 1 });
  try {
    await migrateUp(db);
    // Everything in the main file, so a copy of that file alone is the whole database.
    db.sqlite?.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    await db.close();
  }
}

async function sqliteTemplate(): Promise<string> {
  const dir = join(tmpdir(), 'joe-links-test-templates');
  const path = join(dir, `${templateName()}.db`);
  if (existsSync(path)) return path;
  mkdirSync(dir, { recursive: true });
  const partial = `${path}.${process.pid}-${randomBytes(4).toString('hex')}`;
  await migrateInto({ driver: 'sqlite3', dsn: partial });
  rmSync(`${partial}-wal`, { force: true });
  rmSync(`${partial}-shm`, { force: true });
  // Atomic: a process copying the template sees the whole file or none.
  renameSync(partial, path);
  return path;
}

/** One arbitrary number for the advisory lock every test process takes to make a template. */
const TEMPLATE_LOCK = 4_211_337;
const COMPLETE = 'joe-links test template, complete';

const postgresTemplates = new Map<string, Promise<string>>();
function postgresTemplate(admin: string): Promise<string> {
  let made = postgresTemplates.get(admin);
  if (!made) postgresTemplates.set(admin, (made = makePostgresTemplate(admin)));
  return made;
}

async function makePostgresTemplate(admin: string): Promise<string> {
  const name = templateName();
  await onPostgres(admin, async (c) => {
    await c.query('select pg_advisory_lock($1)', [TEMPLATE_LOCK]);
    try {
      const done = await c.query(`select 1 from pg_database where datname = $1 and shobj_description(oid, 'pg_database') = $2`, [
        name,
        COMPLETE,
      ]);
      if (done.rowCount) return;
      // Left half made by a process that was ended: start again.
      await dropPostgresDatabase(c, name);
      await c.query(`create database ${name}`);
      await migrateInto({ driver: 'postgres', dsn: withDatabase(admin, name) });
      // Copies are only made of a template marked complete; nothing connects to it after this.
      await c.query(`comment on database ${name} is '${COMPLETE}'`);
    } finally {
      await c.query('select pg_advisory_unlock($1)', [TEMPLATE_LOCK]);
    }
  });
  return name;
}

/** The table that marks a MariaDB template complete; copies leave it out. */
const MYSQL_COMPLETE_TABLE = 'jl_template_complete';

const mysqlTemplates = new Map<string, Promise<string>>();
function mysqlTemplate(admin: string): Promise<string> {
  let made = mysqlTemplates.get(admin);
  if (!made) mysqlTemplates.set(admin, (made = makeMysqlTemplate(admin)));
  return made;
}

async function makeMysqlTemplate(admin: string): Promise<string> {
  const name = templateName();
  const p = createPool({ uri: admin, connectionLimit: 1 });
  try {
    const c = await p.getConnection();
    try {
      await c.query('select get_lock(?, 600)', [`jl_tmpl_${TEMPLATE_LOCK}`]);
      const [done] = await c.query('select 1 from information_schema.tables where table_schema = ? and table_name = ?', [
        name,
        MYSQL_COMPLETE_TABLE,
      ]);
      if ((done as unknown[]).length === 0) {
        await c.query(`drop database if exists ${name}`);
        await c.query(`create database ${name} character set utf8mb4 collate utf8mb4_bin`);
        await migrateInto({ driver: 'mysql', dsn: withDatabase(admin, name) });
        await c.query(`create table ${name}.${MYSQL_COMPLETE_TABLE} (id int primary key)`);
      }
      await c.query('select release_lock(?)', [`jl_tmpl_${TEMPLATE_LOCK}`]);
    } finally {
      c.release();
    }
  } finally {
    await p.end();
  }
  return name;
}

/** Replays the template's tables (their CREATE statements, foreign keys included) and rows into `target`. */
async function copyMysqlTables(admin: string, template: string, target: string): Promise<void> {
  const p = createPool({ uri: withDatabase(admin, target), connectionLimit: 1, multipleStatements: true });
  try {
    const c = await p.getConnection();
    try {
      const [tables] = await c.query(
        "select table_name as name from information_schema.tables where table_schema = ? and table_type = 'BASE TABLE' and table_name <> ?",
        [template, MYSQL_COMPLETE_TABLE],
      );
      const names = (tables as Array<{ name: string }>).map((t) => t.name);
      const creates: string[] = [];
      for (const t of names) {
        const [rows] = await c.query(`show create table \`${template}\`.\`${t}\``);
        creates.push((rows as Array<Record<string, string>>)[0]!['Create Table']!);
      }
      await c.query(
        [
          'set foreign_key_checks = 0',
          ...creates,
          ...names.map((t) => `insert into \`${t}\` select * from \`${template}\`.\`${t}\``),
          'set foreign_key_checks = 1',
        ]
          .map((q) => `${q};`)
          .join('\n'),
      );
    } finally {
      c.release();
    }
  } finally {
    await p.end();
  }
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
        test = await createTestDatabase(driver, { migrated: opts.migrate !== false });
        const db = connect(test.config, { poolSize: 5 });
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
