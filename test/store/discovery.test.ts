import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, test } from 'node:test';
import { CAPABILITIES, linkCaps } from '../../src/domain/caps.js';
import type { LinkScope } from '../../src/store/links.js';
import type { Store } from '../../src/store/index.js';
import { viewerOf, type Link, type User, type Viewer } from '../../src/store/types.js';
import { describeEachDatabase, type DbContext } from '../helpers/databases.js';
import { addOwner, createLink, updateLink } from '../helpers/links.js';

/**
 * Who can discover what (docs/links.md#visibility, docs/links.md#autocomplete-and-search): the one predicate behind list,
 * tags, did-you-mean and suggest gives the same answers on every database,
 * and another user's private or secure link never leaks to anyone else.
 */

interface World {
  owner: User;
  coOwner: User;
  recipient: User;
  stranger: User;
  admin: User;
  links: Map<string, Link>;
  viewers: Array<[string, Viewer]>;
}

async function buildWorld(c: DbContext): Promise<World> {
  const { store, db, clock } = c;
  const mk = (email: string, displayName: string, admin = false) =>
    store.users.create({ email, displayName, role: admin ? 'admin' : 'user' });
  const owner = await mk('olive@example.com', 'Olive');
  const coOwner = await mk('cole@example.com', 'Cole');
  const recipient = await mk('rita@example.com', 'Rita');
  const stranger = await mk('sam@example.com', 'Sam');
  const admin = await mk('root@example.com', 'Root', true);
  const links = new Map<string, Link>();
  const add = async (
    slug: string,
    visibility: string,
    tags: string[],
    extra: { title?: string; description?: string; shareWith?: string[] } = {},
  ) => {
    const l = await createLink(
      store,
      { slug, url: `https://${slug}.test`, visibility, tags, title: extra.title, description: extra.description },
      owner.id,
      {
        shareWith: extra.shareWith ?? [],
      },
    );
    links.set(slug, l);
    return l;
  };
  await add('pub-alpha', 'public', ['Vis Shared', 'Only Public', 'alpha']);
  await add('priv-alpha', 'private', ['Vis Shared', 'Only Private']);
  const sec = await add('sec-alpha', 'secure', ['Vis Shared', 'Only Secure']);
  await addOwner(store, sec.id, coOwner.id);
  await add('priv-shared', 'private', ['Vis Shared', 'Only Shared'], { shareWith: [recipient.id] });
  const expired = await add('pub-expired', 'public', ['Vis Shared', 'Only Expired']);
  // Expiry in the past is a stored fact the write path refuses to create, so set it directly.
  await db.kysely
    .updateTable('links')
    .set({ expires_at: clock.now - 1 })
    .where('id', '=', expired.id)
    .execute();
  const archived = await add('pub-archived', 'public', ['Vis Shared', 'Only Archived']);
  await updateLink(store, archived.id, { archived: true });
  const orphaned = await add('pub-orphan', 'public', ['Orphan Tag']);
  await updateLink(store, orphaned.id, { tags: [] });
  // docs/links.md#autocomplete-and-search example and typo fixtures.
  await add('jira', 'public', []);
  await add('fiji-trip', 'public', []);
  await add('docs', 'public', [], { title: 'Jira runbook' });
  await add('jar', 'public', []);
  await add('jira-secret', 'private', []);
  const old = await add('jira-old', 'public', []);
  await updateLink(store, old.id, { archived: true });
  await add('pct', 'public', [], { title: 'Done 100% of it' });
  await add('pcx', 'public', [], { title: 'Done 1000 of it' });
  await add('und', 'public', [], { description: 'snake_case here' });
  await add('unx', 'public', [], { description: 'snakeXcase here' });
  for (const s of ['abcd', 'abce', 'abcf', 'abxx', 'wxyz', 'q']) await add(s, 'public', []);
  return {
    owner,
    coOwner,
    recipient,
    stranger,
    admin,
    links,
    viewers: [
      ['anonymous', null],
      ['owner', viewerOf(owner)],
      ['co-owner', viewerOf(coOwner)],
      ['recipient', viewerOf(recipient)],
      ['stranger', viewerOf(stranger)],
      ['admin', viewerOf(admin)],
    ],
  };
}

const PUBLIC_ACTIVE = [
  'abcd',
  'abce',
  'abcf',
  'abxx',
  'docs',
  'fiji-trip',
  'jar',
  'jira',
  'pcx',
  'pct',
  'pub-alpha',
  'pub-orphan',
  'q',
  'und',
  'unx',
  'wxyz',
];

