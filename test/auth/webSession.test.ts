import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { get, sessionCookie, type RawResponse } from '../helpers/server.js';
import { startProbedServer, type ProbedServer } from './support/probes.js';

const cookieLine = (r: RawResponse, name: string) => (r.headers.raw['set-cookie'] ?? []).find((c) => c.startsWith(`${name}=`));
const sessionOf = (r: RawResponse) => /^session=([^;]+)/.exec(cookieLine(r, 'session') ?? '')?.[1];
const HEADER = 'x-forwarded-email';

describe('forward-auth from a trusted proxy', () => {
  let p: ProbedServer;
  before(async () => {
    p = await startProbedServer({
      JOE_AUTH_PROXY_HEADER: 'X-Forwarded-Email',
      JOE_TRUSTED_PROXIES: '127.0.0.1, ::1',
      JOE_ADMIN_EMAIL: 'root@corp.io',
    });
  });
  after(async () => p.s.stop());

  test('a vouched-for email signs in a new local user and creates a session', async () => {
    const r = await get(`${p.s.url}/dashboard/probe`, { [HEADER]: 'Nina.Park@Corp.io' });
    assert.equal(r.status, 200);
    assert.equal(await r.text(), 'user:Nina.Park@Corp.io');
    const token = sessionOf(r);
    assert.ok(token, 'a session cookie is set');
    assert.match(cookieLine(r, 'session')!, /HttpOnly; SameSite=Lax/);
    const u = await p.s.store.users.findByIdentity('local', 'nina.park@corp.io');
    assert.ok(u);
    assert.equal(u.email, 'Nina.Park@Corp.io');
    assert.equal(u.displayName, 'Nina.Park');
    assert.equal(u.role, 'user');
    assert.equal((await p.s.store.sessions.get(token))?.userId, u.id);

    // The same browser keeps its session: no new login on every request.
    const again = await get(`${p.s.url}/dashboard/probe`, { [HEADER]: 'nina.park@corp.io', cookie: `session=${token}` });
    assert.equal(again.status, 200);
    assert.equal(cookieLine(again, 'session'), undefined);
  });

  test('an existing user is found, and JOE_ADMIN_EMAIL applies at the login', async () => {
    const existing = await p.s.store.users.create({ email: 'root@corp.io' });
    const r = await get(`${p.s.url}/admin/probe`, { [HEADER]: 'root@corp.io' });
    assert.equal(r.status, 200);
    assert.equal(await r.text(), 'admin:root@corp.io');
    const u = await p.s.store.users.findById(existing.id);
    assert.equal(u?.role, 'admin');
    assert.equal(u?.roleSource, 'config');
  });

  test('a header naming someone else replaces the session of the previous user', async () => {
    const first = await get(`${p.s.url}/dashboard/probe`, { [HEADER]: 'omar@corp.io' });
    const omarToken = sessionOf(first)!;
    const r = await get(`${p.s.url}/dashboard/probe`, { [HEADER]: 'pia@corp.io', cookie: `session=${omarToken}` });
    assert.equal(await r.text(), 'user:pia@corp.io');
    assert.ok(sessionOf(r));
    assert.notEqual(sessionOf(r), omarToken);
    assert.equal(await p.s.store.sessions.get(omarToken), null);
  });

  test('requests without the header fall back to their session', async () => {
    const first = await get(`${p.s.url}/dashboard/probe`, { [HEADER]: 'quinn@corp.io' });
    const token = sessionOf(first)!;
    const r = await get(`${p.s.url}/dashboard/probe`, { cookie: `session=${token}` });
    assert.equal(r.status, 200);
    assert.equal(await r.text(), 'user:quinn@corp.io');
    assert.equal((await get(`${p.s.url}/dashboard/probe`)).status, 302, 'no header, no session: sign in');
  });

  test('a header that is not an email is ignored', async () => {
    for (const bad of ['', 'not-an-email', 'a@b.io, root@corp.io', 'root@corp.io; x', '<root@corp.io>', `${'a'.repeat(260)}@corp.io`]) {
      const r = await get(`${p.s.url}/dashboard/probe`, { [HEADER]: bad });
      assert.equal(r.status, 302, JSON.stringify(bad));
      assert.equal(cookieLine(r, 'session'), undefined);
    }
  });

  test('the API never accepts the proxy header or the session it made', async () => {
    const r = await get(`${p.s.url}/api/v1/users/me`, { [HEADER]: 'root@corp.io' });
    assert.equal(r.status, 401);
    assert.equal(cookieLine(r, 'session'), undefined);
  });

  test('/auth/login says sign-in happens at the proxy; /auth/local does not exist', async () => {
    const r = await get(`${p.s.url}/auth/login`);
    assert.equal(r.status, 200);
    assert.match(await r.text(), /Sign-in happens at the authenticating proxy/);
    assert.equal((await get(`${p.s.url}/auth/local?token=${'a'.repeat(43)}`)).status, 404);
    const signedIn = await get(`${p.s.url}/auth/login?return_url=%2Fdashboard%2Fprobe`, { [HEADER]: 'rae@corp.io' });
    assert.equal(signedIn.status, 302);
    assert.equal(signedIn.headers.get('location'), '/dashboard/probe');
  });

  test('logout ends the joe-links session', async () => {
    const first = await get(`${p.s.url}/dashboard/probe`, { [HEADER]: 'sol@corp.io' });
    const token = sessionOf(first)!;
    const r = await get(`${p.s.url}/auth/logout`, { cookie: `session=${token}` }, 'POST');
    assert.equal(r.status, 302);
    assert.equal(r.headers.get('location'), '/');
    assert.equal(await p.s.store.sessions.get(token), null);
  });
});

describe('forward-auth header from an untrusted peer', () => {
  let p: ProbedServer;
  before(async () => {
    // The test client connects from 127.0.0.1, which this list does not contain.
    p = await startProbedServer({
      JOE_AUTH_PROXY_HEADER: 'X-Forwarded-Email',
      JOE_TRUSTED_PROXIES: '10.0.0.0/8',
      JOE_ADMIN_EMAIL: 'root@corp.io',
    });
  });
  after(async () => p.s.stop());

  test('a spoofed header signs nobody in and creates nobody', async () => {
    const r = await get(`${p.s.url}/dashboard/probe`, { [HEADER]: 'root@corp.io', 'x-forwarded-for': '10.0.0.1', 'x-real-ip': '10.0.0.1' });
    assert.equal(r.status, 302);
    assert.match(r.headers.get('location')!, /^\/auth\/login/);
    assert.equal(cookieLine(r, 'session'), undefined);
    assert.equal(await p.s.store.users.findByEmail('root@corp.io'), null);
    assert.equal((await get(`${p.s.url}/admin/probe`, { [HEADER]: 'root@corp.io' })).status, 302);
  });

  test("a spoofed header does not switch a signed-in user's identity", async () => {
    const mia = await p.s.store.users.create({ email: 'mia@corp.io' });
    await p.s.store.users.create({ email: 'root@corp.io', role: 'admin' });
    const cookie = await sessionCookie(p.s.store, mia);
    const r = await get(`${p.s.url}/admin/probe`, { cookie, [HEADER]: 'root@corp.io' });
    assert.equal(r.status, 403, 'still Mia, who is no admin');
    assert.equal(cookieLine(r, 'session'), undefined);
    assert.equal(await (await get(`${p.s.url}/dashboard/probe`, { cookie, [HEADER]: 'root@corp.io' })).text(), 'user:mia@corp.io');
    assert.ok(await p.s.store.sessions.get(cookie.slice('session='.length)), 'her session is intact');
  });
});
