import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sha256Hex } from '../../src/domain/secrets.js';
import { eventually, get, sessionCookie, startTestServer, type RawResponse, type TestServer } from '../helpers/server.js';

const UNAUTHORIZED = '{"error":"unauthorized","code":"UNAUTHORIZED"}';

async function assertUnauthorized(r: RawResponse, why: string): Promise<void> {
  assert.equal(r.status, 401, why);
  assert.equal(await r.text(), UNAUTHORIZED, why);
  assert.match(r.headers.get('content-type') ?? '', /^application\/json/, why);
  assert.equal(r.headers.get('set-cookie'), null, `${why}: no cookie`);
}

describe('personal access tokens on /api/v1', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => s.stop());

  const me = (headers: Record<string, string>) => get(`${s.url}/api/v1/users/me`, headers);

  test('GET /api/v1/users/me answers the token owner', async () => {
    const u = await s.store.users.create({ email: 'api-me@x.io', displayName: 'Api Me', role: 'admin' });
    const { plaintext } = await s.store.tokens.create(u.id, 'cli');
    const r = await me({ authorization: `Bearer ${plaintext}` });
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(r.headers.get('set-cookie'), null);
    assert.deepEqual(JSON.parse(await r.text()), {
      id: u.id,
      email: 'api-me@x.io',
      display_name: 'Api Me',
      role: 'admin',
      role_source: 'manual',
      created_at: new Date(u.createdAt).toISOString(),
    });
    assert.match(JSON.parse(await r.text()).created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  });

  test('last_used_at is recorded shortly after a use', async () => {
    const u = await s.store.users.create({ email: 'api-touch@x.io' });
    const { plaintext, token } = await s.store.tokens.create(u.id, 't');
    assert.equal((await me({ authorization: `Bearer ${plaintext}` })).status, 200);
    await eventually(async () => (await s.store.tokens.findById(token.id))?.lastUsedAt !== null);
  });

  test('every bad credential gets the same 401 body', async () => {
    const u = await s.store.users.create({ email: 'api-bad@x.io' });
    const { plaintext } = await s.store.tokens.create(u.id, 'good');
    const revoked = await s.store.tokens.create(u.id, 'revoked');
    await s.store.tokens.revoke(u.id, revoked.token.id);
    const expired = await s.store.tokens.create(u.id, 'expired', s.store.now() + 50);
    const gone = await s.store.users.create({ email: 'api-gone@x.io' });
    const orphan = await s.store.tokens.create(gone.id, 'orphan');
    await s.store.db.kysely.deleteFrom('users').where('id', '=', gone.id).execute();
    await new Promise((r) => setTimeout(r, 60));

    const cases: Array<[string, Record<string, string>]> = [
      ['no header', {}],
      ['empty bearer', { authorization: 'Bearer ' }],
      ['lower-case scheme', { authorization: `bearer ${plaintext}` }],
      ['other scheme', { authorization: `Token ${plaintext}` }],
      ['basic', { authorization: `Basic ${Buffer.from(`x:${plaintext}`).toString('base64')}` }],
      ['no space', { authorization: `Bearer${plaintext}` }],
      ['double space', { authorization: `Bearer  ${plaintext}` }],
      ['trailing junk', { authorization: `Bearer ${plaintext} x` }],
      ['unknown token', { authorization: `Bearer jl_${'A'.repeat(43)}` }],
      ['the stored hash instead of the token', { authorization: `Bearer ${sha256Hex(plaintext)}` }],
      ['revoked', { authorization: `Bearer ${revoked.plaintext}` }],
      ['expired', { authorization: `Bearer ${expired.plaintext}` }],
      ['vanished user', { authorization: `Bearer ${orphan.plaintext}` }],
      ['oversized', { authorization: `Bearer jl_${'A'.repeat(8000)}` }],
      ['non-ascii', { authorization: 'Bearer jl_\u00e9\u00e9' }],
    ];
    for (const [why, headers] of cases) await assertUnauthorized(await me(headers), why);
  });

  test('a valid session cookie never authenticates the API, and the API sets no cookie', async () => {
    const u = await s.store.users.create({ email: 'api-cookie@x.io' });
    const cookie = await sessionCookie(s.store, u);
    await assertUnauthorized(await me({ cookie }), 'session only');
    await assertUnauthorized(await me({ cookie, authorization: 'Bearer jl_nope' }), 'session plus bad token');
    const { plaintext } = await s.store.tokens.create(u.id, 'with-cookie');
    const r = await me({ cookie, authorization: `Bearer ${plaintext}` });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('set-cookie'), null);
  });

  test('malformed cookies are a 401 on the API and no 500 on the web', async () => {
    for (const cookie of [
      'session=%E0%A4%A',
      'session="unterminated',
      '=;=;=',
      `session=${'x'.repeat(6000)}`,
      'session; session=; theme=%ZZ',
    ]) {
      await assertUnauthorized(await me({ cookie }), cookie.slice(0, 30));
      const web = await get(`${s.url}/`, { cookie });
      assert.ok(web.status < 500, `web ${cookie.slice(0, 30)}: ${web.status}`);
    }
  });

  test('unknown API paths answer the JSON 404 shape, never the resolver', async () => {
    for (const [method, path] of [
      ['GET', '/api/v1/no-such-thing'],
      ['GET', '/api/v1'],
      ['POST', '/api/v1/users/me/nothing'],
      ['DELETE', '/api/v1/x/y'],
    ]) {
      const r = await get(`${s.url}${path}`, {}, method);
      assert.equal(r.status, 404, `${method} ${path}`);
      assert.deepEqual(JSON.parse(await r.text()), { error: 'not found', code: 'NOT_FOUND' });
    }
  });
});
