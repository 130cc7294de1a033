import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Writable } from 'node:stream';
import { get, startTestServer, type RawResponse, type TestServer } from '../../helpers/server.js';
import {
  authorize,
  callback,
  CLIENT_ID,
  login,
  newBrowser,
  REDIRECT_URL,
  startOidcProvider,
  type TestProvider,
} from '../support/oidcProvider.js';

function setCookies(r: RawResponse): string[] {
  return r.headers.raw['set-cookie'] ?? [];
}

function cookieLine(r: RawResponse, name: string): string | undefined {
  return setCookies(r).find((c) => c.startsWith(`${name}=`));
}

async function sessionRows(s: TestServer): Promise<number> {
  const r = await s.store.db.kysely
    .selectFrom('sessions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

function logCollector(): { lines: string[]; stream: NodeJS.WritableStream } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  return { lines, stream };
}

describe('OIDC sign-in', () => {
  let idp: TestProvider;
  let s: TestServer;
  const log = logCollector();
  before(async () => {
    idp = await startOidcProvider();
    idp.accounts.set('alice', { email: 'alice@example.com', email_verified: true, name: 'Alice Smith', groups: ['staff'] });
    idp.accounts.set('gus', { email: 'gus@example.com', email_verified: true, name: 'Gus', groups: ['staff', 'joe-admins'] });
    idp.accounts.set('boss', { email: 'boss@example.com', email_verified: true, name: 'Big Boss' });
    idp.accounts.set('mallory', { email: 'mallory@example.com', email_verified: true, name: 'Mallory', groups: 'joe-admins' });
    idp.accounts.set('carol', { email: 'carol@example.com', email_verified: true, name: 'Carol' });
    idp.accounts.set('dave', { email: 'dave@example.com', email_verified: false, name: 'Dave?' });
    idp.accounts.set('noemail', { name: 'Nobody' });
    s = await startTestServer({
      env: idp.env({ JOE_OIDC_ADMIN_GROUPS: 'joe-admins, ops', JOE_ADMIN_EMAIL: 'boss@example.com', JOE_BASE_URL: 'http://go.test' }),
      start: { logger: { level: 'info', stream: log.stream } },
    });
  });
  after(async () => {
    await s.stop();
    await idp.stop();
  });

  test('GET /auth/login sets the four pre-auth cookies and redirects to the provider with PKCE S256', async () => {
    const r = await get(`${s.url}/auth/login?return_url=${encodeURIComponent('/go/secret?a=1')}`);
    assert.equal(r.status, 302);
    const url = new URL(r.headers.get('location')!);
    assert.equal(url.origin, idp.issuer);
    const q = url.searchParams;
    assert.equal(q.get('response_type'), 'code');
    assert.equal(q.get('client_id'), CLIENT_ID);
    assert.equal(q.get('redirect_uri'), REDIRECT_URL);
    assert.equal(q.get('scope'), 'openid profile email');
    assert.equal(q.get('code_challenge_method'), 'S256');
    assert.match(q.get('state')!, /^[A-Za-z0-9_-]{43}$/);
    assert.match(q.get('nonce')!, /^[A-Za-z0-9_-]{43}$/);

    const value = (name: string) => decodeURIComponent(/^[^=]+=([^;]*)/.exec(cookieLine(r, name)!)![1]!);
    for (const name of ['__auth_state', '__auth_nonce', '__auth_pkce', '__auth_redirect']) {
      const line = cookieLine(r, name);
      assert.ok(line, name);
      assert.match(line, /; Max-Age=300/);
      assert.match(line, /; Path=\//);
      assert.match(line, /; HttpOnly/);
      assert.match(line, /; SameSite=Lax/);
    }
    assert.equal(value('__auth_state'), q.get('state'));
    assert.equal(value('__auth_nonce'), q.get('nonce'));
    assert.equal(value('__auth_redirect'), '/go/secret?a=1');
    const verifier = value('__auth_pkce');
    assert.match(verifier, /^[A-Za-z0-9_-]{86}$/, '64 random bytes');
    assert.equal(q.get('code_challenge'), createHash('sha256').update(verifier).digest('base64url'));

    const unsafe = await get(`${s.url}/auth/login?return_url=${encodeURIComponent('https://evil.com')}`);
    assert.equal(decodeURIComponent(/^__auth_redirect=([^;]*)/.exec(cookieLine(unsafe, '__auth_redirect')!)![1]!), '/dashboard');
  });

  test('a full login creates the user, a session, clears the pre-auth cookies and returns to the page', async () => {
    const b = newBrowser();
    const r = await login(s.url, b, 'alice', '/dashboard/links/new?slug=x');
    assert.equal(r.status, 302, await r.text());
    assert.equal(r.headers.get('location'), '/dashboard/links/new?slug=x');

    const session = cookieLine(r, 'session');
    assert.ok(session);
    assert.match(session, /^session=[A-Za-z0-9_-]{43};/);
    assert.match(session, /; Path=\//);
    assert.match(session, /; HttpOnly/);
    assert.match(session, /; SameSite=Lax/);
    for (const name of ['__auth_state', '__auth_nonce', '__auth_pkce', '__auth_redirect']) {
      assert.match(cookieLine(r, name) ?? '', /Expires=Thu, 01 Jan 1970/, `${name} cleared`);
      assert.match(cookieLine(r, name) ?? '', /Path=\//);
    }

    const user = await s.store.users.findByEmail('alice@example.com');
    assert.ok(user);
    assert.equal(user.provider, idp.issuer);
    assert.equal(user.subject, 'alice');
    assert.equal(user.displayName, 'Alice Smith');
    assert.equal(user.displayNameSlug, 'alice-smith');
    assert.equal(user.role, 'user');

    const token = /^session=([^;]+)/.exec(session)![1]!;
    const data = await s.store.sessions.get(token);
    assert.equal(data?.userId, user.id);
    assert.equal(data?.role, 'user');
    // Signed in: the landing page sends the visitor to the dashboard.
    const home = await get(`${s.url}/`, { cookie: `session=${token}` });
    assert.equal(home.status, 302);
    assert.equal(home.headers.get('location'), '/dashboard');
  });

  test('every login rotates the session token and deletes the old one', async () => {
    const b = newBrowser();
    await login(s.url, b, 'alice');
    const first = b.app.cookies.get('session')!;
    assert.ok(await s.store.sessions.get(first));
    await login(s.url, b, 'alice');
    const second = b.app.cookies.get('session')!;
    assert.notEqual(second, first);
    assert.equal(await s.store.sessions.get(first), null, 'the old session row is gone');
    assert.ok(await s.store.sessions.get(second));
  });

  test('a planted session cookie is not kept across the login (fixation)', async () => {
    const b = newBrowser();
    const planted = 'A'.repeat(43);
    b.app.cookies.set('session', planted);
    await login(s.url, b, 'alice');
    assert.notEqual(b.app.cookies.get('session'), planted);
  });

  test('profile fields and the profile slug are refreshed at every login', async () => {
    idp.accounts.set('carol', { email: 'carol.new@example.com', email_verified: true, name: 'Carol Jones' });
    await login(s.url, newBrowser(), 'carol');
    const u = await s.store.users.findByIdentity(idp.issuer, 'carol');
    assert.equal(u?.email, 'carol.new@example.com');
    assert.equal(u?.displayNameSlug, 'carol-jones');
    idp.accounts.set('carol', { email: 'carol.new@example.com', email_verified: true, name: 'Carol Berg' });
    await login(s.url, newBrowser(), 'carol');
    assert.equal((await s.store.users.findByIdentity(idp.issuer, 'carol'))?.displayNameSlug, 'carol-berg');
  });

  test('a groups claim naming an admin group grants admin, and leaving the group demotes', async () => {
    const b = newBrowser();
    await login(s.url, b, 'gus');
    let u = await s.store.users.findByIdentity(idp.issuer, 'gus');
    assert.equal(u?.role, 'admin');
    assert.equal(u?.roleSource, 'config');
    assert.equal((await s.store.sessions.get(b.app.cookies.get('session')!))?.role, 'admin');

    idp.accounts.set('gus', { email: 'gus@example.com', email_verified: true, name: 'Gus', groups: ['staff'] });
    await login(s.url, b, 'gus');
    u = await s.store.users.findByIdentity(idp.issuer, 'gus');
    assert.equal(u?.role, 'user');

    idp.accounts.set('gus', { email: 'gus@example.com', email_verified: true, name: 'Gus', groups: ['ops'] });
    await login(s.url, b, 'gus');
    assert.equal((await s.store.users.findByIdentity(idp.issuer, 'gus'))?.role, 'admin');
  });

  test('a groups claim that is not an array grants nothing', async () => {
    await login(s.url, newBrowser(), 'mallory');
    assert.equal((await s.store.users.findByIdentity(idp.issuer, 'mallory'))?.role, 'user');
  });

  test('JOE_ADMIN_EMAIL grants admin at every login, undoing a manual demotion', async () => {
    await login(s.url, newBrowser(), 'boss');
    const u = (await s.store.users.findByIdentity(idp.issuer, 'boss'))!;
    assert.equal(u.role, 'admin');
    await s.store.users.setRole(u.id, 'user', 'manual');
    await login(s.url, newBrowser(), 'boss');
    assert.equal((await s.store.users.findById(u.id))?.role, 'admin');
  });

  test('a manually granted admin is never demoted by configuration', async () => {
    await login(s.url, newBrowser(), 'alice');
    const u = (await s.store.users.findByIdentity(idp.issuer, 'alice'))!;
    await s.store.users.setRole(u.id, 'admin', 'manual');
    await login(s.url, newBrowser(), 'alice');
    const after = await s.store.users.findById(u.id);
    assert.equal(after?.role, 'admin');
    assert.equal(after?.roleSource, 'manual');
    await s.store.users.setRole(u.id, 'user', 'manual');
  });

  test('a verified email adopts the local account of the same email, keeping its id', async () => {
    const local = await s.store.users.create({ email: 'erin@example.com' });
    idp.accounts.set('erin', { email: 'erin@example.com', email_verified: true, name: 'Erin' });
    await login(s.url, newBrowser(), 'erin');
    const u = await s.store.users.findById(local.id);
    assert.equal(u?.provider, idp.issuer);
    assert.equal(u?.subject, 'erin');

    const other = await s.store.users.create({ email: 'dave@example.com' });
    await login(s.url, newBrowser(), 'dave'); // email_verified: false
    assert.equal((await s.store.users.findById(other.id))?.provider, 'local', 'an unverified email never takes over an account');
    assert.notEqual((await s.store.users.findByIdentity(idp.issuer, 'dave'))?.id, other.id);
  });

  test('return_url pointing off-site ends at /dashboard', async () => {
    for (const target of ['//evil.com', 'https://evil.com', '/\\evil.com', '/\t/evil.com', 'javascript:alert(1)']) {
      const r = await login(s.url, newBrowser(), 'alice', target);
      assert.equal(r.status, 302, target);
      assert.equal(r.headers.get('location'), '/dashboard', target);
    }
  });

  test('a tampered __auth_redirect cookie is sanitised again at the callback', async () => {
    const b = newBrowser();
    const query = await authorize(s.url, b, 'alice', '/fine');
    b.app.cookies.set('__auth_redirect', encodeURIComponent('//evil.com'));
    const r = await callback(s.url, b, query);
    assert.equal(r.status, 302);
    assert.equal(r.headers.get('location'), '/dashboard');
  });

  async function assertNoSession(r: RawResponse, before: number): Promise<void> {
    assert.equal(cookieLine(r, 'session'), undefined, 'no session cookie');
    assert.equal(await sessionRows(s), before, 'no session row');
  }

  test('a state that differs from __auth_state is refused with 400 and no session', async () => {
    const b = newBrowser();
    const query = await authorize(s.url, b, 'alice');
    const before = await sessionRows(s);
    const tampered = new URLSearchParams(query);
    tampered.set('state', `${tampered.get('state')!.slice(0, -2)}AA`);
    const r = await callback(s.url, b, tampered.toString());
    assert.equal(r.status, 400);
    assert.match(await r.text(), /invalid state/);
    await assertNoSession(r, before);

    const noState = new URLSearchParams(query);
    noState.delete('state');
    assert.equal((await callback(s.url, b, noState.toString())).status, 400);
  });

  test('an expired flow (pre-auth cookies gone) is refused with 400', async () => {
    const b = newBrowser();
    const query = await authorize(s.url, b, 'alice');
    const before = await sessionRows(s);
    const r = await callback(s.url, b, query, '');
    assert.equal(r.status, 400);
    await assertNoSession(r, before);
  });

  test('a missing code verifier is refused with 400', async () => {
    const b = newBrowser();
    const query = await authorize(s.url, b, 'alice');
    b.app.cookies.delete('__auth_pkce');
    const r = await callback(s.url, b, query);
    assert.equal(r.status, 400);
    assert.match(await r.text(), /missing code verifier/);
  });

  test('a wrong verifier makes the code exchange fail: 401', async () => {
    const b = newBrowser();
    const query = await authorize(s.url, b, 'alice');
    const before = await sessionRows(s);
    b.app.cookies.set('__auth_pkce', 'x'.repeat(86));
    const r = await callback(s.url, b, query);
    assert.equal(r.status, 401);
    await assertNoSession(r, before);
  });

  test('a nonce that differs from __auth_nonce is refused with 401', async () => {
    const b = newBrowser();
    const query = await authorize(s.url, b, 'alice');
    const before = await sessionRows(s);
    b.app.cookies.set('__auth_nonce', 'N'.repeat(43));
    const r = await callback(s.url, b, query);
    assert.equal(r.status, 401);
    await assertNoSession(r, before);

    const b2 = newBrowser();
    const q2 = await authorize(s.url, b2, 'alice');
    b2.app.cookies.delete('__auth_nonce');
    assert.equal((await callback(s.url, b2, q2)).status, 401);
  });

  test('a replayed code is refused with 401', async () => {
    const b = newBrowser();
    const query = await authorize(s.url, b, 'alice');
    const cookies = b.app.header();
    const first = await callback(s.url, b, query, cookies);
    assert.equal(first.status, 302);
    const before = await sessionRows(s);
    const replay = await callback(s.url, newBrowser(), query, cookies);
    assert.equal(replay.status, 401);
    await assertNoSession(replay, before);
  });

  test('a forged code is refused with 401', async () => {
    const b = newBrowser();
    const query = new URLSearchParams(await authorize(s.url, b, 'alice'));
    query.set('code', 'forged-code');
    assert.equal((await callback(s.url, b, query.toString())).status, 401);
  });

  test('a provider error answer is refused with 401', async () => {
    const b = newBrowser();
    const query = new URLSearchParams(await authorize(s.url, b, 'alice'));
    const r = await callback(
      s.url,
      b,
      new URLSearchParams({ error: 'access_denied', state: query.get('state')!, iss: idp.issuer }).toString(),
    );
    assert.equal(r.status, 401);
  });

  test('an account without an email claim is refused with 401 and no user row', async () => {
    const r = await login(s.url, newBrowser(), 'noemail');
    assert.equal(r.status, 401);
    assert.equal(await s.store.users.findByIdentity(idp.issuer, 'noemail'), null);
  });

  test('a failed promotion write is logged and the login proceeds with the stored role', async () => {
    idp.accounts.set('frank', { email: 'frank@example.com', email_verified: true, name: 'Frank' });
    await login(s.url, newBrowser(), 'frank');
    const k = s.store.db.kysely;
    const { sql } = await import('kysely');
    // A real database refusal of exactly the role write.
    await sql`create trigger deny_role_change before update of role on users begin select raise(abort, 'role writes refused'); end`.execute(
      k,
    );
    try {
      idp.accounts.set('frank', { email: 'frank@example.com', email_verified: true, name: 'Frank', groups: ['joe-admins'] });
      const b = newBrowser();
      const r = await login(s.url, b, 'frank');
      assert.equal(r.status, 302);
      const u = await s.store.users.findByIdentity(idp.issuer, 'frank');
      assert.equal(u?.role, 'user');
      assert.equal((await s.store.sessions.get(b.app.cookies.get('session')!))?.role, 'user');
      assert.ok(
        log.lines.some((l) => l.includes('could not apply the configured admin grant') && l.includes(u!.id)),
        'the failure is logged',
      );
    } finally {
      await sql`drop trigger deny_role_change`.execute(k);
    }
  });

  test('logout ends the session and lands on /', async () => {
    const b = newBrowser();
    await login(s.url, b, 'alice');
    const token = b.app.cookies.get('session')!;
    const r = await get(`${s.url}/auth/logout`, { cookie: `session=${token}`, origin: 'http://go.test' }, 'POST');
    assert.equal(r.status, 302);
    assert.equal(r.headers.get('location'), '/');
    assert.equal(await s.store.sessions.get(token), null);
  });

  test('/auth/local does not exist in OIDC mode', async () => {
    assert.equal((await get(`${s.url}/auth/local?token=${'a'.repeat(43)}`)).status, 404);
    assert.equal(
      (await get(`${s.url}/auth/local`, { 'content-type': 'application/x-www-form-urlencoded' }, 'POST', 'token=x')).status,
      404,
    );
  });
});

describe('OIDC issuer unreachable at startup', () => {
  let s: TestServer;
  let idp: TestProvider | null = null;
  const { lines, stream } = logCollector();
  let port = 0;
  before(async () => {
    // Reserve a port, then leave it closed so discovery fails.
    const probe = await startOidcProvider();
    port = Number(new URL(probe.issuer).port);
    await probe.stop();
    s = await startTestServer({
      env: {
        JOE_OIDC_ISSUER: `http://127.0.0.1:${port}`,
        JOE_OIDC_CLIENT_ID: CLIENT_ID,
        JOE_OIDC_CLIENT_SECRET: 'x'.repeat(48),
        JOE_OIDC_REDIRECT_URL: REDIRECT_URL,
      },
      start: { logger: { level: 'info', stream } },
    });
  });
  after(async () => {
    await s.stop();
    await idp?.stop();
  });

  test('the server runs, sign-in answers a styled 503 and recovers once the issuer answers', async () => {
    assert.equal((await get(`${s.url}/healthz`)).status, 200);
    const r = await get(`${s.url}/auth/login`);
    assert.equal(r.status, 503);
    const html = await r.text();
    assert.match(html, /Sign-in is temporarily unavailable/);
    assert.match(html, /<html/);
    assert.equal(cookieLine(r, '__auth_state'), undefined);
    assert.ok(
      lines.some((l) => l.includes('JOE_OIDC_ISSUER')),
      'the log names JOE_OIDC_ISSUER',
    );

    idp = await startOidcProvider({ port });
    const deadline = Date.now() + 15_000;
    let status = 503;
    while (Date.now() < deadline) {
      status = (await get(`${s.url}/auth/login`)).status;
      if (status === 302) break;
      await new Promise((res) => setTimeout(res, 200));
    }
    assert.equal(status, 302, 'discovery was retried');
  });
});
