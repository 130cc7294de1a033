import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { CLICK_ROWS_PER_INSERT, SqliteClickStore, type ClickRow } from '../../src/store/clicks.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { createLink } from '../helpers/links.js';

/** Sessions, per-install settings and raw clicks (docs/auth.md#sessions, docs/server.md#background-jobs-and-leases, docs/analytics.md#click-capture); keywords are in test/links/keywords.test.ts. */

describeEachDatabase('sessions', (ctx) => {
  test('a session reads back until it expires, then reads as absent', async () => {
    const { store, clock } = ctx();
    const data = { userId: randomUUID(), role: 'user', createdAt: clock.now };
    await store.sessions.create('tok-live', data, clock.now + 1_000);
    assert.deepEqual(await store.sessions.get('tok-live'), data);
    const t0 = clock.now;
    try {
      clock.now = t0 + 999;
      assert.deepEqual(await store.sessions.get('tok-live'), data);
      clock.now = t0 + 1_000;
      assert.equal(await store.sessions.get('tok-live'), null, 'expiry is exclusive');
    } finally {
      clock.now = t0;
    }
    assert.equal(await store.sessions.get('tok-missing'), null);
  });

  test('viewer: one lookup names the current user and role, nobody past expiry, and an orphan once the user is gone', async () => {
    const { store, clock, db } = ctx();
    const user = await store.users.create({ email: `viewer-${randomUUID()}@example.test`, displayName: 'Viewer' });
    await store.sessions.create('tok-viewer', { userId: user.id, role: 'user', createdAt: clock.now }, clock.now + 1_000);
    const seen = await store.sessions.viewer('tok-viewer');
    assert.deepEqual(seen, { kind: 'user', viewer: { id: user.id, isAdmin: false } });
    // The role comes from the users row, not from what the session recorded at sign-in.
    await store.users.setRole(user.id, 'admin', 'manual');
    const promoted = await store.sessions.viewer('tok-viewer');
    assert.deepEqual(promoted, { kind: 'user', viewer: { id: user.id, isAdmin: true } });
    assert.deepEqual(await store.sessions.viewer('tok-nobody'), { kind: 'none' });
    const t0 = clock.now;
    try {
      clock.now = t0 + 1_000;
      assert.deepEqual(await store.sessions.viewer('tok-viewer'), { kind: 'none' }, 'expiry is exclusive');
    } finally {
      clock.now = t0;
    }
    await db.kysely.deleteFrom('users').where('id', '=', user.id).execute();
    assert.deepEqual(await store.sessions.viewer('tok-viewer'), { kind: 'orphaned' });
  });

  test('visit: one lookup answers what the keyword, slug, viewer and facts lookups answer apart', async () => {
    const { store, clock, db } = ctx();
    const tag = randomUUID().slice(0, 8);
    const mkUser = (name: string, role?: 'admin') => store.users.create({ email: `${name}-${tag}@example.test`, displayName: name, role });
    const [owner, friend, stranger, admin, gone] = await Promise.all([
      mkUser('owner'),
      mkUser('friend'),
      mkUser('stranger'),
      mkUser('admin', 'admin'),
      mkUser('gone'),
    ]);
    const tokens: Record<string, string> = {};
    for (const [name, user, ttl] of [
      ['owner', owner, 60_000],
      ['friend', friend, 60_000],
      ['stranger', stranger, 60_000],
      ['admin', admin, 60_000],
      ['gone', gone, 60_000],
      ['expired', owner, 0],
    ] as const) {
      tokens[name] = `tok-visit-${name}-${tag}`;
      await store.sessions.create(tokens[name], { userId: user.id, role: user.role, createdAt: clock.now }, clock.now + ttl);
    }
    await db.kysely.deleteFrom('users').where('id', '=', gone.id).execute();
    const secret = await createLink(store, { slug: `v-secret-${tag}`, url: 'https://secret.test/', visibility: 'secure' }, owner.id, {
      shareWith: [friend.id],
    });
    await createLink(store, { slug: `v-plain-${tag}`, url: 'https://plain.test/' }, owner.id);
    const keyword = `vk-${tag}`;
    await store.keywords.create({ keyword, urlTemplate: 'https://kw.test/{slug}' });
    for (const token of [...Object.values(tokens), 'tok-no-such-session']) {
      for (const slug of [secret.slug, `v-plain-${tag}`, `v-missing-${tag}`]) {
        for (const kw of [null, keyword, `vk-missing-${tag}`]) {
          const visit = await store.sessions.visit(token, slug, kw);
          const link = await store.links.lookupForResolve(slug);
          const apart = await store.sessions.viewerOfLink(token, link?.id ?? 'none');
          const label = `token=${token} slug=${slug} keyword=${kw}`;
          assert.equal(visit.keywordTemplate, kw === null ? null : await store.keywords.templateFor(kw), label);
          assert.deepEqual(visit.link, link, label);
          assert.deepEqual(visit.session.viewer, apart.viewer, label);
          assert.deepEqual(visit.session.facts, link?.visibility === 'secure' ? apart.facts : null, label);
        }
      }
    }
    // Spot checks of what the comparison stands on.
    const friendVisit = await store.sessions.visit(tokens.friend!, secret.slug, null);
    assert.deepEqual(friendVisit.session.facts, { isOwner: false, hasShare: true, isAdmin: false });
    assert.deepEqual((await store.sessions.visit(tokens.admin!, secret.slug, null)).session.facts, {
      isOwner: false,
      hasShare: false,
      isAdmin: true,
    });
    assert.deepEqual((await store.sessions.visit(tokens.gone!, secret.slug, null)).session, { viewer: { kind: 'orphaned' }, facts: null });
    assert.deepEqual((await store.sessions.visit(tokens.expired!, secret.slug, null)).session, { viewer: { kind: 'none' }, facts: null });
  });

  test('tokens are case-sensitive keys', async () => {
    const { store, clock } = ctx();
    await store.sessions.create('CaseTok', { userId: 'u1', role: 'user', createdAt: clock.now }, clock.now + 60_000);
    assert.ok(await store.sessions.get('CaseTok'));
    assert.equal(await store.sessions.get('casetok'), null);
  });

  test('deleteExpired removes only expired sessions; delete removes one', async () => {
    const { store, clock, db } = ctx();
    const mk = (token: string, expiry: number) =>
      store.sessions.create(token, { userId: token, role: 'user', createdAt: clock.now }, expiry);
    await mk('sweep-old', clock.now - 1);
    await mk('sweep-now', clock.now);
    await mk('sweep-new', clock.now + 1);
    const removed = await store.sessions.deleteExpired();
    assert.ok(removed >= 2, `removed ${removed}`);
    const left = (await db.kysely.selectFrom('sessions').select('token').execute()).map((r) => r.token);
    assert.ok(left.includes('sweep-new'));
    assert.ok(!left.includes('sweep-old'));
    assert.ok(!left.includes('sweep-now'));
    for (const t of left) assert.ok(await store.sessions.get(t), `${t} was live and kept`);
    await store.sessions.delete('sweep-new');
    assert.equal(await store.sessions.get('sweep-new'), null);
  });
});

