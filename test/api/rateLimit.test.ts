import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createLink } from '../helpers/links.js';
import { get, sessionCookie, type RawResponse, type TestServer } from '../helpers/server.js';
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

describe('the click CSV export: one budget per user across the web and API routes (docs/api.md#rate-limits)', () => {
  let s: TestServer;
  before(async () => {
    s = await startApi({ env: { JOE_API_RATE_LIMIT: String(LIMIT) } });
  });
  after(async () => s.stop());

  /** A user with a link of their own, a browser session and an API token. */
  async function exporter(name: string) {
    const a = await actor(s, name);
    const link = await createLink(s.store, { slug: `${name}-${a.user.id.slice(0, 8)}`, url: 'https://example.com/' }, a.user.id);
    const cookie = await sessionCookie(s.store, a.user);
    return {
      a,
      linkId: link.id,
      web: () => get(`${s.url}/dashboard/links/${link.id}/stats/export`, { cookie }),
      api: () => get(`${s.url}/api/v1/links/${link.id}/stats/export`, { authorization: `Bearer ${a.token}` }),
    };
  }

  async function assertWebLimited(r: RawResponse): Promise<void> {
    assert.equal(r.status, 429);
    assert.match(r.headers.get('content-type') ?? '', /^text\/html/);
    assert.ok(r.headers.get('content-security-policy'), 'a page with the usual security headers');
    assertRetryAfter(r);
    assert.match(await r.text(), /Too many requests/);
  }

  function assertRetryAfter(r: RawResponse): void {
    const retry = Number(r.headers.get('retry-after'));
    assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= 60, `Retry-After ${r.headers.get('retry-after')}`);
  }

  test('exports from the browser use up the budget: the web route answers the 429 page, the API export 429 RATE_LIMITED', async () => {
    const carol = await exporter('carol');
    for (let i = 0; i < LIMIT; i++) {
      const r = await carol.web();
      assert.equal(r.status, 200, `web export ${i + 1}`);
      assert.match(r.headers.get('content-type') ?? '', /^text\/csv/);
    }
    await assertWebLimited(await carol.web());
    const api = await carol.api();
    assert.equal(api.status, 429);
    assert.equal(JSON.parse(await api.text()).code, 'RATE_LIMITED');
    assertRetryAfter(api);
    // Only exports are spent: the token's own budget is untouched, and another user exports freely.
    assert.equal((await call(s, 'GET', '/api/v1/users/me', { as: carol.a })).status, 200);
    assert.equal((await (await exporter('dave')).web()).status, 200);
  });

  test('exports through the API use up the same budget: the web export is then refused too', async () => {
    const erin = await exporter('erin');
    for (let i = 0; i < LIMIT; i++) assert.equal((await erin.api()).status, 200, `API export ${i + 1}`);
    const api = await erin.api();
    assert.equal(api.status, 429);
    assertRetryAfter(api);
    await assertWebLimited(await erin.web());
  });

  test('a second token of the same user shares the user’s export budget', async () => {
    const frank = await exporter('frank');
    for (let i = 0; i < LIMIT; i++) assert.equal((await frank.web()).status, 200);
    const { plaintext } = await s.store.tokens.create(frank.a.user.id, 'second');
    const second = await call(s, 'GET', `/api/v1/links/${frank.linkId}/stats/export`, { as: plaintext });
    assertError(second, 429, 'RATE_LIMITED', 'a fresh token is no fresh export budget');
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
