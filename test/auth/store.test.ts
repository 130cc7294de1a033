import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sha256Hex } from '../../src/domain/secrets.js';
import { isAppError } from '../../src/domain/errors.js';
import { LOGIN_TOKEN_TTL_MS } from '../../src/store/loginTokens.js';
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

describeEachDatabase('one-time sign-in link store', (ctx) => {
  test('a link is stored hashed, previewed without being used, and consumed once', async () => {
    const { store, db } = ctx();
    const u = await store.users.create({ email: 'link-once@x.io' });
    const token = await store.loginTokens.create(u.id);
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    const row = await db.kysely.selectFrom('login_tokens').selectAll().where('user_id', '=', u.id).executeTakeFirstOrThrow();
    assert.equal(row.token_hash, sha256Hex(token));
    assert.equal(Number(row.expires_at) - Number(row.created_at), LOGIN_TOKEN_TTL_MS);
    assert.equal((await store.loginTokens.peek(token))?.email, 'link-once@x.io');
    assert.equal((await store.loginTokens.peek(token))?.email, 'link-once@x.io', 'peeking twice uses nothing');
    assert.equal(await store.loginTokens.consume(token), u.id);
    assert.equal(await store.loginTokens.consume(token), null);
    assert.equal(await store.loginTokens.peek(token), null);
  });

  test('expired, unknown and malformed tokens do nothing', async () => {
    const { store, clock } = ctx();
    const u = await store.users.create({ email: 'link-exp@x.io' });
    const token = await store.loginTokens.create(u.id);
    clock.now += LOGIN_TOKEN_TTL_MS;
    assert.equal(await store.loginTokens.peek(token), null);
    assert.equal(await store.loginTokens.consume(token), null);
    for (const bad of ['', 'x', `${token}x`, token.slice(1), 'a'.repeat(5000), "' or 1=1 --"]) {
      assert.equal(await store.loginTokens.consume(bad), null);
    }
    assert.ok((await store.loginTokens.deleteSpent()) >= 1);
  });

  test('of concurrent attempts exactly one consumes the token', async () => {
    const { store } = ctx();
    const u = await store.users.create({ email: 'link-race@x.io' });
    const token = await store.loginTokens.create(u.id);
    const results = await Promise.all(Array.from({ length: 8 }, () => store.loginTokens.consume(token)));
    assert.equal(results.filter((r) => r === u.id).length, 1);
    assert.equal(results.filter((r) => r === null).length, 7);
  });

  test('deleting the user deletes their links', async () => {
    const { store, db } = ctx();
    const u = await store.users.create({ email: 'link-cascade@x.io' });
    const token = await store.loginTokens.create(u.id);
    await db.kysely.deleteFrom('users').where('id', '=', u.id).execute();
    assert.equal(await store.loginTokens.consume(token), null);
  });
});

