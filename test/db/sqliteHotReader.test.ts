import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { connect, type Db } from '../../src/db/connect.js';
import { migrateUp } from '../../src/db/migrate.js';
import { createStore, type Store } from '../../src/store/index.js';
import { sessionKey } from '../../src/domain/secrets.js';
import { createLink } from '../helpers/links.js';

/**
 * Hot lookups on an SQLite file share a read transaction per round of
 * requests and remember their results while the database is unchanged
 * (docs/server.md#the-redirect-hot-path); a write never goes unseen by a
 * lookup after it.
 */
describe('SQLite hot lookups', () => {
  let path: string;
  let db: Db;
  let store: Store;

  before(async () => {
    path = join(mkdtempSync(join(tmpdir(), 'joe-hot-')), 'links.db');
    db = connect({ driver: 'sqlite3', dsn: path });
    await migrateUp(db);
    store = createStore(db);
  });
  after(() => db.close());

  /** Lets the round under way end: its read transaction closes when the event loop turns. */
  const nextRound = () => new Promise((r) => setImmediate(r));

  const slugUrl = (slug: string) => {
    const hit = store.links.lookupForResolve(slug);
    assert.ok(!(hit instanceof Promise), 'synchronous on an SQLite file');
    return hit?.url ?? null;
  };

  test('a link created or changed by this process is seen by the very next lookup, in the same round', async () => {
    const owner = await store.users.create({ email: 'hot@example.com' });
    assert.equal(slugUrl('fresh'), null);
    const link = await createLink(store, { slug: 'fresh', url: 'https://one.test/' }, owner.id);
    assert.equal(slugUrl('fresh'), 'https://one.test/');
    await db.kysely.updateTable('links').set({ url: 'https://two.test/' }).where('id', '=', link.id).execute();
    assert.equal(slugUrl('fresh'), 'https://two.test/');
    await db.kysely.deleteFrom('links').where('id', '=', link.id).execute();
    assert.equal(slugUrl('fresh'), null);
  });

  test('another process’s write shows from the next round on', async () => {
    const owner = (await store.users.findByEmail('hot@example.com'))!;
    await createLink(store, { slug: 'shared', url: 'https://before.test/' }, owner.id);
    assert.equal(slugUrl('shared'), 'https://before.test/');
    const other = new SqliteDatabase(path);
    try {
      other.prepare(`update links set url = 'https://after.test/' where slug = 'shared'`).run();
      // Still the round that began before the other write: one consistent snapshot.
      assert.equal(slugUrl('shared'), 'https://before.test/');
      await nextRound();
      assert.equal(slugUrl('shared'), 'https://after.test/');
    } finally {
      other.close();
    }
  });

  test('a miss remembered over many rounds is forgotten once another process creates the link', async () => {
    const owner = (await store.users.findByEmail('hot@example.com'))!;
    for (let i = 0; i < 3; i++) {
      assert.equal(slugUrl('late'), null);
      await nextRound();
    }
    const other = new SqliteDatabase(path);
    try {
      const link = await createLink(store, { slug: 'late-template', url: 'https://template.test/' }, owner.id);
      await nextRound();
      assert.equal(slugUrl('late'), null, 'still no such link');
      other.prepare(`update links set slug = 'late' where id = ?`).run(link.id);
      other.prepare(`update link_names set name = 'late' where link_id = ? and name = 'late-template'`).run(link.id);
      await nextRound();
      assert.equal(slugUrl('late'), 'https://template.test/');
      assert.equal(slugUrl('late-template'), null, 'the old name’s remembered hit is gone too');
    } finally {
      other.close();
    }
  });

  test('a sign-out by another process ends a remembered session at the next round', async () => {
    const user = (await store.users.findByEmail('hot@example.com'))!;
    await createLink(store, { slug: 'visited', url: 'https://visited.test/' }, user.id);
    const token = 'a-session-token-for-the-hot-reader';
    await store.sessions.create(token, { userId: user.id, role: user.role, createdAt: store.now() }, store.now() + 60_000);
    const viewerKind = () => {
      const visit = store.sessions.visit(token, 'visited', null);
      assert.ok(!(visit instanceof Promise), 'synchronous on an SQLite file');
      assert.equal(visit.link?.url, 'https://visited.test/');
      return visit.session.viewer.kind;
    };
    await nextRound();
    for (let i = 0; i < 3; i++) {
      assert.equal(viewerKind(), 'user');
      await nextRound();
    }
    const other = new SqliteDatabase(path);
    try {
      assert.equal(viewerKind(), 'user');
      other.prepare('delete from sessions where token = ?').run(sessionKey(token));
      assert.equal(viewerKind(), 'user', 'the round that began before the sign-out keeps its snapshot');
      await nextRound();
      assert.equal(viewerKind(), 'none');
    } finally {
      other.close();
    }
  });
});
