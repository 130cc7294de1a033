import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { connect } from '../../src/db/connect.js';
import { migrateUp } from '../../src/db/migrate.js';
import { CLI_ARGS } from '../helpers/cli.js';

/**
 * `joe-links serve` refuses to start against a database a
 * newer build has migrated — an old replica left behind in a rolling upgrade
 * must not run against a schema it does not know.
 */
test('serve refuses to start when the schema is newer than the code, naming the migration', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'joe-links-newer-'));
  try {
    const file = join(dir, 'joe-links.db');
    const db = connect({ driver: 'sqlite3', dsn: file });
    await migrateUp(db);
    await db.close();
    const raw = new SqliteDatabase(file);
    raw.prepare('insert into kysely_migration (name, timestamp) values (?, ?)').run('99999_from_a_newer_build', new Date().toISOString());
    raw.close();
    const r = spawnSync(process.execPath, [...CLI_ARGS, 'serve'], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', JOE_DB_DSN: file, JOE_HTTP_ADDR: '127.0.0.1:0' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /database schema is newer than this build: unknown migration\(s\) 99999_from_a_newer_build/);
    assert.doesNotMatch(r.stdout, /listening on/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
