import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sha256Hex } from '../../src/domain/secrets.js';
import { isAppError } from '../../src/domain/errors.js';
import { describeEachDatabase } from '../helpers/databases.js';

describeEachDatabase('personal access token store', (ctx) => {
  test('only the SHA-256 of the plaintext is stored', async () => {
    const { store, db } = ctx();
    const u = await store.users.create({ email: 'tok-hash@x.io' });
    const { plaintext, token } = await store.tokens.create(u.id, '  ci  ');
    assert.match(plaintext, /^jl_[0-9A-Za-z]+$/);
    assert.equal(token.name, 'ci');
    const row = await db.kysely.selectFrom('api_tokens').selectAll().where('id', '=', token.id).executeTakeFirstOrThrow();
    assert.equal(row.token_hash, sha256Hex(plaintext));
    for (const v of Object.values(row)) assert.ok(!String(v).includes(plaintext.slice(3)), 'no column holds the plaintext');
    assert.equal(Number(row.created_at), ctx().clock.now);
    assert.equal(row.expires_at, null);
  });

  test('authenticate accepts active tokens and refuses revoked, expired, unknown and orphaned ones', async () => {
    const { store, clock, db } = ctx();
    const u = await store.users.create({ email: 'tok-auth@x.io' });
    const live = await store.tokens.create(u.id, 'live');
    const soon = await store.tokens.create(u.id, 'soon', clock.now + 60_000);
    const gone = await store.tokens.create(u.id, 'gone');
    assert.equal((await store.tokens.authenticate(live.plaintext))?.user.id, u.id);
    assert.equal((await store.tokens.authenticate(live.plaintext))?.tokenId, live.token.id);
    assert.ok(await store.tokens.authenticate(soon.plaintext));
    assert.equal(await store.tokens.revoke(u.id, gone.token.id), true);
    assert.equal(await store.tokens.authenticate(gone.plaintext), null);
    assert.equal(await store.tokens.authenticate(`${live.plaintext}x`), null);
    assert.equal(await store.tokens.authenticate('jl_'), null);
    assert.equal(await store.tokens.authenticate(''), null);
    assert.equal(await store.tokens.authenticate(`jl_${'9'.repeat(10_000)}`), null);

    clock.now += 60_000; // expires_at ≤ now is expired
    assert.equal(await store.tokens.authenticate(soon.plaintext), null);
    assert.ok(await store.tokens.authenticate(live.plaintext));

    const v = await store.users.create({ email: 'tok-vanish@x.io' });
    const orphan = await store.tokens.create(v.id, 'orphan');
    await db.kysely.deleteFrom('users').where('id', '=', v.id).execute();
    assert.equal(await store.tokens.authenticate(orphan.plaintext), null);
  });

  test('lists newest first with revoked tokens, and revokes only the owner’s tokens', async () => {
    const { store, clock } = ctx();
    const a = await store.users.create({ email: 'tok-list-a@x.io' });
    const b = await store.users.create({ email: 'tok-list-b@x.io' });
    const first = await store.tokens.create(a.id, 'first');
    clock.now += 1000;
    const second = await store.tokens.create(a.id, 'second');
    clock.now += 1000;
    const theirs = await store.tokens.create(b.id, 'theirs');

    assert.equal(await store.tokens.revoke(a.id, theirs.token.id), false, 'someone else’s token');
    assert.equal(await store.tokens.revoke(a.id, '00000000-0000-4000-8000-000000000000'), false);
    assert.equal(await store.tokens.revoke(a.id, 'not-a-uuid'), false);
    assert.ok(await store.tokens.authenticate(theirs.plaintext), 'untouched');

    const revokedAt = clock.now;
    assert.equal(await store.tokens.revoke(a.id, first.token.id), true);
    clock.now += 1000;
    assert.equal(await store.tokens.revoke(a.id, first.token.id), true, 'revoking twice is harmless');
    const list = await store.tokens.listForUser(a.id);
    assert.deepEqual(
      list.map((t) => t.name),
      ['second', 'first'],
    );
    assert.equal(list[1]!.revokedAt, revokedAt, 'the first revocation time is kept');
    assert.equal(list[0]!.revokedAt, null);
    assert.equal(await store.tokens.findForUser(b.id, first.token.id), null);
    assert.equal((await store.tokens.findForUser(a.id, second.token.id))?.name, 'second');
    assert.equal(await store.tokens.revokeById(theirs.token.id), true);
    assert.equal(await store.tokens.authenticate(theirs.plaintext), null);
  });

  test('the web form’s expiry choices', async () => {
    const { store, clock } = ctx();
    const u = await store.users.create({ email: 'tok-exp@x.io' });
    assert.equal((await store.tokens.createWithExpiresIn(u.id, 'n', '')).token.expiresAt, null);
    assert.equal((await store.tokens.createWithExpiresIn(u.id, 'm', '720h')).token.expiresAt, clock.now + 30 * 86_400_000);
    assert.equal((await store.tokens.createWithExpiresIn(u.id, 'q', '2160h')).token.expiresAt, clock.now + 90 * 86_400_000);
    assert.equal((await store.tokens.createWithExpiresIn(u.id, 'y', '8760h')).token.expiresAt, clock.now + 365 * 86_400_000);
    for (const bad of ['1h', '30d', 'never', '__proto__', 'toString']) {
      await assert.rejects(store.tokens.createWithExpiresIn(u.id, 'x', bad), (e) => isAppError(e) && e.code === 'BAD_REQUEST', bad);
    }
    await assert.rejects(store.tokens.create(u.id, '   '), /name is required/);
    await assert.rejects(store.tokens.create(u.id, 'x'.repeat(256)), /at most 255/);
    await assert.rejects(store.tokens.create(u.id, 'past', clock.now), /future/);
    assert.equal((await store.tokens.listForUser(u.id)).length, 4, 'refused writes inserted nothing');
  });

  test('touch records the last use', async () => {
    const { store, clock } = ctx();
    const u = await store.users.create({ email: 'tok-touch@x.io' });
    const { token } = await store.tokens.create(u.id, 't');
    clock.now += 5000;
    await store.tokens.touch(token.id);
    assert.equal((await store.tokens.findById(token.id))?.lastUsedAt, clock.now);
  });
});
