import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../../src/domain/errors.js';
import { describeEachDatabase } from '../helpers/databases.js';

/** Users (docs/auth.md#user-records, docs/auth.md#roles-and-admin-grants, docs/web-ui.md#public-browser-and-profiles profile slugs). */
describeEachDatabase('user store', (ctx) => {
  test('duplicate display names get -2, -3 profile slugs in creation order', async () => {
    const { store } = ctx();
    const made = [];
    for (const email of ['ann1@example.com', 'ann2@example.com', 'ann3@example.com']) {
      made.push(await store.users.create({ email, displayName: "  Ann O'Neil (Ops)  " }));
    }
    assert.deepEqual(
      made.map((u) => u.displayNameSlug),
      ['ann-oneil-ops', 'ann-oneil-ops-2', 'ann-oneil-ops-3'],
    );
    assert.equal(made[0]!.displayName, "Ann O'Neil (Ops)", 'display name is trimmed, not otherwise changed');
    assert.equal((await store.users.findByDisplayNameSlug('ann-oneil-ops-2'))!.id, made[1]!.id);
  });

  test('a display name without usable characters becomes `user`, then `user-2`; no name uses the email local part', async () => {
    const { store } = ctx();
    const first = await store.users.create({ email: 'punct1@example.com', displayName: '?!' });
    const second = await store.users.create({ email: 'punct2@example.com', displayName: '日本' });
    assert.equal(first.displayNameSlug, 'user');
    assert.equal(second.displayNameSlug, 'user-2');
    const bare = await store.users.create({ email: 'Bare.Local@example.com' });
    assert.equal(bare.displayName, 'Bare.Local');
    assert.equal(bare.displayNameSlug, 'barelocal');
  });

  test('a second user with the same email, in any case, is refused and nothing is inserted', async () => {
    const { store } = ctx();
    await store.users.create({ email: 'Dup@Example.com', displayName: 'Dup' });
    const before = await store.users.count();
    await assert.rejects(store.users.create({ email: 'dup@example.COM', displayName: 'Other' }), (e) => {
      assert.ok(e instanceof AppError);
      assert.equal(e.code, 'BAD_REQUEST');
      assert.match(e.message, /already exists/);
      return true;
    });
    assert.equal(await store.users.count(), before);
  });

  test('findByEmail is case-insensitive and trims; findByIdentity is exact', async () => {
    const { store } = ctx();
    const u = await store.users.create({ email: 'Mixed.Case@Example.com', displayName: 'Mixed' });
    assert.equal((await store.users.findByEmail('  mixed.case@EXAMPLE.COM '))!.id, u.id);
    assert.equal(u.provider, 'local');
    assert.equal(u.subject, 'mixed.case@example.com', 'local subject is the lower-cased email');
    assert.equal((await store.users.findByIdentity('local', 'mixed.case@example.com'))!.id, u.id);
    assert.equal(await store.users.findByIdentity('local', 'Mixed.Case@Example.com'), null);
    assert.equal(await store.users.findByEmail('nobody@example.com'), null);
  });

  test('an OIDC identity is unique per (provider, subject)', async () => {
    const { store } = ctx();
    const first = await store.users.create({ email: 'oidc1@example.com', provider: 'https://idp.test', subject: 'sub-1' });
    assert.equal((await store.users.findByIdentity('https://idp.test', 'sub-1'))!.id, first.id);
    await assert.rejects(
      store.users.create({ email: 'oidc2@example.com', provider: 'https://idp.test', subject: 'sub-1' }),
      (e) => e instanceof AppError && e.code === 'BAD_REQUEST',
    );
  });

  test('setRole changes role and role source and stamps updated_at; unknown id reports false', async () => {
    const { store, clock } = ctx();
    const u = await store.users.create({ email: 'role@example.com', displayName: 'Role' });
    assert.equal(u.role, 'user');
    assert.equal(u.roleSource, 'manual');
    const t0 = clock.now;
    try {
      clock.now = t0 + 60_000;
      assert.equal(await store.users.setRole(u.id, 'admin', 'config'), true);
    } finally {
      clock.now = t0;
    }
    const after = (await store.users.findById(u.id))!;
    assert.equal(after.role, 'admin');
    assert.equal(after.roleSource, 'config');
    assert.equal(after.updatedAt, t0 + 60_000);
    assert.equal(after.createdAt, u.createdAt);
    assert.ok((await store.users.countAdmins()) >= 1);
    assert.equal(await store.users.setRole('00000000-0000-4000-8000-000000000000', 'admin', 'manual'), false);
    assert.equal(await store.users.setRole(u.id, 'user', 'manual'), true);
    assert.equal((await store.users.findById(u.id))!.role, 'user');
  });

  test('oldestAdmin and listAll order by creation and by display name in byte order', async () => {
    const { store, clock } = ctx();
    const t0 = clock.now;
    try {
      clock.now = t0 + 1_000;
      const later = await store.users.create({ email: 'adm-late@example.com', displayName: 'zz late admin', role: 'admin' });
      clock.now = t0 - 1_000_000;
      const early = await store.users.create({ email: 'adm-early@example.com', displayName: 'AA early admin', role: 'admin' });
      assert.equal((await store.users.oldestAdmin())!.id, early.id);
      const names = (await store.users.listAll()).map((u) => u.displayName);
      assert.deepEqual(names, [...names].sort(), 'byte order');
      assert.ok(names.indexOf('AA early admin') < names.indexOf("Ann O'Neil (Ops)"));
      assert.ok(names.indexOf('Role') < names.indexOf('zz late admin'));
      assert.ok(later);
    } finally {
      clock.now = t0;
    }
  });
});
