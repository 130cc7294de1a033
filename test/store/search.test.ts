import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import type { LinkListQuery } from '../../src/store/links.js';
import { viewerOf, type User } from '../../src/store/types.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { addOwner, createLink, updateLink } from '../helpers/links.js';

/**
 * Link lists and searches (docs/server.md#databases, docs/links.md#autocomplete-and-search): byte-order sorting,
 * case-insensitive matching and literal wildcards must agree on all three
 * databases, although their native collations and LIKE differ.
 */

const slugsOf = (r: { links: Array<{ slug: string }> }): string[] => r.links.map((l) => l.slug);

describeEachDatabase('link lists and search', (ctx) => {
  let ursula: User;
  let victor: User;
  let admin: User;

  before(async () => {
    const { store, db, clock } = ctx();
    ursula = await store.users.create({ email: 'ursula@example.com', displayName: 'Ursula Search' });
    victor = await store.users.create({ email: 'victor@example.com', displayName: 'Victor' });
    admin = await store.users.create({ email: 'admin@example.com', displayName: 'Admin', role: 'admin' });
    const u = ursula.id;
    // Byte order puts '-' before digits before letters; natural collations would not.
    await createLink(store, { slug: 'ord-ab', url: 'https://o.test/1', tags: ['Order'] }, u);
    await createLink(store, { slug: 'ord-a0', url: 'https://o.test/2', tags: ['Order'], visibility: 'private' }, u);
    await createLink(store, { slug: 'ord-a-b', url: 'https://o.test/3', tags: ['Order'], visibility: 'secure' }, u);
    await createLink(store, { slug: 'ord-a', url: 'https://o.test/4' }, u);
    await createLink(
      store,
      { slug: 'caps', url: 'https://Example.COM/Some/Path', title: 'JIRA Board', description: 'MiXeD CaSe words' },
      victor.id,
    );
    await createLink(store, { slug: 'pct-literal', url: 'https://p.test/a', title: '100% sure' }, victor.id);
    await createLink(store, { slug: 'pct-other', url: 'https://p.test/b', title: '1000 things' }, victor.id);
    await createLink(store, { slug: 'und-literal', url: 'https://u.test/a', description: 'uses a_b here' }, victor.id);
    await createLink(store, { slug: 'und-other', url: 'https://u.test/b', description: 'uses axb here' }, victor.id);
    await createLink(store, { slug: 'bang-literal', url: 'https://b.test/a', title: 'wow! great' }, victor.id);
    await createLink(store, { slug: 'bang-other', url: 'https://b.test/b', title: 'wow great' }, victor.id);
    const coOwned = await createLink(store, { slug: 'victor-co', url: 'https://v.test', visibility: 'private' }, victor.id);
    await addOwner(store, coOwned.id, u);
    await createLink(store, { slug: 'victor-shared', url: 'https://v.test/s', visibility: 'secure' }, victor.id, { shareWith: [u] });
    const expired = await createLink(store, { slug: 'victor-expired', url: 'https://v.test/e' }, victor.id);
    await db.kysely
      .updateTable('links')
      .set({ expires_at: clock.now - 1 })
      .where('id', '=', expired.id)
      .execute();
    const archived = await createLink(store, { slug: 'victor-archived', url: 'https://v.test/a' }, victor.id);
    await updateLink(store, archived.id, { archived: true });
  });

  const list = (q: Partial<LinkListQuery>) => ctx().store.links.list({ scope: 'all', viewer: viewerOf(admin), limit: 100, ...q });

  test('lists are in byte order of slug on every database', async () => {
    const all = slugsOf(await list({}));
    assert.deepEqual(all, [...all].sort(), 'JS sort of ASCII is byte order');
    assert.deepEqual(
      all.filter((s) => s.startsWith('ord-')),
      ['ord-a', 'ord-a-b', 'ord-a0', 'ord-ab'],
    );
  });

  test('slug uniqueness is exact and slugs are stored as written (lowercase only)', async () => {
    const { store } = ctx();
    assert.ok(await store.links.getBySlug('ord-ab'));
    assert.equal(await store.links.getBySlug('ORD-AB'), null, "lookups are exact; folding is the resolver's job");
    assert.equal((await store.links.lookupForResolve('ord-ab'))?.url, 'https://o.test/1');
    assert.equal(await store.links.lookupForResolve('Ord-Ab'), null);
  });

  test('search is case-insensitive on slug, url, title and description', async () => {
    assert.deepEqual(slugsOf(await list({ q: 'jira board' })), ['caps']);
    assert.deepEqual(slugsOf(await list({ q: 'EXAMPLE.com/some' })), ['caps']);
    assert.deepEqual(slugsOf(await list({ q: 'mixed case' })), ['caps']);
    assert.deepEqual(slugsOf(await list({ q: 'CAPS' })), ['caps']);
  });

  test('% , _ and ! in search text match only themselves', async () => {
    assert.deepEqual(slugsOf(await list({ q: '100%' })), ['pct-literal']);
    assert.deepEqual(slugsOf(await list({ q: 'a_b' })), ['und-literal']);
    assert.deepEqual(slugsOf(await list({ q: 'wow!' })), ['bang-literal']);
    assert.deepEqual(slugsOf(await list({ q: '%' })), ['pct-literal']);
    assert.deepEqual(slugsOf(await list({ q: '_' })), ['und-literal']);
  });

  test("the one search rule also matches any owner's display name, case-insensitively", async () => {
    const hits = slugsOf(await list({ q: 'URSULA search' }));
    assert.deepEqual(hits, ['ord-a', 'ord-a-b', 'ord-a0', 'ord-ab', 'victor-co']);
  });

  test('scopes: owned, shared, public and all', async () => {
    const u = viewerOf(ursula);
    assert.deepEqual(slugsOf(await list({ scope: 'owned', viewer: u })), ['ord-a', 'ord-a-b', 'ord-a0', 'ord-ab', 'victor-co']);
    assert.deepEqual(slugsOf(await list({ scope: 'shared', viewer: u })), ['victor-shared']);
    assert.deepEqual(slugsOf(await list({ scope: 'owned', viewer: null })), []);
    assert.deepEqual(slugsOf(await list({ scope: 'shared', viewer: null })), []);
    const pub = slugsOf(await list({ scope: 'public', viewer: null }));
    for (const hidden of ['ord-a0', 'ord-a-b', 'victor-co', 'victor-shared', 'victor-expired', 'victor-archived']) {
      assert.ok(!pub.includes(hidden), `${hidden} is not on the public browser`);
    }
    assert.ok(pub.includes('ord-ab'));
    const all = slugsOf(await list({ scope: 'all' }));
    assert.equal(all.length, 15);
    assert.deepEqual(slugsOf(await list({ scope: 'all', visibility: 'secure' })), ['ord-a-b', 'victor-shared']);
    assert.deepEqual(slugsOf(await list({ scope: 'all', url: 'https://v.test/s' })), ['victor-shared']);
    assert.deepEqual(slugsOf(await list({ scope: 'all', q: 'victor-', activeOnly: true })), ['victor-co', 'victor-shared']);
  });

  test('tag filter composes with scope', async () => {
    assert.deepEqual(slugsOf(await list({ scope: 'all', tagSlug: 'order' })), ['ord-a-b', 'ord-a0', 'ord-ab']);
    assert.deepEqual(slugsOf(await list({ scope: 'discoverable', viewer: viewerOf(victor), tagSlug: 'order' })), ['ord-ab']);
    assert.deepEqual(slugsOf(await list({ scope: 'discoverable', viewer: null, tagSlug: 'order' })), ['ord-ab']);
    assert.deepEqual(slugsOf(await list({ scope: 'all', tagSlug: 'no-such-tag' })), []);
  });

  test('list rows carry their tags and owners', async () => {
    const [link] = (await list({ q: 'victor-co' })).links;
    assert.deepEqual(
      link!.owners.map((o) => [o.displayName, o.isPrimary]),
      [
        ['Victor', true],
        ['Ursula Search', false],
      ],
    );
    const [ord] = (await list({ q: 'ord-ab' })).links;
    assert.deepEqual(
      ord!.tags.map((t) => t.slug),
      ['order'],
    );
  });

  test('keyset pages never repeat or skip a row while links are created concurrently', async () => {
    const { store } = ctx();
    const pager = await store.users.create({ email: 'pager@example.com', displayName: 'Pager' });
    const viewer = viewerOf(pager);
    const originals = Array.from({ length: 12 }, (_, i) => `pg-${String(i * 10).padStart(3, '0')}`);
    for (const slug of originals) await createLink(store, { slug, url: 'https://pg.test' }, pager.id);

    const seen: string[] = [];
    let afterSlug: string | undefined;
    let extra = 0;
    for (let page = 0; page < 20; page++) {
      // Each page races against inserts both behind and ahead of the cursor.
      const ahead = `pg-${String(page * 20 + 5).padStart(3, '0')}`;
      const behind = `pg-000-${page}`;
      const [result] = await Promise.all([
        store.links.list({ scope: 'owned', viewer, afterSlug, limit: 4 }),
        createLink(store, { slug: `${ahead}-x${extra++}`, url: 'https://pg.test' }, pager.id),
        createLink(store, { slug: behind, url: 'https://pg.test' }, pager.id),
      ]);
      const slugs = slugsOf(result);
      if (afterSlug !== undefined) for (const s of slugs) assert.ok(s > afterSlug, `${s} is not after the cursor ${afterSlug}`);
      seen.push(...slugs);
      if (!result.hasMore) break;
      afterSlug = slugs[slugs.length - 1];
    }
    assert.deepEqual(seen, [...seen].sort(), 'pages continue in slug order');
    assert.equal(new Set(seen).size, seen.length, 'no row appears twice');
    for (const o of originals) assert.equal(seen.filter((s) => s === o).length, 1, `${o} seen exactly once`);
  });
});
