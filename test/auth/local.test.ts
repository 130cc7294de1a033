import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { bootstrapLocalAdmin } from '../../src/auth/localLogin.js';
import { CLI_ARGS } from '../helpers/cli.js';
import { loadConfig } from '../../src/config.js';
import { startServer } from '../../src/server.js';
import { get, startTestServer, type RawResponse, type TestServer } from '../helpers/server.js';

const cookieLine = (r: RawResponse, name: string) => (r.headers.raw['set-cookie'] ?? []).find((c) => c.startsWith(`${name}=`));
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const INVALID = /This sign-in link is invalid or has expired/;
/** Children run from temporary directories; tsx must still find the project's JSX settings. */
const TSX_ENV = { TSX_TSCONFIG_PATH: join(process.cwd(), 'tsconfig.json') };

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

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

describe('joe-links serve in local mode', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'joe-links-serve-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs `serve` until `done` says stop; returns everything it printed on stdout. */
  async function serve(env: Record<string, string>, done: (stdout: string, base: string) => Promise<boolean>): Promise<string> {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const child = spawn(process.execPath, [...CLI_ARGS, 'serve'], {
      cwd: dir,
      env: {
        ...process.env,
        ...TSX_ENV,
        JOE_DB_DSN: join(dir, 'serve.db'),
        JOE_HTTP_ADDR: `127.0.0.1:${port}`,
        JOE_BASE_URL: base,
        JOE_INSECURE_COOKIES: 'true',
        JOE_HEALTH_CHECKS_ENABLED: 'false',
        JOE_LOG_LEVEL: 'info',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    try {
      // Generous: a loaded machine starts the server slowly.
      const deadline = Date.now() + 90_000;
      while (!stdout.includes('listening on')) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`serve did not start: ${stdout}${stderr}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      await new Promise((r) => setTimeout(r, 300)); // the bootstrap prints right after listening
      while (!(await done(stdout, base))) {
        if (Date.now() > deadline) throw new Error(`gave up: ${stdout}${stderr}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return stdout;
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  }

  test('the first start prints a one-time sign-in URL for the bootstrap admin, later starts do not', async () => {
    let signedIn = false;
    const out = await serve({}, async (stdout, base) => {
      const m = new RegExp(`${base}/auth/local\\?token=([A-Za-z0-9_-]{43})`).exec(stdout);
      if (!m) return false;
      // Printed plainly, not only inside a JSON log line.
      assert.ok(stdout.split('\n').some((l) => l.trim() === m[0]));
      const page = await get(m[0]);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /Sign in to joe-links as admin@localhost/);
      const r = await get(`${base}/auth/local`, { ...FORM, origin: base }, 'POST', `token=${m[1]}`);
      assert.equal(r.status, 302);
      assert.ok(cookieLine(r, 'session'));
      signedIn = true;
      return true;
    });
    assert.ok(signedIn, out);

    const list = spawnSync(process.execPath, [...CLI_ARGS, 'users', 'list'], {
      cwd: dir,
      env: { ...process.env, JOE_DB_DSN: join(dir, 'serve.db') },
      encoding: 'utf8',
    });
    assert.match(list.stdout, /^admin@localhost\tadmin\t/m);

    const second = await serve({}, async () => true);
    assert.doesNotMatch(second, /auth\/local\?token=/, 'an admin exists: nothing printed');
  });

  test('with JOE_ADMIN_EMAIL naming an existing user, that user is promoted', async () => {
    const db = join(dir, 'promote.db');
    const env = { ...process.env, JOE_DB_DSN: db };
    assert.equal(spawnSync(process.execPath, [...CLI_ARGS, 'users', 'create', '--email', 'owner@x.io'], { cwd: dir, env }).status, 0);
    const out = await serve({ JOE_DB_DSN: db, JOE_ADMIN_EMAIL: 'owner@x.io' }, async (stdout) => /auth\/local\?token=/.test(stdout));
    assert.match(out, /Promoted the bootstrap admin owner@x.io/);
    const list = spawnSync(process.execPath, [...CLI_ARGS, 'users', 'list'], { cwd: dir, env, encoding: 'utf8' });
    assert.match(list.stdout, /^owner@x.io\tadmin\t/m);
    assert.doesNotMatch(list.stdout, /admin@localhost/);
  });
});

describe('joe-links login-url', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const run = (args: string[], extra: Record<string, string> = {}) =>
    spawnSync(process.execPath, [...CLI_ARGS, ...args], { cwd: dir, env: { ...env, ...extra }, encoding: 'utf8' });
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'joe-links-loginurl-'));
    env = { ...process.env, ...TSX_ENV, JOE_DB_DSN: join(dir, 'l.db'), JOE_BASE_URL: 'https://go.example.com' };
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('prints a fresh link for the oldest admin or the named user; unknown users and other modes fail', async () => {
    const none = run(['login-url']);
    assert.notEqual(none.status, 0, 'no admin yet');
    assert.equal(run(['users', 'create', '--email', 'first@x.io', '--admin']).status, 0);
    assert.equal(run(['users', 'create', '--email', 'second@x.io', '--admin']).status, 0);
    assert.equal(run(['users', 'create', '--email', 'member@x.io']).status, 0);

    const a = run(['login-url']);
    assert.equal(a.status, 0, a.stderr);
    assert.match(a.stdout.trim(), /^https:\/\/go\.example\.com\/auth\/local\?token=[A-Za-z0-9_-]{43}$/);
    assert.match(a.stderr, /first@x.io/);
    const b = run(['login-url', '--email', 'member@x.io']);
    assert.equal(b.status, 0);
    assert.match(b.stderr, /member@x.io/);
    assert.notEqual(a.stdout, b.stdout);

    // The printed link works on a server over the same database.
    const server = await startServer(
      loadConfig({
        cwd: dir,
        env: { JOE_DB_DSN: join(dir, 'l.db'), JOE_HTTP_ADDR: '127.0.0.1:0', JOE_LOG_LEVEL: 'silent', JOE_HEALTH_CHECKS_ENABLED: 'false' },
      }),
      { logger: false },
    );
    try {
      const token = /token=([A-Za-z0-9_-]{43})/.exec(b.stdout)![1]!;
      const page = await get(`${server.url}/auth/local?token=${token}`);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /Sign in to joe-links as member@x.io/);
    } finally {
      await server.close();
    }

    const unknown = run(['login-url', '--email', 'ghost@x.io']);
    assert.notEqual(unknown.status, 0);
    assert.match(unknown.stderr, /ghost@x.io/);

    const oidc = run(['login-url'], { JOE_OIDC_ISSUER: 'https://idp.example', JOE_OIDC_CLIENT_ID: 'c', JOE_OIDC_CLIENT_SECRET: 's' });
    assert.notEqual(oidc.status, 0);
    assert.match(oidc.stderr, /OIDC mode/);
    const proxy = run(['login-url'], { JOE_AUTH_PROXY_HEADER: 'X-Email', JOE_TRUSTED_PROXIES: '10.0.0.1' });
    assert.notEqual(proxy.status, 0);
    assert.match(proxy.stderr, /forward-auth mode/);
  });
});
