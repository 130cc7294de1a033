import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Config, DbConfig } from '../config.js';
import { connect, mysqlUri, ping, type Db } from '../db/connect.js';
import { migrationStatus } from '../db/migrate.js';
import { errorText, fail, ok, skip, warn, type CheckResult } from './check.js';

/**
 * The database checks of `joe-links doctor` (docs/operations.md#doctor): can this user write
 * where SQLite keeps its files, does the database answer, and how far is it migrated.
 * Nothing here creates a file or changes the schema.
 */

/** Where a server database is, for messages: never the DSN itself, which may hold a password. */
export function describeServer(db: DbConfig): { where: string; database: string } {
  try {
    const u = new URL(db.driver === 'mysql' ? mysqlUri(db.dsn) : db.dsn);
    const port = u.port || (db.driver === 'mysql' ? '3306' : '5432');
    return { where: `${u.hostname || 'localhost'}:${port}`, database: decodeURIComponent(u.pathname.replace(/^\//, '')) };
  } catch {
    return { where: 'the server in JOE_DB_DSN', database: '' };
  }
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK | constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function readWritable(path: string): boolean {
  try {
    accessSync(path, constants.R_OK | constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

const uid = () => process.getuid?.() ?? 0;

/**
 * A directory joe-links writes into, or creates: it must be a writable directory, or not
 * exist yet below one this user may write to. Returns the problem, or null.
 */
function directoryProblem(dir: string, what: string): { detail: string; fix: string } | null {
  let existing = dir;
  while (!existsSync(existing)) existing = dirname(existing);
  if (!statSync(existing).isDirectory()) {
    return {
      detail: `${existing} is a file, so ${what} cannot go under it`,
      fix: `point the setting at a directory, or remove ${existing}`,
    };
  }
  if (!writable(existing)) {
    const verb = existing === dir ? 'write to' : `create ${dir} in`;
    return {
      detail: `this user (uid ${uid()}) cannot ${verb} ${existing}, where ${what} go`,
      fix: `give uid ${uid()} write access, e.g. chown -R ${uid()} ${existing} (the container image runs as uid 10001)`,
    };
  }
  return null;
}

/** SQLite keeps `-wal` and `-shm` files beside the database and backups in JOE_BACKUP_DIR. */
export function checkSqliteFiles(config: Pick<Config, 'db' | 'backup'>, cwd: string): CheckResult[] {
  const CHECK = 'files';
  if (config.db.driver !== 'sqlite3') return [];
  if (config.db.dsn === ':memory:') return [skip(CHECK, 'in-memory database: no files')];
  const file = resolve(cwd, config.db.dsn);
  const dir = dirname(file);
  const results: CheckResult[] = [];
  const dirProblem = directoryProblem(dir, 'the database and its -wal and -shm files');
  if (dirProblem) results.push(fail(CHECK, dirProblem.detail, dirProblem.fix));
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    if (existsSync(f) && !readWritable(f)) {
      results.push(
        fail(CHECK, `this user (uid ${uid()}) cannot read and write ${f}`, `chown ${uid()} ${f}, or run joe-links as its owner`),
      );
    }
  }
  const backups = resolve(cwd, config.backup.dir);
  const backupProblem = directoryProblem(backups, 'backups (JOE_BACKUP_DIR)');
  if (backupProblem) results.push(fail(CHECK, backupProblem.detail, backupProblem.fix));
  if (results.length === 0) results.push(ok(CHECK, `uid ${uid()} can write ${dir} (database) and ${backups} (backups)`));
  return results;
}

interface ErrorLike {
  code?: string;
  errno?: number;
  message?: string;
  errors?: ErrorLike[];
}

/** What went wrong reaching a server database, and what to change. */
export function explainConnectError(e: unknown, db: DbConfig): { detail: string; fix: string } {
  const { where, database } = describeServer(db);
  const err = (e ?? {}) as ErrorLike;
  const code = err.code ?? err.errors?.find((x) => x.code)?.code ?? '';
  const text = errorText(e);
  if (code === 'ECONNREFUSED') {
    return {
      detail: `nothing accepts connections at ${where} (${code})`,
      fix: 'start the database server, or correct the host and port in JOE_DB_DSN',
    };
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return { detail: `the host of ${where} does not resolve (${code})`, fix: 'correct the host name in JOE_DB_DSN' };
  }
  if (code === 'ETIMEDOUT' || /timeout/i.test(text)) {
    return {
      detail: `${where} did not answer in time (${text})`,
      fix: 'check the host and port in JOE_DB_DSN and any firewall between this host and the database',
    };
  }
  // PostgreSQL: 28P01 wrong password, 28000 no access rule; MySQL: access denied.
  if (code === '28P01' || code === '28000' || code === 'ER_ACCESS_DENIED_ERROR' || code === 'ER_DBACCESS_DENIED_ERROR') {
    return {
      detail: `${where} refused the login: ${text}`,
      fix: "correct the user and password in JOE_DB_DSN, or the server's access rules for this host",
    };
  }
  if (code === '3D000' || code === 'ER_BAD_DB_ERROR') {
    return {
      detail: `${where} has no database "${database}"`,
      fix: `create it (CREATE DATABASE ${database || '…'}) or correct its name in JOE_DB_DSN`,
    };
  }
  return { detail: `${where}: ${text}`, fix: 'check JOE_DB_DSN and that the database server is running' };
}

/** Reaches the database once and reads its migration state; two findings. */
export async function checkDatabase(config: Pick<Config, 'db'>, cwd: string, known: number): Promise<CheckResult[]> {
  const DB = 'database';
  const MIGRATIONS = 'migrations';
  let cfg = config.db;
  if (cfg.driver === 'sqlite3' && cfg.dsn !== ':memory:') {
    const file = resolve(cwd, cfg.dsn);
    if (!existsSync(file)) {
      return [
        ok(DB, `${file} does not exist yet: joe-links serve creates it`),
        ok(MIGRATIONS, `none applied yet: joe-links serve applies all ${known} at start`),
      ];
    }
    cfg = { ...cfg, dsn: file };
  }
  let db: Db | null = null;
  try {
    db = connect(cfg, { poolSize: 1 });
    await ping(db);
  } catch (e) {
    await db?.close().catch(() => {});
    if (cfg.driver === 'sqlite3') {
      return [
        fail(
          DB,
          `${cfg.dsn} cannot be opened: ${errorText(e)}`,
          'point JOE_DB_DSN at a joe-links SQLite database, or restore a backup (joe-links restore)',
        ),
        skip(MIGRATIONS, 'the database cannot be opened'),
      ];
    }
    const { detail, fix } = explainConnectError(e, cfg);
    return [fail(DB, detail, fix), skip(MIGRATIONS, 'the database is unreachable')];
  }
  try {
    const where = cfg.driver === 'sqlite3' ? cfg.dsn : `${describeServer(cfg).where}/${describeServer(cfg).database}`;
    const reached = ok(DB, `${cfg.driver} at ${where} answers`);
    const status = await migrationStatus(db);
    if (status.unknown.length > 0) {
      return [
        reached,
        fail(
          MIGRATIONS,
          `the database was migrated by a newer joe-links build (${status.unknown.join(', ')}); this one refuses to start on it`,
          'run the newer build, or revert with it (joe-links migrate down) before starting this one',
        ),
      ];
    }
    if (status.applied.length === 0) return [reached, ok(MIGRATIONS, `none applied yet: joe-links serve applies all ${known} at start`)];
    if (status.pending.length > 0) {
      return [
        reached,
        warn(
          MIGRATIONS,
          `${status.applied.length} applied, ${status.pending.length} pending (${status.pending.join(', ')})`,
          'back up the database, then run joe-links migrate once (joe-links serve also applies them at start)',
        ),
      ];
    }
    return [reached, ok(MIGRATIONS, `all ${status.applied.length} applied`)];
  } catch (e) {
    return [fail(DB, `the database answered, but reading its migrations failed: ${errorText(e)}`, 'check JOE_DB_DSN')];
  } finally {
    await db.close();
  }
}