/** Active links each viewer may discover, in slug byte order. */
function expectedDiscoverable(who: string): string[] {
  const extra: Record<string, string[]> = {
    anonymous: [],
    owner: ['jira-secret', 'priv-alpha', 'priv-shared', 'sec-alpha'],
    'co-owner': ['sec-alpha'],
    recipient: ['priv-shared'],
    stranger: [],
    admin: ['jira-secret', 'priv-alpha', 'priv-shared', 'sec-alpha'],
  };
  return [...PUBLIC_ACTIVE, ...extra[who]!].sort();
}

async function listAll(
  store: Store,
  scope: LinkScope,
  viewer: Viewer,
  extra: { activeOnly?: boolean; tagSlug?: string } = {},
): Promise<string[]> {
  const out: string[] = [];
  let afterSlug: string | undefined;
  for (;;) {
    const page = await store.links.list({ scope, viewer, afterSlug, limit: 7, ...extra });
    out.push(...page.links.map((l) => l.slug));
    if (!page.hasMore) return out;
    afterSlug = page.links[page.links.length - 1]!.slug;
  }
}

describeEachDatabase('discovery and visibility', (ctx) => {
  let w: World;
  before(async () => {
    w = await buildWorld(ctx());
  });

  test('list scope "discoverable": public + owned + shared for users, public for anonymous, all for admins', async () => {
    const { store } = ctx();
    for (const [who, viewer] of w.viewers) {
      assert.deepEqual(await listAll(store, 'discoverable', viewer, { activeOnly: true }), expectedDiscoverable(who), who);
    }
    // Without activeOnly the predicate alone applies: inactive public links are still discoverable rows (badged in lists).
    const anonAll = await listAll(store, 'discoverable', null);
    assert.deepEqual(anonAll, [...PUBLIC_ACTIVE, 'jira-old', 'pub-archived', 'pub-expired'].sort());
  });

  test("another user's private or secure link never shows up for a stranger, on any surface", async () => {
    const { store } = ctx();
    const stranger = viewerOf(w.stranger);
    const hidden = ['priv-alpha', 'sec-alpha', 'priv-shared', 'jira-secret'];
    for (const viewer of [null, stranger]) {
      const listed = await listAll(store, 'discoverable', viewer);
      for (const h of hidden) assert.ok(!listed.includes(h), `${h} listed`);
      const searched = await store.links.list({ scope: 'discoverable', viewer, q: 'alpha' });
      assert.deepEqual(
        searched.links.map((l) => l.slug),
        ['pub-alpha'],
      );
      const tagged = await store.links.list({ scope: 'discoverable', viewer, tagSlug: 'only-private' });
      assert.deepEqual(tagged.links, []);
      const tagNames = (await store.tags.listWithCounts(viewer)).map((t) => t.slug);
      for (const t of ['only-private', 'only-secure', 'only-shared']) assert.ok(!tagNames.includes(t), `tag ${t} leaked`);
      for (const typo of ['priv-alphx', 'sec-alphx', 'priv-sharex', 'jira-secrex']) {
        assert.deepEqual(
          (await store.discovery.didYouMean(typo, viewer)).map((x) => x.slug),
          [],
          typo,
        );
      }
      for (const q of ['priv', 'sec-', 'secret', 'priv-alphx']) {
        const slugs = (await store.discovery.suggest(q, viewer, 10)).map((s) => s.slug);
        for (const h of hidden) assert.ok(!slugs.includes(h), `${h} suggested for ${q}`);
      }
    }
  });

  test('tag counts: discoverable active links, plus expired and archived ones the viewer holds; zero-link tags never appear', async () => {
    const { store } = ctx();
    const counts = async (viewer: Viewer) =>
      Object.fromEntries((await store.tags.listWithCounts(viewer)).map((t) => [t.name, t.linkCount]));
    assert.deepEqual(await counts(null), { 'Only Public': 1, 'Vis Shared': 1, alpha: 1 });
    assert.deepEqual(await counts(viewerOf(w.recipient)), { 'Only Public': 1, 'Only Shared': 1, 'Vis Shared': 2, alpha: 1 });
    assert.deepEqual(await counts(viewerOf(w.coOwner)), { 'Only Public': 1, 'Only Secure': 1, 'Vis Shared': 2, alpha: 1 });
    // The owner (and an admin) still see their expired and archived links on the tag pages, badged.
    const full = {
      'Only Archived': 1,
      'Only Expired': 1,
      'Only Private': 1,
      'Only Public': 1,
      'Only Secure': 1,
      'Only Shared': 1,
      'Vis Shared': 6,
      alpha: 1,
    };
    assert.deepEqual(await counts(viewerOf(w.owner)), full);
    assert.deepEqual(await counts(viewerOf(w.admin)), full);
    // The tag that lost its last link is still stored, just never listed.
    assert.ok(await store.tags.findBySlug('orphan-tag'));
  });

  test('tag lists are in byte order (upper case before lower case) and prefix matching is case-insensitive and literal', async () => {
    const { store } = ctx();
    const admin = viewerOf(w.admin);
    assert.deepEqual(
      (await store.tags.listWithCounts(admin)).map((t) => t.name),
      ['Only Archived', 'Only Expired', 'Only Private', 'Only Public', 'Only Secure', 'Only Shared', 'Vis Shared', 'alpha'],
    );
    assert.deepEqual(
      (await store.tags.listWithCounts(admin, { prefix: 'only p' })).map((t) => t.name),
      ['Only Private', 'Only Public'],
    );
    assert.deepEqual(
      (await store.tags.listWithCounts(admin, { prefix: 'ALP' })).map((t) => t.name),
      ['alpha'],
    );
    assert.deepEqual(
      (await store.tags.listWithCounts(null, { prefix: 'only' })).map((t) => t.name),
      ['Only Public'],
    );
    assert.deepEqual(await store.tags.listWithCounts(admin, { prefix: '%' }), []);
    assert.deepEqual(await store.tags.listWithCounts(admin, { prefix: 'Only_' }), []);
    assert.equal((await store.tags.listWithCounts(admin, { limit: 2 })).length, 2);
  });

  test('did-you-mean: nearest first, then byte order; at most 3; distance ≤ 2; never q itself; nothing for one character', async () => {
    const { store } = ctx();
    assert.deepEqual(
      (await store.discovery.didYouMean('abcz', null)).map((x) => x.slug),
      ['abcd', 'abce', 'abcf'],
    );
    assert.deepEqual(
      (await store.discovery.didYouMean('ABCZ', null)).map((x) => x.slug),
      ['abcd', 'abce', 'abcf'],
      'q is lowercased',
    );
    // 'abcd' itself is excluded; 'abce'/'abcf' are 1 away, 'abxx' 2 away.
    assert.deepEqual(
      (await store.discovery.didYouMean('abcd', null)).map((x) => x.slug),
      ['abce', 'abcf', 'abxx'],
    );
    assert.deepEqual(
      (await store.discovery.didYouMean('wxyq', null)).map((x) => x.slug),
      ['wxyz'],
    );
    assert.deepEqual(
      (await store.discovery.didYouMean('wqqq', null)).map((x) => x.slug),
      [],
      'distance 3 is too far',
    );
    assert.deepEqual(
      (await store.discovery.didYouMean('jzz', null)).map((x) => x.slug),
      [],
      'two edits are too many for three characters: they would reach nearly every short name',
    );
    assert.deepEqual(
      (await store.discovery.didYouMean('jaz', null)).map((x) => x.slug),
      ['jar'],
      'one edit still finds a short name',
    );
    assert.deepEqual(
      (await store.discovery.didYouMean('x', null)).map((x) => x.slug),
      [],
      'one character never suggests (link "q" is 1 away)',
    );
    assert.deepEqual(
      (await store.discovery.didYouMean('', null)).map((x) => x.slug),
      [],
    );
    assert.deepEqual(await store.discovery.didYouMean('pub-alphx', null), [{ slug: 'pub-alpha', title: '' }], 'each with its title');
  });

  test('did-you-mean follows the viewer: owners and admins see their private slugs, inactive ones never', async () => {
    const { store } = ctx();
    assert.deepEqual(
      (await store.discovery.didYouMean('jira-secrex', viewerOf(w.owner))).map((x) => x.slug),
      ['jira-secret'],
    );
    assert.deepEqual(
      (await store.discovery.didYouMean('jira-secrex', viewerOf(w.admin))).map((x) => x.slug),
      ['jira-secret'],
    );
    assert.deepEqual(
      (await store.discovery.didYouMean('priv-sharex', viewerOf(w.recipient))).map((x) => x.slug),
      ['priv-shared'],
    );
    assert.deepEqual(
      (await store.discovery.didYouMean('sec-alphx', viewerOf(w.coOwner))).map((x) => x.slug),
      ['sec-alpha'],
    );
    for (const [who, viewer] of w.viewers) {
      assert.deepEqual(
        (await store.discovery.didYouMean('pub-expirex', viewer)).map((x) => x.slug),
        [],
        who,
      );
      assert.deepEqual(
        (await store.discovery.didYouMean('pub-archivex', viewer)).map((x) => x.slug),
        [],
        who,
      );
      assert.deepEqual(
        (await store.discovery.didYouMean('jira-olx', viewer)).map((x) => x.slug),
        [],
        who,
      );
    }
  });

  test('suggest ranks slug prefix, then slug substring, then title/description (docs/links.md#autocomplete-and-search example)', async () => {
    const { store } = ctx();
    assert.deepEqual(await store.discovery.suggest('JI', null, 3), [
      { slug: 'jira', title: '' },
      { slug: 'fiji-trip', title: '' },
      { slug: 'docs', title: 'Jira runbook' },
    ]);
    // Room to spare, but `jar` and `q` are two edits away: too many for a two-character query.
    assert.deepEqual(
      (await store.discovery.suggest('JI', null, 10)).map((s) => s.slug),
      ['jira', 'fiji-trip', 'docs'],
    );
    assert.deepEqual(
      (await store.discovery.suggest('JI', null, 2)).map((s) => s.slug),
      ['jira', 'fiji-trip'],
    );
    // The owner also sees the private `jira-secret`, in its band; the archived `jira-old` never appears.
    assert.deepEqual(
      (await store.discovery.suggest('ji', viewerOf(w.owner), 4)).map((s) => s.slug),
      ['jira', 'jira-secret', 'fiji-trip', 'docs'],
    );
    assert.deepEqual(await store.discovery.suggest('', null, 10), []);
    assert.deepEqual(await store.discovery.suggest('zzzzzz', null, 10), []);
  });

  test('suggest adds typo matches only when short of the limit, never repeating an earlier band', async () => {
    const { store } = ctx();
    assert.deepEqual(
      (await store.discovery.suggest('jir', null, 10)).map((s) => s.slug),
      ['jira', 'docs', 'jar'],
    );
    assert.deepEqual(
      (await store.discovery.suggest('jir', null, 2)).map((s) => s.slug),
      ['jira', 'docs'],
    );
    assert.deepEqual(
      (await store.discovery.suggest('jirb', null, 5)).map((s) => s.slug),
      ['jira', 'jar'],
    );
    assert.deepEqual(
      (await store.discovery.suggest('abcz', null, 2)).map((s) => s.slug),
      ['abcd', 'abce'],
    );
    // `q` is one edit from `v`, but a single character never gets typo matches.
    assert.deepEqual(await store.discovery.suggest('v', null, 5), [], 'no typo band for a single character');
  });

  test('suggest treats % and _ literally and matches titles/descriptions case-insensitively', async () => {
    const { store } = ctx();
    assert.deepEqual(
      (await store.discovery.suggest('100%', null, 10)).map((s) => s.slug),
      ['pct'],
    );
    assert.deepEqual(
      (await store.discovery.suggest('SNAKE_CASE', null, 10)).map((s) => s.slug),
      ['und'],
    );
    assert.deepEqual(
      (await store.discovery.suggest('DONE 1000', null, 10)).map((s) => s.slug),
      ['pcx'],
    );
    assert.deepEqual(
      (await store.discovery.suggest('!', null, 10)).map((s) => s.slug),
      [],
    );
  });

  test('admins are offered every active link, whatever its visibility', async () => {
    const { store } = ctx();
    assert.deepEqual(
      (await store.discovery.suggest('priv', viewerOf(w.admin), 10)).map((s) => s.slug),
      ['priv-alpha', 'priv-shared'],
    );
    assert.deepEqual(
      (await store.discovery.suggest('alpha', viewerOf(w.admin), 10)).map((s) => s.slug),
      ['priv-alpha', 'pub-alpha', 'sec-alpha'],
    );
  });

  test('capsMany matches per-link caps for every viewer on a mixed list', async () => {
    const { store } = ctx();
    const ids = [...w.links.values()].map((l) => l.id);
    const missing = randomUUID();
    const list = [...ids, ids[0]!, missing];
    for (const [who, viewer] of w.viewers) {
      const many = await store.access.capsMany(list, viewer);
      assert.equal(many.size, ids.length + 1, who);
      for (const id of [...ids, missing]) {
        assert.deepEqual(many.get(id), await store.access.caps(id, viewer), `${who} ${id}`);
      }
    }
    const caps = (slug: string, v: Viewer) => store.access.caps(w.links.get(slug)!.id, v);
    const all = linkCaps({ isOwner: true, hasShare: false, isAdmin: false });
    const viewOnly = linkCaps({ isOwner: false, hasShare: true, isAdmin: false });
    const none = linkCaps({ isOwner: false, hasShare: false, isAdmin: false });
    assert.deepEqual(await caps('sec-alpha', viewerOf(w.coOwner)), all);
    assert.deepEqual(await caps('priv-shared', viewerOf(w.recipient)), viewOnly);
    assert.deepEqual(await caps('pub-alpha', viewerOf(w.stranger)), none, 'a public link still gives a stranger no caps');
    assert.deepEqual(await caps('priv-alpha', null), none);
    for (const c of CAPABILITIES) assert.equal((await caps('priv-alpha', viewerOf(w.admin)))[c], true);
    assert.deepEqual(await store.access.capsMany([], viewerOf(w.owner)), new Map());
  });
});
