import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import Fastify from 'fastify';
import { loadConfig } from '../../../src/config.js';
import { connect } from '../../../src/db/connect.js';
import { migrateUp } from '../../../src/db/migrate.js';
import { payloadSha256 } from '../../../src/domain/statePayload.js';
import { Metrics } from '../../../src/metrics.js';
import { startServer, type RunningServer } from '../../../src/server.js';
import { createStore, type Store } from '../../../src/store/index.js';
import { periodicJobs } from '../../../src/workers/jobs.js';
import { listBackups } from '../../../src/workers/sqliteBackup.js';
import { describeEachDatabase } from '../../helpers/databases.js';
import { eventually } from '../../helpers/server.js';
import { DAY, encodeState, postLink } from '../../http/stateLinkFixtures.js';

/** The leased `state-link-sweep` and `sqlite-backup` jobs inside a running server. */

const HOUR = 3_600_000;
const TTL = 30 * DAY;

async function seed(store: Store, state: unknown): Promise<string> {
  const p = encodeState(state);
  const r = await store.stateLinks.create(p, payloadSha256(p), TTL, 1024 ** 3);
  assert.equal(r.kind, 'created');
  return (r as { id: string }).id;
}

/** The finished backups' file names: a backup still being written has a temporary name of its own. */
const finished = (dir: string) => listBackups(dir).map((f) => basename(f));

const ids = async (store: Store) => (await store.db.kysely.selectFrom('state_links').select('id').execute()).map((r) => r.id).sort();

describe('state-link sweep and SQLite backup jobs', () => {
  let dir: string;
  let server: RunningServer;
  const clock = { now: Date.UTC(2026, 2, 1, 9, 0, 0) };
  let kept: string;
  let backups: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'joe-links-jobs-'));
    const dbFile = join(dir, 'joe-links.db');
    backups = join(dir, 'backups');
    // A database that already holds expired links when the server starts.
    const db = connect({ driver: 'sqlite3', dsn: dbFile });
    await migrateUp(db);
    const store = createStore(db, () => clock.now);
    await seed(store, { expired: 1 });
    await seed(store, { expired: 2 });
    kept = await seed(store, { opened: true });
    await store.stateLinks.open(kept);
    await db.close();
    clock.now += TTL;

    const config = loadConfig({
      cwd: dir,
      env: {
        JOE_HTTP_ADDR: '127.0.0.1:0',
        JOE_DB_DSN: dbFile,
        JOE_LOG_LEVEL: 'silent',
        JOE_HEALTH_CHECKS_ENABLED: 'false',
        JOE_BACKUP_DIR: backups,
        JOE_BACKUP_KEEP: '2',
        BACKUP_INTERVAL_MS: String(HOUR),
      },
    });
    server = await startServer(config, { logger: false, now: () => clock.now, scheduler: { tickMs: 25 } });
  });

  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the sweep runs at start: expired links are gone, the opened one stays', async () => {
    await eventually(async () => (await ids(server.store)).length === 1);
    assert.deepEqual(await ids(server.store), [kept]);
  });

  test('the first backup run on a new database only starts the schedule', async () => {
    await eventually(async () => (await server.store.leases.lastRunAt('sqlite-backup')) !== null);
    assert.ok(finished(backups).length === 0);
  });

  test('every BACKUP_INTERVAL_MS the sweep runs again and a backup is written, keeping the newest JOE_BACKUP_KEEP', async () => {
    const res = await postLink(server.url, encodeState({ later: true }));
    assert.equal(res.status, 201);
    const later = res.json().id!;
    clock.now += TTL; // `later` has expired now

    clock.now += HOUR;
    await eventually(() => finished(backups).length === 1);
    await eventually(async () => !(await ids(server.store)).includes(later));
    const first = finished(backups)[0]!;

    clock.now += HOUR;
    await eventually(() => finished(backups).length === 2);
    clock.now += HOUR;
    await eventually(() => !finished(backups).includes(first));
    const left = finished(backups).sort();
    assert.equal(left.length, 2);
    assert.match(left[0]!, /^joe-links-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z\.db$/);

    // A backup is a complete, readable database holding the links.
    const copy = new SqliteDatabase(join(backups, left[1]!), { readonly: true, fileMustExist: true });
    try {
      assert.equal(copy.pragma('integrity_check', { simple: true }), 'ok');
      const rows = copy.prepare('select id from state_links').all() as Array<{ id: string }>;
      assert.deepEqual(
        rows.map((r) => r.id),
        [kept],
      );
    } finally {
      copy.close();
    }
  });

  test('nothing runs again before the interval has passed', async () => {
    // The last run records itself once its backup is written and the oldest pruned: wait for that.
    await eventually(async () => (await server.store.leases.lastRunAt('sqlite-backup')) === clock.now);
    const count = finished(backups).length;
    const last = await server.store.leases.lastRunAt('sqlite-backup');
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(await server.store.leases.lastRunAt('sqlite-backup'), last);
    assert.equal(finished(backups).length, count);
  });
});

describeEachDatabase('periodic jobs per driver', (ctx) => {
  test('the state-link sweep is leased everywhere; the SQLite backup exists only on SQLite', async () => {
    const { store, driver } = ctx();
    const config = loadConfig({ cwd: tmpdir(), env: { JOE_LOG_LEVEL: 'silent', BACKUP_INTERVAL_MS: '7200000' } });
    const jobs = periodicJobs({ config, store, sqlite: store.db.sqlite, metrics: new Metrics(), log: Fastify({ logger: false }).log });
    const sweep = jobs.find((j) => j.name === 'state-link-sweep');
    assert.ok(sweep);
    assert.equal(sweep.intervalMs, 7_200_000);
    assert.equal(sweep.runAtStart, true);
    const backup = jobs.find((j) => j.name === 'sqlite-backup');
    if (driver === 'sqlite3') assert.equal(backup?.intervalMs, 7_200_000);
    else assert.equal(backup, undefined);
  });
});
