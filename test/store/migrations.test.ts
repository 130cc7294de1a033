import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { SQLITE_PAGE_SIZE, connect, openSqlite } from '../../src/db/connect.js';
import { migrateDownOne, migrateUp, migrationStatus } from '../../src/db/migrate.js';
import { migrationNames } from '../../src/db/migrations/index.js';
import { describeEachDatabase } from '../helpers/databases.js';

/** Reverts migrations, newest first, until `name` is reverted; returns them oldest first, as `migrateUp` re-applies them. */
async function revertThrough(db: Parameters<typeof migrateDownOne>[0], name: string): Promise<string[]> {
  const reverted: string[] = [];
  for (;;) {
    const [done] = await migrateDownOne(db);
    assert.ok(done, `${name} was never applied`);
    reverted.unshift(done);
    if (done === name) return reverted;
  }
}

describeEachDatabase(
  'migrations',
  (ctx) => {
    test('a fresh database migrates fully and a second run is a no-op', async () => {
      const { db } = ctx();
      const first = await migrateUp(db);
      assert.deepEqual(first, migrationNames());
      const second = await migrateUp(db);
      assert.deepEqual(second, []);
      const status = await migrationStatus(db);
      assert.deepEqual(status.pending, []);
      assert.deepEqual(status.unknown, []);
    });

    test('down reverts exactly one migration and up re-applies it', async () => {
      const { db } = ctx();
      const names = migrationNames();
      const reverted = await migrateDownOne(db);
      assert.deepEqual(reverted, [names[names.length - 1]]);
      assert.deepEqual((await migrationStatus(db)).pending, [names[names.length - 1]]);
      assert.deepEqual(await migrateUp(db), [names[names.length - 1]]);
    });

    test('00019 gives sessions made before it their user from the session data', async () => {
      const { db } = ctx();
      const reverted = await revertThrough(db, '00019_add_sessions_user_id');
      assert.deepEqual(reverted.slice(0, 2), ['00019_add_sessions_user_id', '00020_create_click_rollup_dirty_days']);
      const data = (userId: unknown) => Buffer.from(JSON.stringify({ userId, role: 'user', createdAt: 1 }));
      await db.kysely
        .insertInto('sessions')
        .values([
          { token: 'before-19', data: data('user-19'), expiry: 1 },
          { token: 'unreadable', data: Buffer.from('not json'), expiry: 1 },
          { token: 'no-user', data: data(42), expiry: 1 },
        ] as never)
        .execute();
      assert.deepEqual(await migrateUp(db), reverted);
      const rows = await db.kysely.selectFrom('sessions').select(['token', 'user_id']).orderBy('token').execute();
      assert.deepEqual(rows, [
        { token: 'before-19', user_id: 'user-19' },
        { token: 'no-user', user_id: null },
        { token: 'unreadable', user_id: null },
      ]);
      await db.kysely.deleteFrom('sessions').execute();
    });

    test('00020 marks every day rolled up before it, so rollups built without marks are not trusted', async () => {
      const { db } = ctx();
      const reverted = await revertThrough(db, '00020_create_click_rollup_dirty_days');
      const span = { version: 'v', clicks: 1, authenticated: 0, source: 's', rolled_at: 1 };
      await db.kysely
        .insertInto('link_click_rollup_spans')
        .values([
          { day: 86_400_000, span: 1, ...span },
          { day: 2 * 86_400_000, span: 1, ...span },
          { day: 0, span: 2, ...span },
        ])
        .execute();
      assert.deepEqual(await migrateUp(db), reverted);
      const marked = await db.kysely.selectFrom('click_rollup_dirty_days').select('day').orderBy('day').execute();
      assert.deepEqual(
        marked.map((r) => Number(r.day)),
        [86_400_000, 2 * 86_400_000],
      );
      await db.kysely.deleteFrom('click_rollup_dirty_days').execute();
      await db.kysely.deleteFrom('link_click_rollup_spans').execute();
    });

    test('a schema newer than the code is refused, naming the migration', async () => {
      const { db } = ctx();
      await db.kysely
        .insertInto('kysely_migration' as never)
        .values({ name: '99999_from_the_future', timestamp: new Date().toISOString() } as never)
        .execute();
      await assert.rejects(migrateUp(db), /newer than this build.*99999_from_the_future/);
      await db.kysely
        .deleteFrom('kysely_migration' as never)
        .where(sql.ref('name'), '=', '99999_from_the_future')
        .execute();
    });

    test('every core table exists after migration', async () => {
      const { db } = ctx();
      const tables = (await db.kysely.introspection.getTables()).map((t) => t.name);
      for (const t of [
        'users',
        'sessions',
        'links',
        'link_owners',
        'tags',
        'link_tags',
        'keywords',
        'link_shares',
        'link_clicks',
        'api_tokens',
        'link_health',
        'settings',
        'login_tokens',
        'job_leases',
      ]) {
        assert.ok(tables.includes(t), `missing table ${t}`);
      }
      const links = (await db.kysely.introspection.getTables()).find((t) => t.name === 'links')!;
      assert.ok(!links.columns.some((c) => c.name === 'owner_id'), 'links must not have owner_id');
    });

    test('connect applies the SQLite pragmas', async () => {
      const { db, config } = ctx();
      if (db.driver !== 'sqlite3') return;
      const other = connect(config);
      assert.equal(other.sqlite!.pragma('foreign_keys', { simple: true }), 1);
      assert.equal(other.sqlite!.pragma('busy_timeout', { simple: true }), 5000);
      assert.equal(other.sqlite!.pragma('journal_mode', { simple: true }), 'wal');
      await other.close();
    });
  },
  { migrate: false },
);

test('a new SQLite file gets large pages; an existing file keeps its own and stays usable', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'joe-links-pages-'));
  try {
    const fresh = connect({ driver: 'sqlite3', dsn: join(dir, 'new.db') });
    await migrateUp(fresh);
    assert.equal(fresh.sqlite!.pragma('page_size', { simple: true }), SQLITE_PAGE_SIZE);
    await fresh.close();

    const oldPath = join(dir, 'old.db');
    const old = new SqliteDatabase(oldPath);
    old.pragma('page_size = 4096');
    old.pragma('journal_mode = WAL');
    old.exec('create table kept (v text)');
    old.close();
    const reopened = openSqlite(oldPath);
    assert.equal(reopened.pragma('page_size', { simple: true }), 4096);
    reopened.prepare('insert into kept values (?)').run('still writable');
    assert.deepEqual(reopened.prepare('select v from kept').all(), [{ v: 'still writable' }]);
    reopened.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
