import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CLI_ARGS } from '../helpers/cli.js';
import { loadConfig } from '../../src/config.js';
import { startServer } from '../../src/server.js';
import { get } from '../helpers/server.js';

/** Children run from temporary directories; tsx must still find the project's JSX settings. */
const TSX_ENV = { TSX_TSCONFIG_PATH: join(process.cwd(), 'tsconfig.json') };

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