describeEachDatabase('settings', (ctx) => {
  test('replicas starting at once agree on one ip hash secret: 64 hex, stable', async () => {
    const { store } = ctx();
    const values = await Promise.all(Array.from({ length: 8 }, () => store.settings.ipHashSecret()));
    assert.equal(new Set(values).size, 1);
    assert.match(values[0]!, /^[0-9a-f]{64}$/);
    assert.equal(await store.settings.ipHashSecret(), values[0]);
    assert.equal(await store.settings.get('ip_hash_secret'), values[0]);
  });

  test('concurrent getOrCreate with different candidates stores exactly one of them', async () => {
    const { store, db } = ctx();
    const values = await Promise.all(Array.from({ length: 8 }, (_, i) => store.settings.getOrCreate('race', () => `candidate-${i}`)));
    assert.equal(new Set(values).size, 1);
    assert.match(values[0]!, /^candidate-\d$/);
    const rows = await db.kysely.selectFrom('settings').selectAll().where('name', '=', 'race').execute();
    assert.equal(rows.length, 1);
    assert.equal(await store.settings.get('nothing-here'), null);
  });
});

describeEachDatabase('clicks', (ctx) => {
  test('one insertBatch call writes 500 rows, with NULL and empty optional fields', async () => {
    const { store, clock } = ctx();
    const u = await store.users.create({ email: 'clicker@example.com' });
    const link = await createLink(store, { slug: 'clicked', url: 'https://e.test' }, u.id);
    const other = await createLink(store, { slug: 'other', url: 'https://e.test' }, u.id);
    const rows: ClickRow[] = Array.from({ length: 500 }, (_, i) => ({
      id: randomUUID(),
      link_id: link.id,
      user_id: i % 2 === 0 ? u.id : null,
      ip_hash: i.toString(16).padStart(64, '0'),
      user_agent: i % 3 === 0 ? null : 'é'.repeat(512),
      referrer: i % 5 === 0 ? '' : `https://ref.test/${i}`,
      clicked_at: clock.now + i,
    }));
    await store.clicks.insertBatch(rows);
    await store.clicks.insertBatch([]);
    assert.equal(await store.clicks.countForLink(link.id), 500);
    assert.equal(await store.clicks.countForLink(other.id), 0);
    assert.equal(await store.clicks.countAll(), 500);
    const sample = await ctx().db.kysely.selectFrom('link_clicks').selectAll().where('id', '=', rows[1]!.id).executeTakeFirstOrThrow();
    assert.deepEqual({ ...sample, clicked_at: Number(sample.clicked_at) }, rows[1]);
  });

  const clickRow = (linkId: string, at: number, ipHash: string | null = 'f'.repeat(64)): ClickRow => ({
    id: randomUUID(),
    link_id: linkId,
    user_id: null,
    ip_hash: ipHash as string,
    user_agent: 'UA',
    referrer: '',
    clicked_at: at,
  });

  test('a batch naming a link that is gone, or a user who is, stores the rest once', async () => {
    const { store, clock } = ctx();
    const link = (await store.links.getBySlug('clicked'))!;
    const before = await store.clicks.countForLink(link.id);
    const total = await store.clicks.countAll();
    await store.clicks.insertBatch([
      clickRow(link.id, clock.now),
      clickRow(randomUUID(), clock.now),
      { ...clickRow(link.id, clock.now), user_id: randomUUID() },
    ]);
    assert.equal(await store.clicks.countForLink(link.id), before + 2);
    assert.equal(await store.clicks.countAll(), total + 2, 'nothing stored for the missing link');
  });

  /** Batches the stores must write whole or not at all: a failed batch is retried as it was. */
  const clickStores = () => {
    const { store, db } = ctx();
    return db.sqlite ? [store.clicks, new SqliteClickStore(db.kysely, db.sqlite)] : [store.clicks];
  };

  test('a batch with a row the database refuses writes nothing', async () => {
    const { store, clock } = ctx();
    const link = (await store.links.getBySlug('clicked'))!;
    for (const clicks of clickStores()) {
      const before = await store.clicks.countAll();
      await assert.rejects(clicks.insertBatch([clickRow(link.id, clock.now), clickRow(link.id, clock.now, null)]));
      assert.equal(await store.clicks.countAll(), before, `${clicks.constructor.name}: all or nothing`);
    }
  });

  test('a batch longer than one statement may bind is stored whole, or not at all', async () => {
    const { store, clock } = ctx();
    const link = (await store.links.getBySlug('clicked'))!;
    for (const clicks of clickStores()) {
      const before = await store.clicks.countForLink(link.id);
      const size = CLICK_ROWS_PER_INSERT * 2 + 1;
      await clicks.insertBatch(Array.from({ length: size }, (_, i) => clickRow(link.id, clock.now + i)));
      assert.equal(await store.clicks.countForLink(link.id), before + size);

      // The bad row is in the last statement: the statements before it are rolled back too.
      const failing = Array.from({ length: size }, (_, i) => clickRow(link.id, clock.now + i, i === size - 1 ? null : 'e'.repeat(64)));
      await assert.rejects(clicks.insertBatch(failing));
      assert.equal(
        await store.clicks.countForLink(link.id),
        before + size,
        `${clicks.constructor.name}: a failed batch can be retried without duplicates`,
      );
    }
  });
});
