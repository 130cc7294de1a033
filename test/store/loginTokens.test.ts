import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sha256Hex } from '../../src/domain/secrets.js';
import { LOGIN_TOKEN_TTL_MS } from '../../src/store/loginTokens.js';
import { describeEachDatabase } from '../helpers/databases.js';

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
