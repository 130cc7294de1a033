import { existsSync } from 'node:fs';
import SqliteDatabase from 'better-sqlite3';
import { createPrivateFile } from '../db/privateFile.js';

/**
 * Whole-file operations on a SQLite database (backups and restores,
 * docs/state-links.md). They work on files rather than rows, so they use
 * better-sqlite3 directly instead of Kysely.
 */

/** Opens an existing database file; never creates an empty one by accident. */
export function openExistingSqlite(path: string): SqliteDatabase.Database {
  const db = new SqliteDatabase(path, { fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  return db;
}

/**
 * Copies a live database with SQLite's online backup API (page by page,
 * while other work goes on), then switches the copy to the rollback journal
 * so it is one self-contained file.
 */
export async function writeSqliteCopy(source: SqliteDatabase.Database, dest: string): Promise<void> {
  // The copy holds what the database holds: readable by its owner alone from the start.
  createPrivateFile(dest);
  await source.backup(dest);
  const copy = new SqliteDatabase(dest, { fileMustExist: true });
  try {
    copy.pragma('journal_mode = DELETE');
  } finally {
    copy.close();
  }
}

/** The WAL-mode side files beside a database. */
export function sqliteSideFiles(path: string): string[] {
  return ['-wal', '-shm'].map((s) => `${path}${s}`).filter((f) => existsSync(f));
}

/**
 * Side files that show another connection holds the database open. SQLite
 * deletes them when the last connection closes, so we open and close it
 * ourselves: whatever is still there afterwards belongs to someone else.
 * Files merely left behind (a crash, a read-only reader) are recovered and
 * removed by that same open and close.
 */
export function sqliteHeldOpen(path: string): string[] {
  if (!existsSync(path)) return [];
  const probe = openExistingSqlite(path);
  try {
    probe.prepare('select count(*) from sqlite_master').get();
  } finally {
    probe.close();
  }
  return sqliteSideFiles(path);
}

/**
 * Checks that `file` opens, passes PRAGMA integrity_check and holds a
 * joe-links schema, then leaves it as one self-contained file. Throws an
 * error whose message is one line naming the file as `shownAs`.
 */
export function checkJoeLinksDatabase(file: string, shownAs: string): void {
  let db: SqliteDatabase.Database;
  try {
    db = openExistingSqlite(file);
  } catch (e) {
    throw new Error(`cannot open ${shownAs}: ${(e as Error).message}`, { cause: e });
  }
  try {
    let problems: string[];
    try {
      problems = (db.pragma('integrity_check') as Array<{ integrity_check: string }>).map((r) => r.integrity_check);
    } catch (e) {
      throw new Error(`${shownAs} is not a readable SQLite database: ${(e as Error).message}`, { cause: e });
    }
    if (problems.length !== 1 || problems[0] !== 'ok') {
      const lines = problems.flatMap((p) => p.split('\n')).filter((l) => l.trim() !== '' && !l.startsWith('***'));
      throw new Error(`${shownAs} failed PRAGMA integrity_check (${lines.length} problems; first: ${lines[0] ?? 'unknown'})`);
    }
    const migrations = db.prepare("select name from sqlite_master where type = 'table' and name = 'kysely_migration'").all();
    if (migrations.length === 0) throw new Error(`${shownAs} is not a joe-links database (it has no migration table)`);
    // The server switches it back to WAL when it opens it.
    db.pragma('journal_mode = DELETE');
  } finally {
    db.close();
  }
}
