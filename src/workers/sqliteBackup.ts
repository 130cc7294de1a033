import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type SqliteDatabase from 'better-sqlite3';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/connect.js';
import type { Store } from '../store/index.js';
import { writeSqliteCopy } from '../store/sqliteFiles.js';
import type { PeriodicJob } from './scheduler.js';

/**
 * Online backups of the SQLite database (docs/state-links.md#backups): better-sqlite3's
 * backup API copies the live database page by page while the server keeps
 * serving, into JOE_BACKUP_DIR, keeping the newest JOE_BACKUP_KEEP files.
 */

const BACKUP_NAME = /^joe-links-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z\.db$/;

/** `joe-links-2026-01-15T12-00-00-000Z.db`: sorts by name in time order and is safe on every filesystem. */
function backupName(at: number): string {
  return `joe-links-${new Date(at).toISOString().replace(/[:.]/g, '-')}.db`;
}

/** Removes a SQLite file and any journal files beside it. */
export function removeDatabaseFiles(path: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${path}${suffix}`, { force: true });
}

/** Backups in `dir`, newest first. Only files named by this module are ever listed (and pruned). */
export function listBackups(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => BACKUP_NAME.test(f))
    .sort()
    .reverse()
    .map((f) => join(dir, f));
}

/**
 * Writes one backup and prunes old ones; returns the new file's path. The copy
 * is written under a temporary name and renamed once complete, so a crash
 * never leaves a partial file that looks like a backup.
 */
export async function backupSqlite(source: SqliteDatabase.Database, dir: string, keep: number, at: number): Promise<string> {
  const absDir = resolve(dir);
  mkdirSync(absDir, { recursive: true });
  const tmp = join(absDir, `.joe-links-backup-${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeSqliteCopy(source, tmp);
    let stamp = at;
    while (existsSync(join(absDir, backupName(stamp)))) stamp++;
    const file = join(absDir, backupName(stamp));
    renameSync(tmp, file);
    pruneBackups(absDir, keep);
    return file;
  } finally {
    removeDatabaseFiles(tmp);
  }
}

/** Deletes all but the newest `keep` backups. A file already gone (another process pruned it) is fine. */
export function pruneBackups(dir: string, keep: number): string[] {
  const old = listBackups(dir).slice(Math.max(keep, 1));
  for (const f of old) rmSync(f, { force: true });
  return old;
}

/**
 * The leased `sqlite-backup` job, every BACKUP_INTERVAL_MS across restarts
 * (none on PostgreSQL and MySQL, which have their own dump tools).
 * On a database never backed up, the first run only starts the schedule: a
 * freshly created database holds nothing worth copying, and throwaway
 * instances then leave no files behind.
 */
export function sqliteBackupJobs(
  sqlite: Db['sqlite'],
  store: Pick<Store, 'leases' | 'now'>,
  opts: { dir: string; keep: number; intervalMs: number },
  log: FastifyBaseLogger,
): PeriodicJob[] {
  if (sqlite === null) return [];
  return [
    {
      name: 'sqlite-backup',
      intervalMs: opts.intervalMs,
      async run() {
        if ((await store.leases.lastRunAt('sqlite-backup')) === null) return;
        const file = await backupSqlite(sqlite, opts.dir, opts.keep, store.now());
        log.info(`sqlite backup written to ${file}`);
      },
    },
  ];
}
