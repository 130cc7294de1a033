import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { bootstrapLocalAdmin } from '../../src/auth/localLogin.js';
import { get, startTestServer, type RawResponse, type TestServer } from '../helpers/server.js';

const cookieLine = (r: RawResponse, name: string) => (r.headers.raw['set-cookie'] ?? []).find((c) => c.startsWith(`${name}=`));
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const INVALID = /This sign-in link is invalid or has expired/;
describe('local mode sign-in links', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ env: { JOE_ADMIN_EMAIL: 'chief@x.io', JOE_BASE_URL: 'http://go.test' } });
  });
  after(async () => s.stop());

  const tokenFor = async (email: string) => {
    const u = (await s.store.users.findByEmail(email)) ?? (await s.store.users.create({ email }));
    return s.store.loginTokens.create(u.id);
  };

  test('GET /auth/login explains where sign-in links come from', async () => {
    const r = await get(`${s.url}/auth/login`);
    assert.equal(r.status, 200);
    assert.match(await r.text(), /joe-links login-url --email you@/);
  });

  test('GET shows a confirmation without using the link; the button signs in once', async () => {
    const token = await tokenFor('lena@x.io');
    for (let i = 0; i < 3; i++) {
      const page = await get(`${s.url}/auth/local?token=${token}`);
      assert.equal(page.status, 200);
      const html = await page.text();
      assert.match(html, /Sign in to joe-links as lena@x.io/);
      assert.match(html, /<form method="post" action="\/auth\/local">/);
      assert.match(html, new RegExp(`<input type="hidden" name="token" value="${token}"/>`));
      assert.equal(cookieLine(page, 'session'), undefined);
      assert.equal(page.headers.get('referrer-policy'), 'same-origin', 'the token never leaves in a Referer to another site');
    }
    const r = await get(`${s.url}/auth/local`, { ...FORM, origin: 'http://go.test' }, 'POST', `token=${token}`);
    assert.equal(r.status, 302);
    assert.equal(r.headers.get('location'), '/dashboard');
    const session = /^session=([^;]+)/.exec(cookieLine(r, 'session')!)![1]!;
    assert.equal((await s.store.sessions.get(session))?.userId, (await s.store.users.findByEmail('lena@x.io'))!.id);

    const reuse = await get(`${s.url}/auth/local`, FORM, 'POST', `token=${token}`);
    assert.equal(reuse.status, 400);
    assert.match(await reuse.text(), INVALID);
    assert.equal(cookieLine(reuse, 'session'), undefined);
    const view = await get(`${s.url}/auth/local?token=${token}`);
    assert.equal(view.status, 400);
    assert.match(await view.text(), INVALID);
  });

  test('unknown, malformed, missing and expired links get the styled 400 and no cookie', async () => {
    const expiredUser = await s.store.users.create({ email: 'late@x.io' });
    const expired = await s.store.loginTokens.create(expiredUser.id, 1);
    await new Promise((r) => setTimeout(r, 10));
    for (const t of ['', 'A'.repeat(43), 'not a token', '%00', 'x'.repeat(10_000), expired]) {
      const g = await get(`${s.url}/auth/local?token=${encodeURIComponent(t)}`);
      assert.equal(g.status, 400, `GET ${t.slice(0, 20)}`);
      assert.match(await g.text(), INVALID);
      const p = await get(`${s.url}/auth/local`, FORM, 'POST', `token=${encodeURIComponent(t)}`);
      assert.equal(p.status, 400, `POST ${t.slice(0, 20)}`);
      assert.equal(cookieLine(p, 'session'), undefined);
    }
    assert.equal((await get(`${s.url}/auth/local`)).status, 400);
    assert.equal((await get(`${s.url}/auth/local?token=a&token=b`)).status, 400);
    assert.equal((await get(`${s.url}/auth/local`, FORM, 'POST', '')).status, 400);
    assert.equal((await get(`${s.url}/auth/local`, FORM, 'POST', 'token=a&token=b')).status, 400);
    assert.equal((await get(`${s.url}/auth/local`, { 'content-type': 'application/json' }, 'POST', '{"token":5}')).status, 400);
    assert.equal((await get(`${s.url}/auth/local`, { 'content-type': 'application/json' }, 'POST', '{bad json')).status, 400);
  });

  test('the email on the confirmation page is escaped', async () => {
    const token = await tokenFor('"><script>alert(1)</script>@x.io');
    const html = await (await get(`${s.url}/auth/local?token=${token}`)).text();
    assert.doesNotMatch(html, /<script>alert/);
    assert.match(html, /&lt;script>alert\(1\)&lt;\/script>@x.io|&lt;script&gt;alert\(1\)&lt;\/script&gt;@x.io/);
  });

  test('the JOE_ADMIN_EMAIL grant applies at a link sign-in', async () => {
    const token = await tokenFor('chief@x.io');
    assert.equal((await s.store.users.findByEmail('chief@x.io'))?.role, 'user');
    const r = await get(`${s.url}/auth/local`, FORM, 'POST', `token=${token}`);
    assert.equal(r.status, 302);
    const u = await s.store.users.findByEmail('chief@x.io');
    assert.equal(u?.role, 'admin');
    assert.equal(u?.roleSource, 'config');
  });

  test('a cross-site POST is refused and leaves the link usable', async () => {
    const token = await tokenFor('victim@x.io');
    const r = await get(`${s.url}/auth/local`, { ...FORM, origin: 'https://evil.example' }, 'POST', `token=${token}`);
    assert.equal(r.status, 403);
    assert.equal(cookieLine(r, 'session'), undefined);
    assert.ok(await s.store.loginTokens.peek(token), 'not consumed');
  });

  test('of concurrent POSTs with one link exactly one signs in', async () => {
    const token = await tokenFor('race@x.io');
    const results = await Promise.all(Array.from({ length: 6 }, () => get(`${s.url}/auth/local`, FORM, 'POST', `token=${token}`)));
    assert.equal(results.filter((r) => r.status === 302).length, 1);
    assert.equal(results.filter((r) => r.status === 400).length, 5);
  });

  test('/auth/callback does not exist in local mode', async () => {
    assert.equal((await get(`${s.url}/auth/callback?code=x&state=y`)).status, 404);
  });

  test('bootstrap: creates the admin when none exists, then does nothing', async () => {
    // This server already has an admin (chief@x.io), so nothing happens.
    assert.equal(await bootstrapLocalAdmin(s.store, s.config), null);
    assert.equal(await bootstrapLocalAdmin(s.store, { ...s.config, authMode: 'oidc' }), null);
  });
});
