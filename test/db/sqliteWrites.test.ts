import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { connect, type Db } from '../../src/db/connect.js';
import { migrateUp } from '../../src/db/migrate.js';
import { createStore, type Store } from '../../src/store/index.js';
import { createLink } from '../helpers/links.js';

/**
 * A write on the server's SQLite connection that meets another connection's write lock (the
 * click thread storing a batch) waits without stopping the event loop
 * (docs/server.md#what-bounds-the-tail): redirects go on being answered meanwhile.
 */
describe('SQLite writes while another connection holds the write lock', () => {
  let path: string;
  let db: Db;
  let store: Store;
  let other: SqliteDatabase.Database;

  before(async () => {
    path = join(mkdtempSync(join(tmpdir(), 'joe-writes-')), 'links.db');
    db = connect({ driver: 'sqlite3', dsn: path });
    await migrateUp(db);
    store = createStore(db);
    // The click thread's side: a connection of its own to the same file.
    other = new SqliteDatabase(path);
    other.pragma('busy_timeout = 5000');
  });
  after(async () => {
    other.close();
    await db.close();
  });

  test('the write waits for the lock while the event loop keeps turning, and lands once the lock is free', async () => {
    const owner = await store.users.create({ email: 'writer@example.com' });
    await createLink(store, { slug: 'before', url: 'https://before.test/' }, owner.id);
    other.exec('BEGIN IMMEDIATE');
    let turns = 0;
    const ticker = setInterval(() => turns++, 5);
    // The lock is let go by a timer: on an event loop stopped by the wait, it would never fire.
    const released = new Promise<number>((resolve) =>
      setTimeout(() => {
        other.exec('COMMIT');
        resolve(performance.now());
      }, 150),
    );
    const began = performance.now();
    try {
      const link = await createLink(store, { slug: 'during', url: 'https://during.test/' }, owner.id);
      const freedAt = await released;
      assert.ok(performance.now() >= freedAt, 'the write finished only after the lock was let go');
      assert.ok(freedAt - began >= 100);
      assert.ok(turns >= 5, `the event loop turned ${turns} times while the write waited`);
      // A redirect's lookup during the wait would have answered: the new link is there now.
      const hit = store.links.lookupForResolve('during');
      assert.ok(!(hit instanceof Promise));
      assert.equal(hit?.id, link.id);
    } finally {
      clearInterval(ticker);
    }
  });

  test('a transaction takes the lock when it begins, so a commit by the other connection cannot fail it halfway', async () => {
    const owner = await store.users.create({ email: 'tx@example.com' });
    const link = await createLink(store, { slug: 'tx', url: 'https://tx.test/' }, owner.id);
    // Read inside the transaction, let the other connection try to write, then write.
    const done = db.kysely.transaction().execute(async (tx) => {
      const row = await tx.selectFrom('links').select('url').where('id', '=', link.id).executeTakeFirstOrThrow();
      await new Promise((r) => setTimeout(r, 20));
      await tx
        .updateTable('links')
        .set({ title: `was ${row.url}` })
        .where('id', '=', link.id)
        .execute();
    });
    // The other connection waits for the transaction (its own busy handler, on its own thread here).
    await new Promise((r) => setTimeout(r, 5));
    assert.throws(() => other.pragma('busy_timeout = 0') && other.exec('BEGIN IMMEDIATE'), /locked|busy/i);
    other.pragma('busy_timeout = 5000');
    await done;
    const title = (await db.kysely.selectFrom('links').select('title').where('id', '=', link.id).executeTakeFirstOrThrow()).title;
    assert.equal(title, 'was https://tx.test/');
  });
});
