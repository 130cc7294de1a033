import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cliCommand } from '../../src/cli/invocation.js';
import { CLI_ENTRY } from '../helpers/cli.js';
import { freePort } from './support.js';

/**
 * The commands the first-run box prints work where the reader is: from a checkout started with
 * `npm start` (npm links no executable for the project itself, so `joe-links …` would not be
 * found there), and as `joe-links …` where the program runs by that name (the container image
 * and a global install). Each is spawned as a person would type it, through a shell.
 */

/** The environment without what an outer `npm test` leaves in it. */
function cleanEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !/^npm_/i.test(k)) env[k] = v;
  return { ...env, JOE_HEALTH_CHECKS_ENABLED: 'false', JOE_INSECURE_COOKIES: 'true', ...extra };
}

/** Runs `command` through a shell until it prints the box's "fresh link" line; returns the command it names. */
async function firstRunCommand(command: string, cwd: string, env: Record<string, string>): Promise<string> {
  const child = spawn('sh', ['-c', command], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  try {
    // Generous: `npm start` compiles the checkout first when it is stale.
    const deadline = Date.now() + 240_000;
    for (;;) {
      const m = /A fresh link any time: (.+) login-url \[--email you@example\.com\]/.exec(out);
      if (m) {
        assert.match(out, /\/auth\/local\?token=/, 'the box holds a sign-in link');
        return m[1]!;
      }
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no first-run box: ${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    // The shell, npm and the server form one process group.
    process.kill(-child.pid!, 'SIGTERM');
    await exited;
  }
}

/** Runs the printed command as typed; it must print a fresh sign-in link. */
function assertLoginUrlWorks(command: string, cwd: string, env: Record<string, string>, base: string): void {
  const r = spawnSync('sh', ['-c', `${command} login-url`], { cwd, env, encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, new RegExp(`^${base}/auth/local\\?token=[A-Za-z0-9_-]{43}$`, 'm'));
}

describe('the commands the first-run box prints', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'joe-links-checkout-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('from a checkout: `npm start`, then the printed `npm run cli -- login-url`', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = cleanEnv({ JOE_DB_DSN: join(dir, 'checkout.db'), JOE_HTTP_ADDR: `127.0.0.1:${port}`, JOE_BASE_URL: base });
    const command = await firstRunCommand('npm start', process.cwd(), env);
    assert.equal(command, 'npm run cli --');
    assertLoginUrlWorks(command, process.cwd(), env, base);
  });

  test('where the program is on PATH as `joe-links`, the printed `joe-links login-url`', async () => {
    const bin = join(dir, 'bin');
    spawnSync('mkdir', [bin]);
    symlinkSync(CLI_ENTRY, join(bin, 'joe-links'));
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = cleanEnv({
      PATH: `${bin}:${process.env.PATH ?? ''}`,
      JOE_DB_DSN: join(dir, 'installed.db'),
      JOE_HTTP_ADDR: `127.0.0.1:${port}`,
      JOE_BASE_URL: base,
    });
    const command = await firstRunCommand('joe-links serve', dir, env);
    assert.equal(command, 'joe-links');
    assertLoginUrlWorks(command, dir, env, base);
  });

  test('otherwise the script as it was given, quoted for a shell when needed', () => {
    assert.equal(cliCommand(['/usr/bin/node', '/srv/jl/dist/src/cli.js'], {}, '/srv/jl'), 'node dist/src/cli.js');
    assert.equal(cliCommand(['/usr/bin/node', '/srv/jl/dist/src/cli.js'], {}, '/tmp'), 'node /srv/jl/dist/src/cli.js');
    assert.equal(cliCommand(['/usr/bin/node', "/srv/o'k dir/cli.js"], {}, '/tmp'), `node '/srv/o'\\''k dir/cli.js'`);
    assert.equal(
      cliCommand(['/usr/bin/node', '/srv/jl/dist/src/cli.js'], { npm_package_name: 'joe-links', npm_lifecycle_event: 'cli' }),
      'npm run cli --',
    );
    assert.equal(
      cliCommand(['/usr/bin/node', '/srv/jl/dist/src/cli.js'], { npm_package_name: 'other', npm_lifecycle_event: 'start' }, '/srv/jl'),
      'node dist/src/cli.js',
      'another project’s npm script says nothing about ours',
    );
  });
});
