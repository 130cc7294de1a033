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
import { randomToken, sessionKey } from '../../src/domain/secrets.js';

/** Reverts the newest migrations down to and including `name`, so a test can stage data from before it. */
async function revertThrough(db: Parameters<typeof migrateDownOne>[0], name: string): Promise<string[]> {
  const reverted: string[] = [];
  while (!reverted.includes(name)) {
    const step = await migrateDownOne(db);
    assert.equal(step.length, 1, `nothing left to revert before ${name}`);
    reverted.push(...step);
  }
  return reverted;
}

/** `name` and every migration after it, in order: what migrating up re-applies after `revertThrough`. */
const fromMigration = (name: string) => migrationNames().slice(migrationNames().indexOf(name));

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
      assert.deepEqual(await revertThrough(db, '00019_add_sessions_user_id'), fromMigration('00019_add_sessions_user_id').reverse());
      const data = (userId: unknown) => Buffer.from(JSON.stringify({ userId, role: 'user', createdAt: 1 }));
      await db.kysely
        .insertInto('sessions')
        .values([
          { token: 'before-19', data: data('user-19'), expiry: 1 },
          { token: 'unreadable', data: Buffer.from('not json'), expiry: 1 },
          { token: 'no-user', data: data(42), expiry: 1 },
        ] as never)
        .execute();
      assert.deepEqual(await migrateUp(db), fromMigration('00019_add_sessions_user_id'));
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
      await revertThrough(db, '00020_create_click_rollup_dirty_days');
      const span = { version: 'v', clicks: 1, authenticated: 0, source: 's', rolled_at: 1 };
      await db.kysely
        .insertInto('link_click_rollup_spans')
        .values([
          { day: 86_400_000, span: 1, ...span },
          { day: 2 * 86_400_000, span: 1, ...span },
          { day: 0, span: 2, ...span },
        ])
        .execute();
      assert.deepEqual(await migrateUp(db), fromMigration('00020_create_click_rollup_dirty_days'));
      const marked = await db.kysely.selectFrom('click_rollup_dirty_days').select('day').orderBy('day').execute();
      assert.deepEqual(
        marked.map((r) => Number(r.day)),
        [86_400_000, 2 * 86_400_000],
      );
      await db.kysely.deleteFrom('click_rollup_dirty_days').execute();
      await db.kysely.deleteFrom('link_click_rollup_spans').execute();
    });

    test('00027 gives every slug stored before it its place in the namespace of names', async () => {
      const { db } = ctx();
      await revertThrough(db, '00027_create_link_names');
      const again = fromMigration('00027_create_link_names');
      await db.kysely
        .insertInto('links')
        .values([
          {
            id: 'link-27-a',
            slug: 'before-27',
            url: 'https://a.test',
            title: null,
            description: null,
            visibility: 'public',
            created_at: 1,
            updated_at: 1,
          },
          {
            id: 'link-27-b',
            slug: 'also-27',
            url: 'https://b.test',
            title: null,
            description: null,
            visibility: 'secure',
            created_at: 1,
            updated_at: 1,
          },
        ] as never)
        .execute();
      assert.deepEqual(await migrateUp(db), again);
      const names = await db.kysely.selectFrom('link_names').select(['name', 'link_id', 'is_alias']).orderBy('name').execute();
      assert.deepEqual(
        names.map((r) => ({ ...r, is_alias: Number(r.is_alias) })),
        [
          { name: 'also-27', link_id: 'link-27-b', is_alias: 0 },
          { name: 'before-27', link_id: 'link-27-a', is_alias: 0 },
        ],
      );
      const forward = await db.kysely.selectFrom('links').select('forward_path_and_query').execute();
      assert.deepEqual(
        forward.map((r) => Number(r.forward_path_and_query)),
        [0, 0],
        'forwarding is off for links made before it',
      );
      await db.kysely.deleteFrom('links').execute();
      assert.deepEqual(await db.kysely.selectFrom('link_names').selectAll().execute(), [], 'names go with their link');
    });

    test('00029 keys every slug stored before it without its hyphens, and links made after it get their key', async () => {
      const { db, store } = ctx();
      await revertThrough(db, '00029_add_links_slug_key');
      await db.kysely
        .insertInto('links')
        .values({
          id: 'link-29',
          slug: 'meeting-notes-29',
          url: 'https://a.test',
          title: null,
          description: null,
          visibility: 'public',
          created_at: 1,
          updated_at: 1,
        } as never)
        .execute();
      assert.deepEqual(await migrateUp(db), fromMigration('00029_add_links_slug_key'));
      const stored = await db.kysely.selectFrom('links').select(['id', 'slug_key']).execute();
      assert.deepEqual(stored, [{ id: 'link-29', slug_key: 'meetingnotes29' }]);
      // The resolver's last lookup finds it by the key.
      assert.equal((await store.links.lookupHyphenlessForResolve('meetingnotes29'))?.id, 'link-29');
      await db.kysely.deleteFrom('links').execute();
    });

    test("00034 re-keys sessions made before it by their token's digest: they keep working, the table holds no token", async () => {
      const { db, store } = ctx();
      const user = await store.users.create({ email: 'kept-34@example.test', displayName: 'Kept' });
      await revertThrough(db, '00034_hash_session_tokens');
      const token = randomToken();
      const data = Buffer.from(JSON.stringify({ userId: user.id, role: 'user', createdAt: 1 }));
      await db.kysely
        .insertInto('sessions')
        .values({ token, data, expiry: Date.now() + 3_600_000, user_id: user.id })
        .execute();
      assert.deepEqual(await migrateUp(db), fromMigration('00034_hash_session_tokens'));
      const rows = await db.kysely.selectFrom('sessions').select(['token']).execute();
      assert.deepEqual(rows, [{ token: sessionKey(token) }]);
      assert.notEqual(rows[0]!.token, token);
      // The cookie still signs its holder in; the stored value signs nobody in.
      assert.deepEqual(await store.sessions.viewer(token), { kind: 'user', viewer: { id: user.id, isAdmin: false } });
      assert.deepEqual(await store.sessions.viewer(rows[0]!.token), { kind: 'none' });
      assert.equal((await store.sessions.get(token))?.userId, user.id);
      await db.kysely.deleteFrom('sessions').execute();
      await db.kysely.deleteFrom('users').where('id', '=', user.id).execute();
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
        'link_events',
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
      // The event loop's connection waits for the write lock itself, without blocking (db/sqliteWrites.ts).
      assert.equal(other.sqlite!.pragma('busy_timeout', { simple: true }), 0);
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
