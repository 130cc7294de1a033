import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, renameSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type SqliteDatabase from 'better-sqlite3';
import type { Command } from 'commander';
import { loadBackupConfig, loadDbConfig, type Config, type DbConfig } from '../config.js';
import { connect } from '../db/connect.js';
import { migrateUp } from '../db/migrate.js';
import { createStore } from '../store/index.js';
import { checkJoeLinksDatabase, openExistingSqlite, sqliteHeldOpen, sqliteSideFiles } from '../store/sqliteFiles.js';
import { backupSqlite, removeDatabaseFiles } from '../workers/sqliteBackup.js';
import { loadYaml } from '../config/sources.js';
import { makePrivate } from '../db/privateFile.js';

/**
 * `joe-links sweep | backup | restore` (docs/state-links.md#expiry-and-sweep). Like every
 * maintenance command they read only the database settings (plus, for
 * backups, JOE_BACKUP_DIR and JOE_BACKUP_KEEP). Failures are thrown as
 * errors whose message is the one line the CLI prints.
 */

function out(line: string): void {
  process.stdout.write(`${line}\n`);
}

interface MaintenanceSettings {
  db: DbConfig;
  backup: Config['backup'];
}

function loadMaintenanceSettings(): MaintenanceSettings {
  const env = process.env;
  const yaml = loadYaml();
  return { db: loadDbConfig(env, yaml), backup: loadBackupConfig(env, yaml) };
}

/** The configured SQLite file, or an explanation of why this command cannot work here. */
function sqliteTarget(db: DbConfig, command: string): string {
  if (db.driver !== 'sqlite3') {
    throw new Error(
      `${command} works with the sqlite3 driver only (JOE_DB_DRIVER is ${db.driver}); use the database's own tools (pg_dump/pg_restore, mysqldump/mysql)`,
    );
  }
  if (db.dsn === ':memory:') throw new Error(`${command} needs a database file, but JOE_DB_DSN is :memory:`);
  return resolve(db.dsn);
}

function stamp(): string {
  return new Date().toISOString().replace(/[:.]/g, '-');
}

export function registerMaintenanceCommands(program: Command): void {
  program
    .command('sweep')
    .description('delete expired app-state short links now')
    .action(async () => {
      const { db: cfg } = loadMaintenanceSettings();
      const db = connect(cfg);
      try {
        await migrateUp(db);
        const n = await createStore(db).stateLinks.sweepExpired();
        out(`swept ${n} expired state link${n === 1 ? '' : 's'}`);
      } finally {
        await db.close();
      }
    });

  program
    .command('backup')
    .description('write an online backup of the SQLite database to JOE_BACKUP_DIR now and print its path')
    .action(async () => {
      const s = loadMaintenanceSettings();
      const target = sqliteTarget(s.db, 'backup');
      let db: SqliteDatabase.Database;
      try {
        db = openExistingSqlite(target);
      } catch (e) {
        throw new Error(`cannot open the database ${target}: ${(e as Error).message}`, { cause: e });
      }
      try {
        out(await backupSqlite(db, s.backup.dir, s.backup.keep, Date.now()));
      } finally {
        db.close();
      }
    });

  program
    .command('restore')
    .description('replace the SQLite database of a stopped instance with a backup, after checking the backup')
    .argument('<file>', 'backup file written by joe-links backup')
    .action(async (file: string) => {
      const { db: cfg } = loadMaintenanceSettings();
      const target = sqliteTarget(cfg, 'restore');
      const source = resolve(file);
      if (!existsSync(source) || !statSync(source).isFile()) throw new Error(`no backup file at ${source}`);
      if (source === target) throw new Error(`${source} is the configured database itself`);
      const busy = sqliteHeldOpen(target);
      if (busy.length > 0) {
        throw new Error(
          `the database ${target} looks in use (${busy.map((f) => basename(f)).join(', ')} stay while another process has it open): stop joe-links first`,
        );
      }
      if (sqliteSideFiles(source).length > 0) {
        throw new Error(`${source} has a -wal file beside it, so the file alone may miss data: restore it once whatever uses it is closed`);
      }
      // Copy next to the target first, verify the copy, then swap it in with
      // one rename: the target is either the old database or the checked one.
      const staging = join(dirname(target), `.${basename(target)}.restore-${randomBytes(6).toString('hex')}`);
      try {
        copyFileSync(source, staging);
        // copyFile keeps the source's mode; the database in place is its owner's alone.
        makePrivate(staging);
        checkJoeLinksDatabase(staging, source);
        let kept: string | null = null;
        if (existsSync(target)) {
          kept = `${target}.pre-restore-${stamp()}`;
          renameSync(target, kept);
        }
        renameSync(staging, target);
        out(`restored ${source} into ${target}${kept ? ` (the previous database is kept as ${kept})` : ''}`);
      } finally {
        removeDatabaseFiles(staging);
      }
    });
}
