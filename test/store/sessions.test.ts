import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { describeEachDatabase } from '../helpers/databases.js';
import { createLink } from '../helpers/links.js';
import { sessionKey } from '../../src/domain/secrets.js';

/** The session store (docs/auth.md#sessions): expiry, the viewer and the visit lookups. */

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
    // Rows are keyed by the token's digest, never the token.
    const left = (await db.kysely.selectFrom('sessions').select('token').execute()).map((r) => r.token);
    assert.ok(left.includes(sessionKey('sweep-new')));
    assert.ok(!left.includes('sweep-new'));
    assert.ok(!left.includes(sessionKey('sweep-old')));
    assert.ok(!left.includes(sessionKey('sweep-now')));
    assert.ok(await store.sessions.get('sweep-new'), 'live and kept');
    await store.sessions.delete('sweep-new');
    assert.equal(await store.sessions.get('sweep-new'), null);
  });
});
