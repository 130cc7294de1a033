import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CLI_ARGS } from '../helpers/cli.js';
import { get, type RawResponse } from '../helpers/server.js';

const UNAUTHORIZED = '{"error":"unauthorized","code":"UNAUTHORIZED"}';

async function assertUnauthorized(r: RawResponse, why: string): Promise<void> {
  assert.equal(r.status, 401, why);
  assert.equal(await r.text(), UNAUTHORIZED, why);
  assert.match(r.headers.get('content-type') ?? '', /^application\/json/, why);
  assert.equal(r.headers.get('set-cookie'), null, `${why}: no cookie`);
}

describe('joe-links tokens', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const run = (args: string[]) => spawnSync(process.execPath, [...CLI_ARGS, ...args], { cwd: dir, env, encoding: 'utf8' });
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'joe-links-tokens-'));
    env = { ...process.env, JOE_DB_DSN: join(dir, 't.db') };
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('create prints the token once, list shows it, revoke stops it', async () => {
    assert.equal(run(['users', 'create', '--email', 'cli@x.io']).status, 0);
    const created = run(['tokens', 'create', '--email', 'cli@x.io', '--name', 'ci', '--expires-in', '30d']);
    assert.equal(created.status, 0, created.stderr);
    const token = created.stdout.trim();
    assert.match(token, /^jl_[0-9A-Za-z]{38,43}$/, 'stdout is the token alone');
    const forever = run(['tokens', 'create', '--email', 'cli@x.io', '--name', 'forever']);
    assert.equal(forever.status, 0);

    const list = run(['tokens', 'list', '--email', 'cli@x.io']);
    assert.equal(list.status, 0);
    const rows = list.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    assert.deepEqual(
      rows.map((r) => r[2]),
      ['forever', 'ci'],
      'newest first',
    );
    assert.deepEqual(
      rows.map((r) => r[1]),
      ['active', 'active'],
    );
    assert.equal(rows[0]![5], 'never');
    const days = (Date.parse(rows[1]![5]!) - Date.parse(rows[1]![3]!)) / 86_400_000;
    assert.equal(days, 30);
    assert.ok(!list.stdout.includes(token.slice(3)), 'the list never shows a token');

    // The token works against a server on the same database.
    const { startServer } = await import('../../src/server.js');
    const { loadConfig } = await import('../../src/config.js');
    const server = await startServer(
      loadConfig({
        cwd: dir,
        env: { JOE_DB_DSN: join(dir, 't.db'), JOE_HTTP_ADDR: '127.0.0.1:0', JOE_LOG_LEVEL: 'silent', JOE_HEALTH_CHECKS_ENABLED: 'false' },
      }),
      { logger: false },
    );
    try {
      assert.equal((await get(`${server.url}/api/v1/users/me`, { authorization: `Bearer ${token}` })).status, 200);
      const revoke = run(['tokens', 'revoke', '--id', rows[1]![0]!]);
      assert.equal(revoke.status, 0, revoke.stderr);
      await assertUnauthorized(await get(`${server.url}/api/v1/users/me`, { authorization: `Bearer ${token}` }), 'revoked by the CLI');
    } finally {
      await server.close();
    }
    assert.match(run(['tokens', 'list', '--email', 'cli@x.io']).stdout, /\trevoked\tci\t/);
  });

  test('bad input exits non-zero with a clear message', () => {
    for (const [args, msg] of [
      [['tokens', 'create', '--email', 'ghost@x.io', '--name', 'x'], /no user with email ghost@x.io/],
      [['tokens', 'create', '--email', 'cli@x.io', '--name', '  '], /name is required/],
      [['tokens', 'create', '--email', 'cli@x.io', '--name', 'x', '--expires-in', 'soon'], /invalid --expires-in/],
      [['tokens', 'revoke', '--id', '00000000-0000-4000-8000-000000000000'], /no token with id/],
    ] as const) {
      const r = run([...args]);
      assert.notEqual(r.status, 0, args.join(' '));
      assert.match(r.stderr, msg, args.join(' '));
    }
  });
});