describeEachDatabase('sign-in identity store', (ctx) => {
  const ISS = 'https://idp.example';
  const USER = { role: 'user', roleSource: 'manual' } as const;

  test('the first OIDC login inserts, later ones refresh profile fields and never the role', async () => {
    const { store, clock } = ctx();
    const created = await store.identities.upsertOidc(
      { issuer: ISS, subject: 'o-1', email: 'olga@x.io', emailVerified: true, name: 'Olga Berg' },
      USER,
    );
    assert.equal(created.provider, ISS);
    assert.equal(created.subject, 'o-1');
    assert.equal(created.displayNameSlug, 'olga-berg');
    assert.equal(created.role, 'user');
    await store.users.setRole(created.id, 'admin', 'manual');
    clock.now += 1000;
    const again = await store.identities.upsertOidc(
      { issuer: ISS, subject: 'o-1', email: 'olga.berg@x.io', emailVerified: true, name: "Olga O'Berg" },
      { role: 'user', roleSource: 'config' },
    );
    assert.equal(again.id, created.id);
    assert.equal(again.email, 'olga.berg@x.io');
    assert.equal(again.displayName, "Olga O'Berg");
    assert.equal(again.displayNameSlug, 'olga-oberg');
    assert.equal(again.role, 'admin');
    assert.equal(again.roleSource, 'manual');
    assert.equal(again.updatedAt, clock.now);
    const blank = await store.identities.upsertOidc(
      { issuer: ISS, subject: 'o-1', email: 'olga.berg@x.io', emailVerified: true, name: '' },
      USER,
    );
    assert.equal(blank.displayName, "Olga O'Berg", 'an empty name claim keeps the name');
  });

  test('a new row can start as a configured admin, and profile slugs get -2 on collision', async () => {
    const { store } = ctx();
    const one = await store.identities.upsertOidc(
      { issuer: ISS, subject: 'p-1', email: 'p1@x.io', emailVerified: true, name: 'Pat Doe' },
      { role: 'admin', roleSource: 'config' },
    );
    const two = await store.identities.upsertOidc(
      { issuer: ISS, subject: 'p-2', email: 'p2@x.io', emailVerified: true, name: 'Pat Doe' },
      USER,
    );
    assert.equal(one.role, 'admin');
    assert.equal(one.roleSource, 'config');
    assert.equal(one.displayNameSlug, 'pat-doe');
    assert.equal(two.displayNameSlug, 'pat-doe-2');
    const noName = await store.identities.upsertOidc(
      { issuer: ISS, subject: 'p-3', email: 'quinn@x.io', emailVerified: false, name: '' },
      USER,
    );
    assert.equal(noName.displayName, 'quinn');
  });

  test('a verified email adopts the matching local account; an unverified one does not', async () => {
    const { store } = ctx();
    const local = await store.users.create({ email: 'Rita@X.io', displayName: 'Rita' });
    const tok = await store.tokens.create(local.id, 'kept');
    const stranger = await store.identities.upsertOidc(
      { issuer: ISS, subject: 'r-evil', email: 'rita@x.io', emailVerified: false, name: 'Rita?' },
      USER,
    );
    assert.notEqual(stranger.id, local.id, 'an unverified email never takes over an account');
    const adopted = await store.identities.upsertOidc(
      { issuer: ISS, subject: 'r-1', email: 'rita@x.io', emailVerified: true, name: 'Rita Real' },
      USER,
    );
    assert.equal(adopted.id, local.id);
    assert.equal(adopted.provider, ISS);
    assert.equal(adopted.subject, 'r-1');
    assert.equal(adopted.email, 'rita@x.io');
    assert.equal((await store.tokens.authenticate(tok.plaintext))?.user.id, local.id, 'tokens stay with the account');
    const again = await store.identities.upsertOidc(
      { issuer: ISS, subject: 'r-2', email: 'rita@x.io', emailVerified: true, name: 'Rita Two' },
      USER,
    );
    assert.notEqual(again.id, local.id, 'an adopted account is no longer local, so it is not adopted twice');
  });

  test('concurrent first logins of one identity make one row', async () => {
    const { store, db } = ctx();
    const id = { issuer: ISS, subject: 'race-1', email: 'race@x.io', emailVerified: true, name: 'Race Person' };
    const users = await Promise.all(Array.from({ length: 5 }, () => store.identities.upsertOidc(id, USER)));
    assert.equal(new Set(users.map((u) => u.id)).size, 1);
    const rows = await db.kysely.selectFrom('users').select('id').where('subject', '=', 'race-1').execute();
    assert.equal(rows.length, 1);
  });

  test('forward-auth finds or creates a local user named after the email', async () => {
    const { store } = ctx();
    const made = await store.identities.findOrCreateLocal('Sam.Lee@Example.com');
    assert.equal(made.provider, 'local');
    assert.equal(made.subject, 'sam.lee@example.com');
    assert.equal(made.displayName, 'Sam.Lee');
    assert.equal((await store.identities.findOrCreateLocal('sam.lee@example.com')).id, made.id);
    const oidc = await store.identities.upsertOidc(
      { issuer: ISS, subject: 't-1', email: 'tia@x.io', emailVerified: true, name: 'Tia' },
      USER,
    );
    assert.equal((await store.identities.findOrCreateLocal('tia@x.io')).id, oidc.id, 'an existing account with the email is used');
    const racers = await Promise.all(Array.from({ length: 5 }, () => store.identities.findOrCreateLocal('uma@x.io')));
    assert.equal(new Set(racers.map((u) => u.id)).size, 1);
  });

  test('configuration role writes and the bootstrap admin', async () => {
    const { store, db } = ctx();
    const v = await store.users.create({ email: 'vic@x.io' });
    await store.identities.setRoleFromConfig(v.id, 'admin');
    const promoted = await store.users.findById(v.id);
    assert.equal(promoted?.role, 'admin');
    assert.equal(promoted?.roleSource, 'config');
    assert.equal(await store.identities.ensureBootstrapAdmin('admin@localhost'), null, 'an admin exists');

    await db.kysely.updateTable('users').set({ role: 'user' }).execute();
    const boot = await store.identities.ensureBootstrapAdmin('admin@localhost');
    assert.equal(boot?.action, 'created');
    assert.equal(boot?.user.role, 'admin');
    assert.equal(boot?.user.roleSource, 'manual');
    assert.equal(boot?.user.provider, 'local');

    await db.kysely.updateTable('users').set({ role: 'user' }).execute();
    const again = await store.identities.ensureBootstrapAdmin('vic@x.io');
    assert.equal(again?.action, 'promoted');
    assert.equal(again?.user.id, v.id);
    assert.equal(again?.user.roleSource, 'manual');
  });
});
