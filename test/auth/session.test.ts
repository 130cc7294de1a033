import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { get, sessionCookie, type RawResponse } from '../helpers/server.js';
import { startProbedServer, type ProbedServer } from './support/probes.js';

const cookieLine = (r: RawResponse, name: string) => (r.headers.raw['set-cookie'] ?? []).find((c) => c.startsWith(`${name}=`));

/** Signs `email` in through a real one-time link and returns the session cookie header. */
async function signIn(p: ProbedServer, email: string, cookie?: string): Promise<{ cookie: string; token: string; response: RawResponse }> {
  const user = (await p.s.store.users.findByEmail(email)) ?? (await p.s.store.users.create({ email }));
  const token = await p.s.store.loginTokens.create(user.id);
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (cookie) headers.cookie = cookie;
  const r = await get(`${p.s.url}/auth/local`, headers, 'POST', `token=${token}`);
  assert.equal(r.status, 302, await r.text());
  const session = /^session=([^;]+)/.exec(cookieLine(r, 'session') ?? '')?.[1];
  assert.ok(session);
  return { cookie: `session=${session}`, token: session, response: r };
}

describe('sessions and route guards', () => {
  const clock = { offset: 0 };
  let p: ProbedServer;
  before(async () => {
    p = await startProbedServer({ JOE_SESSION_LIFETIME: '2h' }, { now: () => Date.now() + clock.offset });
  });
  after(async () => p.s.stop());

  test('the session cookie is HttpOnly, SameSite=Lax, Path=/ and lives as long as the session', async () => {
    const { response } = await signIn(p, 'cookie@x.io');
    const line = cookieLine(response, 'session')!;
    assert.match(line, /^session=[A-Za-z0-9_-]{43};/);
    assert.match(line, /; HttpOnly/);
    assert.match(line, /; SameSite=Lax/);
    assert.match(line, /; Path=\//);
    assert.match(line, /; Max-Age=7200/);
    assert.doesNotMatch(line, /Secure/, 'JOE_INSECURE_COOKIES=true drops Secure');
  });

  test('unauthenticated requests to guarded pages go to sign-in with the full request URI', async () => {
    const r = await get(`${p.s.url}/dashboard/probe?x=1&y=a%20b`);
    assert.equal(r.status, 302);
    assert.equal(r.headers.get('location'), `/auth/login?return_url=${encodeURIComponent('/dashboard/probe?x=1&y=a%20b')}`);
    const admin = await get(`${p.s.url}/admin/probe`);
    assert.equal(admin.status, 302);
    assert.equal(admin.headers.get('location'), '/auth/login?return_url=%2Fadmin%2Fprobe');
    const htmx = await get(`${p.s.url}/dashboard/probe`, { 'hx-request': 'true' });
    assert.equal(htmx.headers.get('hx-redirect'), '/auth/login?return_url=%2Fdashboard%2Fprobe');
    for (const bad of [
      'session=',
      'session=../../etc',
      `session=${'A'.repeat(43)}`,
      `session=${'A'.repeat(5000)}`,
      'session=%E0%A4%A',
      'session',
    ]) {
      const g = await get(`${p.s.url}/dashboard/probe`, { cookie: bad });
      assert.equal(g.status, 302, bad);
    }
  });

  test('users reach user pages; admin pages give them the styled 403, admins get in', async () => {
    const { cookie } = await signIn(p, 'plain@x.io');
    const page = await get(`${p.s.url}/dashboard/probe`, { cookie });
    assert.equal(page.status, 200);
    assert.equal(await page.text(), 'user:plain@x.io');
    const denied = await get(`${p.s.url}/admin/probe`, { cookie });
    assert.equal(denied.status, 403);
    const html = await denied.text();
    assert.match(html, /Access denied/);
    assert.match(html, /<html/);
    const fragment = await get(`${p.s.url}/admin/probe`, { cookie, 'hx-request': 'true' });
    assert.equal(fragment.status, 403);
    assert.doesNotMatch(await fragment.text(), /<html/);

    // Roles are re-read on every request: a promotion applies without signing in again.
    const u = (await p.s.store.users.findByEmail('plain@x.io'))!;
    await p.s.store.users.setRole(u.id, 'admin', 'manual');
    assert.equal((await get(`${p.s.url}/admin/probe`, { cookie })).status, 200);
    await p.s.store.users.setRole(u.id, 'user', 'manual');
    assert.equal((await get(`${p.s.url}/admin/probe`, { cookie })).status, 403);
  });

  test('every sign-in rotates the token and replaces the session the browser had', async () => {
    const first = await signIn(p, 'rotate@x.io');
    const second = await signIn(p, 'rotate@x.io', first.cookie);
    assert.notEqual(second.token, first.token);
    assert.equal(await p.s.store.sessions.get(first.token), null);
    const other = await signIn(p, 'someone-else@x.io', second.cookie);
    assert.equal(await p.s.store.sessions.get(second.token), null, "another user's session is replaced");
    assert.equal(await (await get(`${p.s.url}/dashboard/probe`, { cookie: other.cookie })).text(), 'user:someone-else@x.io');
  });

  test('sessions expire absolutely after JOE_SESSION_LIFETIME', async () => {
    const { cookie } = await signIn(p, 'expiry@x.io');
    clock.offset = 2 * 3_600_000 - 60_000;
    assert.equal((await get(`${p.s.url}/dashboard/probe`, { cookie })).status, 200, 'still valid just before');
    clock.offset = 2 * 3_600_000 + 1;
    const r = await get(`${p.s.url}/dashboard/probe`, { cookie });
    clock.offset = 0;
    assert.equal(r.status, 302);
    assert.match(r.headers.get('location')!, /^\/auth\/login\?return_url=/);
  });

  test('a session whose user vanished is destroyed and the browser sent to /auth/login', async () => {
    const { cookie, token } = await signIn(p, 'vanish@x.io');
    const u = (await p.s.store.users.findByEmail('vanish@x.io'))!;
    await p.s.store.db.kysely.deleteFrom('users').where('id', '=', u.id).execute();
    for (const path of ['/dashboard/probe', '/']) {
      const again = path === '/' ? await sessionCookie(p.s.store, u) : cookie;
      const r = await get(`${p.s.url}${path}`, { cookie: again });
      assert.equal(r.status, 302, path);
      assert.equal(r.headers.get('location'), '/auth/login', path);
      assert.match(cookieLine(r, 'session') ?? '', /Expires=Thu, 01 Jan 1970/, `${path}: cookie cleared`);
      assert.equal(await p.s.store.sessions.get(again.slice('session='.length)), null, `${path}: row deleted`);
    }
    assert.equal(await p.s.store.sessions.get(token), null);
  });

  test('POST /auth/logout deletes the session, clears the cookie and lands on /', async () => {
    const { cookie, token } = await signIn(p, 'bye@x.io');
    const getLogout = await get(`${p.s.url}/auth/logout`, { cookie });
    assert.equal(getLogout.status, 200, 'GET renders a confirmation');
    assert.match(await getLogout.text(), /<form method="post" action="\/auth\/logout"/);
    assert.ok(await p.s.store.sessions.get(token), 'GET logs nobody out');
    assert.equal(cookieLine(getLogout, 'session'), undefined);

    const r = await get(`${p.s.url}/auth/logout`, { cookie }, 'POST');
    assert.equal(r.status, 302);
    assert.equal(r.headers.get('location'), '/');
    assert.equal(await p.s.store.sessions.get(token), null);
    const cleared = cookieLine(r, 'session')!;
    assert.match(cleared, /^session=;/);
    assert.match(cleared, /Expires=Thu, 01 Jan 1970/);
    assert.match(cleared, /; Path=\//);
    assert.equal((await get(`${p.s.url}/dashboard/probe`, { cookie })).status, 302);
    assert.equal((await get(`${p.s.url}/auth/logout`, {}, 'POST')).status, 302, 'logging out without a session is harmless');
  });

  test('a cross-site logout is refused and the session survives', async () => {
    const { cookie, token } = await signIn(p, 'csrf-logout@x.io');
    const r = await get(`${p.s.url}/auth/logout`, { cookie, origin: 'https://evil.example' }, 'POST');
    assert.equal(r.status, 403);
    assert.ok(await p.s.store.sessions.get(token));
    const fetchMeta = await get(`${p.s.url}/auth/logout`, { cookie, 'sec-fetch-site': 'cross-site' }, 'POST');
    assert.equal(fetchMeta.status, 403);
    assert.ok(await p.s.store.sessions.get(token));
  });
});

describe('secure cookies by default', () => {
  let p: ProbedServer;
  before(async () => {
    p = await startProbedServer({ JOE_INSECURE_COOKIES: 'false' });
  });
  after(async () => p.s.stop());

  test('without JOE_INSECURE_COOKIES the session cookie is Secure', async () => {
    const { response } = await signIn(p, 'secure@x.io');
    assert.match(cookieLine(response, 'session')!, /; Secure/);
  });
});
