import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import type { User } from '../../src/store/types.js';
import { viewerOf } from '../../src/store/types.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { addOwner, createLink, setLifecycle } from '../helpers/links.js';

/** The web UI's page-shaped reads (store/browse.ts) behave the same on every database. */
describeEachDatabase('browse store', (ctx) => {
  let alice: User;
  let bob: User;
  let admin: User;
  before(async () => {
    const { store, clock } = ctx();
    alice = await store.users.create({ email: 'alice@x.io', displayName: 'Alice Smith' });
    bob = await store.users.create({ email: 'bob@x.io', displayName: 'Bob 100% Jones' });
    admin = await store.users.create({ email: 'root@x.io', displayName: 'Root', role: 'admin' });
    const t0 = clock.now;
    for (let i = 0; i < 7; i++) {
      clock.now = t0 + i * 1000;
      await createLink(
        store,
        { slug: `pub-${i}`, url: `https://e.test/${i}`, title: i === 3 ? 'Quarterly 100% Report' : '', tags: i < 2 ? ['Team Tools'] : [] },
        alice.id,
      );
    }
    clock.now = t0 + 10_000;
    await createLink(store, { slug: 'priv', url: 'https://e.test/p', visibility: 'private', tags: ['Hidden'] }, bob.id);
    const arch = await createLink(store, { slug: 'arch', url: 'https://e.test/a' }, alice.id);
    await setLifecycle(store, arch.id, { archived: true });
    await createLink(store, { slug: 'exp', url: 'https://e.test/e', expiresAt: clock.now + 5000 }, alice.id);
    const co = await createLink(store, { slug: 'bobs', url: 'https://e.test/b', tags: ['Bob Tag'] }, bob.id);
    await addOwner(store, co.id, alice.id);
    clock.now = t0 + 20_000;
  });

  test('public links: newest first, active and public only, counted, paged by offset', async () => {
    const { store } = ctx();
    const all = await store.browse.publicLinks({ offset: 0, limit: 3 });
    assert.equal(all.total, 8);
    assert.deepEqual(
      all.links.map((l) => l.slug),
      ['bobs', 'pub-6', 'pub-5'],
    );
    const last = await store.browse.publicLinks({ offset: 6, limit: 3 });
    assert.deepEqual(
      last.links.map((l) => l.slug),
      ['pub-1', 'pub-0'],
    );
    assert.deepEqual(
      last.links[0]!.tags.map((t) => t.name),
      ['Team Tools'],
    );
  });

  test('public search is the one rule: case-insensitive over slug, URL, title, description and owner names, with % literal', async () => {
    const { store } = ctx();
    assert.deepEqual(
      (await store.browse.publicLinks({ q: 'QUARTERLY', offset: 0, limit: 25 })).links.map((l) => l.slug),
      ['pub-3'],
    );
    assert.deepEqual(
      (await store.browse.publicLinks({ q: '100%', offset: 0, limit: 25 })).links.map((l) => l.slug),
      ['bobs', 'pub-3'],
      "the title, and the owner's name Bob 100% Jones",
    );
    assert.equal((await store.browse.publicLinks({ q: '0%', offset: 0, limit: 25 })).total, 2);
    assert.equal((await store.browse.publicLinks({ q: '00 %', offset: 0, limit: 25 })).total, 0, '% is literal');
    assert.equal((await store.browse.publicLinks({ q: 'priv', offset: 0, limit: 25 })).total, 0);
  });

  test('profile lists hold only links whose primary owner is the user', async () => {
    const { store } = ctx();
    const bobs = await store.browse.publicLinks({ primaryOwnerId: bob.id, offset: 0, limit: 25 });
    assert.deepEqual(
      bobs.links.map((l) => l.slug),
      ['bobs'],
    );
    assert.equal((await store.browse.publicLinks({ primaryOwnerId: alice.id, offset: 0, limit: 25 })).total, 7);
  });

  test('numbered pages count every link the query selects; the one search rule matches owner names literally', async () => {
    const { store } = ctx();
    const total = (q?: string) => store.links.page({ scope: 'all', viewer: viewerOf(admin), q, limit: 2 }, 0).then((p) => p.total);
    assert.equal(await total(), 11);
    assert.equal(await total('bob 100%'), 2, 'owner names, % literal');
    assert.equal(await total('e.test/p'), 1);
    const second = await store.links.page({ scope: 'all', viewer: viewerOf(admin), limit: 10 }, 10);
    assert.equal(second.links.length, 1, 'the last page holds the rest');
    assert.equal(second.total, 11);
    assert.deepEqual(await store.browse.adminCounts(), { users: 3, links: 11, keywords: 0 });
  });

  test("dashboard tag chips: tags on the viewer's own and co-owned links; every tag for an admin", async () => {
    const { store } = ctx();
    assert.deepEqual(
      (await store.browse.dashboardTags(viewerOf(alice))).map((t) => [t.name, t.linkCount]),
      [
        ['Bob Tag', 1],
        ['Team Tools', 2],
      ],
    );
    assert.deepEqual(
      (await store.browse.dashboardTags(viewerOf(bob))).map((t) => t.name),
      ['Bob Tag', 'Hidden'],
    );
    assert.deepEqual(
      (await store.browse.dashboardTags(viewerOf(admin))).map((t) => t.name),
      ['Bob Tag', 'Hidden', 'Team Tools'],
    );
    assert.deepEqual(await store.browse.dashboardTags(null), []);
  });
});
