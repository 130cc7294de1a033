import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { get, type TestServer } from '../helpers/server.js';
import { actor, assertError, call, startApi, type Actor } from './support.js';

const LIMIT = 5;

describe('rate limiting (docs/api.md#rate-limits)', () => {
  let s: TestServer;
  let alice: Actor;
  let bob: Actor;
  let admin: Actor;
  before(async () => {
    s = await startApi({ env: { JOE_API_RATE_LIMIT: String(LIMIT) } });
    alice = await actor(s, 'alice');
    bob = await actor(s, 'bob');
    admin = await actor(s, 'admin', { admin: true });
  });
  after(async () => s.stop());

  test('each token gets its budget per minute; the next request is 429 RATE_LIMITED with Retry-After', async () => {
    for (let i = 0; i < LIMIT; i++) assert.equal((await call(s, 'GET', '/api/v1/users/me', { as: alice })).status, 200, `request ${i + 1}`);
    const over = await call(s, 'GET', '/api/v1/links', { as: alice });
    assertError(over, 429, 'RATE_LIMITED');
    const retry = Number(over.headers.get('retry-after'));
    assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= 60, `Retry-After ${over.headers.get('retry-after')}`);
    assert.equal((await call(s, 'GET', '/api/v1/users/me', { as: bob })).status, 200, 'another token has its own budget');
    // The budget spans /mcp too, whatever answers there.
    assertError(await call(s, 'POST', '/mcp', { as: alice, body: {} }), 429, 'RATE_LIMITED');
  });

  test('the link export spends the same budget', async () => {
    for (let i = 0; i < LIMIT; i++) {
      const r = await get(`${s.url}/api/v1/links/export`, { authorization: `Bearer ${admin.token}` });
      assert.equal(r.status, 200);
      assert.match(r.headers.get('content-type') ?? '', /^application\/x-ndjson/);
    }
    assertError(await call(s, 'GET', '/api/v1/links/export', { as: admin }), 429, 'RATE_LIMITED');
  });

  test('public routes are budgeted per client address, and forwarded addresses are believed only from trusted proxies', async () => {
    for (let i = 0; i < LIMIT; i++) {
      assert.equal((await get(`${s.url}/api/v1/config`, { 'x-forwarded-for': `203.0.113.${i}` })).status, 200);
    }
    const over = await get(`${s.url}/api/v1/config`, { 'x-forwarded-for': '203.0.113.99' });
    assert.equal(over.status, 429, 'X-Forwarded-For from an untrusted peer changes nothing');
    assert.equal(JSON.parse(await over.text()).code, 'RATE_LIMITED');

    const proxied = await startApi({ env: { JOE_API_RATE_LIMIT: String(LIMIT), JOE_TRUSTED_PROXIES: '127.0.0.1' } });
    try {
      for (let i = 0; i < LIMIT; i++)
        assert.equal((await get(`${proxied.url}/api/v1/config`, { 'x-forwarded-for': '198.51.100.1' })).status, 200);
      assert.equal((await get(`${proxied.url}/api/v1/config`, { 'x-forwarded-for': '198.51.100.1' })).status, 429);
      assert.equal(
        (await get(`${proxied.url}/api/v1/config`, { 'x-forwarded-for': '198.51.100.2' })).status,
        200,
        'another client behind the proxy',
      );
    } finally {
      await proxied.stop();
    }
  });

  test('requests without a usable token spend their address’s budget, not a fresh one each', async () => {
    const other = await startApi({ env: { JOE_API_RATE_LIMIT: String(LIMIT) } });
    try {
      for (let i = 0; i < LIMIT; i++) {
        assert.equal((await call(other, 'GET', '/api/v1/links', { as: `junk-${i}` })).status, 401);
      }
      assertError(await call(other, 'GET', '/api/v1/links', { as: 'junk-new' }), 429, 'RATE_LIMITED');
      assertError(await call(other, 'GET', '/api/v1/links'), 429, 'RATE_LIMITED');
    } finally {
      await other.stop();
    }
  });
});

describe('rate limiting off', () => {
  let s: TestServer;
  before(async () => {
    s = await startApi({ env: { JOE_API_RATE_LIMIT: '0' } });
  });
  after(async () => s.stop());

  test('JOE_API_RATE_LIMIT=0 turns the limit off', async () => {
    const a = await actor(s, 'free');
    for (let i = 0; i < 40; i++) assert.equal((await call(s, 'GET', '/api/v1/users/me', { as: a })).status, 200);
    const r = await call(s, 'GET', '/api/v1/users/me', { as: a });
    assert.equal(r.headers.get('x-ratelimit-limit'), null);
  });
});
