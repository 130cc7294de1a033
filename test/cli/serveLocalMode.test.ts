import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CLI_ARGS } from '../helpers/cli.js';
import { get, type RawResponse } from '../helpers/server.js';

const cookieLine = (r: RawResponse, name: string) => (r.headers.raw['set-cookie'] ?? []).find((c) => c.startsWith(`${name}=`));
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
/** Children run from temporary directories; tsx must still find the project's JSX settings. */
const TSX_ENV = { TSX_TSCONFIG_PATH: join(process.cwd(), 'tsconfig.json') };

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
