import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { decodeCursor, encodeCursor, pageLimit } from '../../src/domain/keysetCursor.js';
import type { TestServer } from '../helpers/server.js';
import { actor, call, startApi, type Actor } from './support.js';
import { createLink } from '../helpers/links.js';

/** Follows `next_cursor` to the end and returns every item, checking that each page is within `limit`. */
async function walk(s: TestServer, as: Actor, path: string, key: string, limit: number): Promise<Array<Record<string, unknown>>> {
  const out: Array<Record<string, unknown>> = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 1000; pages++) {
    const sep = path.includes('?') ? '&' : '?';
    const r = await call(s, 'GET', `${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { as });
    assert.equal(r.status, 200, r.text);
    assert.ok(r.body[key].length <= limit);
    assert.ok('next_cursor' in r.body, 'next_cursor is always present');
    out.push(...r.body[key]);
    cursor = r.body.next_cursor;
    if (cursor === null) return out;
    assert.equal(typeof cursor, 'string');
  }
  throw new Error('did not terminate');
}

describe('keyset pagination (docs/api.md#pagination)', () => {
  let s: TestServer;
  let owner: Actor;
  let admin: Actor;
  before(async () => {
    s = await startApi();
    owner = await actor(s, 'pager');
    admin = await actor(s, 'boss', { admin: true });
    for (let i = 0; i < 60; i++) {
      await createLink(
        s.store,
        { slug: `p-${String(i).padStart(3, '0')}`, url: 'https://e.test', tags: [`Tag ${String(i).padStart(2, '0')}`] },
        owner.user.id,
      );
    }
  });
  after(async () => s.stop());

  test('60 links: no limit gives 50 and a cursor to the 51st; limit=999 gives at most 200', async () => {
    const first = await call(s, 'GET', '/api/v1/links', { as: owner });
    assert.equal(first.body.links.length, 50);
    assert.equal(first.body.links[49].slug, 'p-049');
    assert.equal(typeof first.body.next_cursor, 'string');
    const next = await call(s, 'GET', `/api/v1/links?cursor=${encodeURIComponent(first.body.next_cursor)}`, { as: owner });
    assert.equal(next.body.links[0].slug, 'p-050');
    assert.equal(next.body.links.length, 10);
    assert.equal(next.body.next_cursor, null);
    const big = await call(s, 'GET', '/api/v1/links?limit=999', { as: owner });
    assert.ok(big.body.links.length <= 200);
    assert.equal(big.body.links.length, 60);
  });

  test('non-integer, zero and negative limits mean 50; a malformed cursor starts over', async () => {
    for (const limit of ['abc', '0', '-5', '1.5', '', '1e3', ' 7']) {
      const r = await call(s, 'GET', `/api/v1/links?limit=${encodeURIComponent(limit)}`, { as: owner });
      assert.equal(r.status, 200, `limit=${limit}`);
      assert.equal(r.body.links.length, 50, `limit=${limit}`);
    }
    for (const cursor of ['%%%', 'not-base64!', 'AAAA', encodeURIComponent(Buffer.from('no-nul').toString('base64')), 'x'.repeat(5000)]) {
      const r = await call(s, 'GET', `/api/v1/links?limit=5&cursor=${cursor}`, { as: owner });
      assert.equal(r.status, 200, cursor.slice(0, 20));
      assert.equal(r.body.links[0].slug, 'p-000', `cursor ${cursor.slice(0, 20)} restarts`);
    }
  });

  test('the cursor is padded URL-safe base64 of sort key, NUL, id', async () => {
    const r = await call(s, 'GET', '/api/v1/links?limit=3', { as: owner });
    const cursor: string = r.body.next_cursor;
    assert.match(cursor, /^[A-Za-z0-9_-]+={0,2}$/);
    assert.equal(cursor.length % 4, 0, 'padded');
    const last = r.body.links[2];
    assert.equal(Buffer.from(cursor, 'base64url').toString('utf8'), `${last.slug}\u0000${last.id}`);
    assert.deepEqual(decodeCursor(encodeCursor({ key: 'ü?>', id: 'abc' })), { key: 'ü?>', id: 'abc' });
  });

  test('tags and admin users paginate by name the same way', async () => {
    const tags = await walk(s, owner, '/api/v1/tags', 'tags', 7);
    const names = tags.map((t) => t.name as string);
    assert.equal(names.length, new Set(names).size);
    for (let i = 0; i < 60; i++) assert.ok(names.includes(`Tag ${String(i).padStart(2, '0')}`));
    assert.deepEqual(names, [...names].sort());

    for (let i = 0; i < 12; i++) await s.store.users.create({ email: `same-name-${i}@example.test`, displayName: 'Same Name' });
    const users = await walk(s, admin, '/api/v1/admin/users', 'users', 5);
    const ids = users.map((u) => u.id as string);
    assert.equal(new Set(ids).size, ids.length, 'ties on display name are broken by id, never repeated or skipped');
    assert.equal(users.filter((u) => u.display_name === 'Same Name').length, 12);
    assert.equal(users.length, await s.store.users.count());
    const adminLinks = await walk(s, admin, '/api/v1/admin/links', 'links', 50);
    assert.equal(adminLinks.length, await s.store.links.count());
  });

  test('pages stay exact while links are inserted and deleted concurrently', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let page = 0;
    do {
      const r = await call(s, 'GET', `/api/v1/links?limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { as: owner });
      seen.push(...r.body.links.map((l: { slug: string }) => l.slug));
      cursor = r.body.next_cursor;
      // Between pages: a link sorting before the position and one after it appear, and the
      // row the cursor points at is deleted.
      page++;
      await createLink(s.store, { slug: `a-early-${page}`, url: 'https://e.test' }, owner.user.id);
      await createLink(s.store, { slug: `p-${String(page).padStart(3, '0')}-late`, url: 'https://e.test' }, owner.user.id);
      const position = r.body.links[r.body.links.length - 1];
      if (position && cursor !== null) await s.store.links.delete(position.id);
    } while (cursor !== null);
    assert.equal(new Set(seen).size, seen.length, 'no link appears twice');
    for (let i = 0; i < 60; i++) assert.ok(seen.includes(`p-${String(i).padStart(3, '0')}`), `p-${i} was not skipped`);
    assert.ok(!seen.some((x) => x.startsWith('a-early-')), 'rows inserted behind the position never appear');
    const sorted = [...seen].sort();
    assert.deepEqual(seen, sorted, 'slug order');
  });

  test('limit parsing', () => {
    assert.equal(pageLimit(undefined), 50);
    assert.equal(pageLimit('200'), 200);
    assert.equal(pageLimit('201'), 200);
    assert.equal(pageLimit('1'), 1);
    assert.equal(pageLimit('0'), 50);
    assert.equal(pageLimit('-1'), 50);
    assert.equal(pageLimit('9'.repeat(40)), 50);
  });
});
