import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { connect, openSqlite } from '../../src/db/connect.js';
import { migrateUp } from '../../src/db/migrate.js';
import { payloadSha256 } from '../../src/domain/statePayload.js';
import { createStore } from '../../src/store/index.js';
import { CLI_ARGS } from '../helpers/cli.js';
import { DAY, encodeState } from '../http/stateLinkFixtures.js';

/** `joe-links sweep | backup | restore` as an operator runs them: a real process, a temp cwd, env settings only. */

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

describe('maintenance commands', () => {
  let dir: string;
  let dbFile: string;
  let backups: string;

  const cli = (args: string[], env: Record<string, string> = {}): Promise<Run> =>
    new Promise((done, fail) => {
      const child = spawn(process.execPath, [...CLI_ARGS, ...args], {
        cwd: dir,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: dir,
          TSX_TSCONFIG_PATH: resolve('tsconfig.json'),
          JOE_DB_DSN: dbFile,
          JOE_BACKUP_DIR: backups,
          JOE_BACKUP_KEEP: '2',
          ...env,
        },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c) => (stdout += c));
      child.stderr.on('data', (c) => (stderr += c));
      child.on('error', fail);
      child.on('close', (code) => done({ code, stdout, stderr }));
    });

  const countLinks = () => {
    // Read-write, so closing removes the WAL side files as the server's own close does.
    const db = new SqliteDatabase(dbFile, { fileMustExist: true });
    try {
      return (db.prepare('select count(*) as n from state_links').get() as { n: number }).n;
    } finally {
      db.close();
    }
  };

  /** One failure: exit code 1 and exactly one line on stderr. */
  const assertRefused = (r: Run, message: RegExp) => {
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, message);
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'joe-links-cli-'));
    dbFile = join(dir, 'data', 'joe-links.db');
    backups = join(dir, 'backups');
    // Two links expired a month ago, one pending, one opened long ago.
    const clock = { now: Date.now() - 60 * DAY };
    const db = connect({ driver: 'sqlite3', dsn: dbFile });
    await migrateUp(db);
    const store = createStore(db, () => clock.now);
    const put = async (state: unknown) => {
      const p = encodeState(state);
      const r = await store.stateLinks.create(p, payloadSha256(p), 30 * DAY, 1024 ** 3);
      assert.equal(r.kind, 'created');
      return (r as { id: string }).id;
    };
    await put({ old: 1 });
    await put({ old: 2 });
    await store.stateLinks.open(await put({ opened: true }));
    clock.now = Date.now();
    await put({ pending: true });
    await db.close();
  });

  after(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  test('sweep deletes the expired links and says how many', async () => {
    assert.equal(countLinks(), 4);
    const r = await cli(['sweep']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'swept 2 expired state links');
    assert.equal(countLinks(), 2);
    assert.equal((await cli(['sweep'])).stdout.trim(), 'swept 0 expired state links');
  });

  test('backup writes a checked, self-contained copy into JOE_BACKUP_DIR, prints it, and keeps the newest JOE_BACKUP_KEEP', async () => {
    const printed: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await cli(['backup']);
      assert.equal(r.code, 0, r.stderr);
      printed.push(r.stdout.trim());
    }
    for (const p of printed) assert.ok(p.startsWith(backups), p);
    assert.equal(new Set(printed).size, 3);
    const left = readdirSync(backups).sort();
    assert.deepEqual(
      left,
      printed
        .slice(1)
        .map((p) => p.slice(backups.length + 1))
        .sort(),
      'the oldest was pruned',
    );
    const copy = new SqliteDatabase(printed[2]!, { readonly: true, fileMustExist: true });
    try {
      assert.equal(copy.pragma('integrity_check', { simple: true }), 'ok');
      assert.equal(copy.pragma('journal_mode', { simple: true }), 'delete');
      assert.equal((copy.prepare('select count(*) as n from state_links').get() as { n: number }).n, 2);
    } finally {
      copy.close();
    }
  });

  test('restore puts a backup back in place of the configured database and keeps the old one aside', async () => {
    const r0 = await cli(['backup']);
    const backup = r0.stdout.trim();
    const db = new SqliteDatabase(dbFile);
    db.exec('delete from state_links');
    db.close();
    assert.equal(countLinks(), 0);
    const r = await cli(['restore', backup]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^restored .* into .*joe-links\.db \(the previous database is kept as .*pre-restore.*\)$/m);
    assert.equal(countLinks(), 2);
    const kept = readdirSync(join(dir, 'data')).filter((f) => f.includes('pre-restore'));
    assert.equal(kept.length, 1);
    assert.deepEqual(
      readdirSync(join(dir, 'data')).filter((f) => f.startsWith('.')),
      [],
      'no staging file left',
    );
  });

  test('restore refuses while the database is open', async () => {
    const backup = readdirSync(backups).map((f) => join(backups, f))[0]!;
    const live = openSqlite(dbFile);
    try {
      live.exec('delete from state_links where expires_at is not null');
      assertRefused(await cli(['restore', backup]), /^joe-links: the database .* looks in use .* stop joe-links first/);
    } finally {
      live.close();
    }
    assert.equal(countLinks(), 1, 'the database was left alone');
    assert.equal(readdirSync(join(dir, 'data')).filter((f) => f.includes('pre-restore')).length, 1);
  });

  test('restore refuses files that are not intact joe-links databases, and other drivers', async () => {
    const junk = join(dir, 'junk.db');
    writeFileSync(junk, 'this is not a database at all, just some text that is long enough'.repeat(100));
    const foreign = join(dir, 'foreign.db');
    const f = new SqliteDatabase(foreign);
    f.exec('create table notes(x text)');
    f.close();
    const corrupt = join(dir, 'corrupt.db');
    const c = new SqliteDatabase(corrupt);
    c.exec('create table kysely_migration(name text); create table t(x text); create index ti on t(x);');
    const ins = c.prepare('insert into t values (?)');
    for (let i = 0; i < 2000; i++) ins.run(`row ${i}`);
    c.close();
    const bytes = readFileSync(corrupt);
    const page = bytes.readUInt16BE(16);
    bytes.fill(0xff, page * 9 + 8, page * 9 + 40); // scramble cell pointers on page 10
    writeFileSync(corrupt, bytes);

    const before = readFileSync(dbFile);
    // One at a time: each restore probes the target by opening it, and a probe
    // still open in another restore is exactly what "looks in use" reports.
    const rJunk = await cli(['restore', junk]);
    const rForeign = await cli(['restore', foreign]);
    const rCorrupt = await cli(['restore', corrupt]);
    const rMissing = await cli(['restore', join(dir, 'nowhere.db')]);
    const rPg = await cli(['restore', foreign], { JOE_DB_DRIVER: 'postgres', JOE_DB_DSN: 'postgres://joe@127.0.0.1:1/none' });
    const rPgBackup = await cli(['backup'], { JOE_DB_DRIVER: 'mysql', JOE_DB_DSN: 'mysql://joe@127.0.0.1:1/none' });
    assertRefused(rJunk, /is not a readable SQLite database/);
    assertRefused(rForeign, /is not a joe-links database/);
    assertRefused(rCorrupt, /integrity_check|malformed/);
    assertRefused(rMissing, /no backup file at/);
    assertRefused(rPg, /restore works with the sqlite3 driver only \(JOE_DB_DRIVER is postgres\)/);
    assertRefused(rPgBackup, /backup works with the sqlite3 driver only \(JOE_DB_DRIVER is mysql\)/);
    assert.deepEqual(readFileSync(dbFile), before, 'the database was left alone');
    assert.ok(!existsSync(join(dir, 'data', 'joe-links.db-wal')));
  });
  test("the database, its backups and a restored database are readable by their owner alone, whatever the backup's mode", async () => {
    assert.equal(statSync(dbFile).mode & 0o777, 0o600, 'the database made by migrate');
    const r0 = await cli(['backup']);
    assert.equal(r0.code, 0, r0.stderr);
    const backup = r0.stdout.trim();
    assert.equal(statSync(backup).mode & 0o777, 0o600, 'the backup');
    // A backup copied around by hand may come back world-readable: the restored database is not.
    chmodSync(backup, 0o644);
    const r = await cli(['restore', backup]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(statSync(dbFile).mode & 0o777, 0o600, 'the restored database');
  });
});
