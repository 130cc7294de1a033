import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { CLI_ARGS } from '../helpers/cli.js';
import { describe, test } from 'node:test';

function run(args: string[], opts: { cwd: string; env?: Record<string, string> }) {
  const r = spawnSync(process.execPath, [...CLI_ARGS, ...args], {
    cwd: opts.cwd,
    env: { PATH: process.env.PATH ?? '', NODE_OPTIONS: '', ...opts.env },
    encoding: 'utf8',
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('joe-links CLI', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'joe-links-cli-'));

  test('migrate applies everything once, then is a no-op', () => {
    const first = run(['migrate'], { cwd });
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /applied 00001_create_users/);
    assert.match(first.stdout, /migrations complete/);
    const second = run(['migrate'], { cwd });
    assert.equal(second.code, 0);
    assert.doesNotMatch(second.stdout, /applied/);
    assert.match(second.stdout, /migrations complete/);
    const status = run(['migrate', 'status'], { cwd });
    assert.doesNotMatch(status.stdout, /pending/);
  });

  test('users and links can be created and listed', () => {
    assert.equal(run(['users', 'create', '--email', 'a@example.com', '--name', 'Ann', '--admin'], { cwd }).code, 0);
    const created = run(
      [
        'links',
        'create',
        '--slug',
        'jira',
        '--url',
        'https://jira.test/$ticket',
        '--owner',
        'a@example.com',
        '--tags',
        'Eng Tools,jira',
        '--visibility',
        'private',
      ],
      { cwd },
    );
    assert.equal(created.code, 0, created.stderr);
    const list = run(['links', 'list'], { cwd });
    assert.match(list.stdout, /^jira\tprivate\thttps:\/\/jira\.test\/\$ticket\ta@example\.com\tEng Tools,jira$/m);
    const named = run(
      [
        'links',
        'create',
        '--slug',
        'docs',
        '--url',
        'https://docs.test',
        '--owner',
        'a@example.com',
        '--aliases',
        'handbook,kb',
        '--forward',
      ],
      { cwd },
    );
    assert.equal(named.code, 0, named.stderr);
    assert.match(named.stdout, /^created docs → https:\/\/docs\.test \(public, [0-9a-f-]{36}, also handbook, kb\)$/m);
    const clash = run(['links', 'create', '--slug', 'other', '--url', 'https://o.test', '--owner', 'a@example.com', '--aliases', 'kb'], {
      cwd,
    });
    assert.equal(clash.code, 1);
    assert.match(clash.stderr, /alias is already taken: "kb"/);
  });

  test('bad input prints one clear line and exits non-zero, changing nothing', () => {
    for (const [args, message] of [
      [['links', 'create', '--slug', 'Bad Slug', '--url', 'https://x.test', '--owner', 'a@example.com'], /slug must match/],
      [['links', 'create', '--slug', 'api', '--url', 'https://x.test', '--owner', 'a@example.com'], /slug is reserved/],
      [['links', 'create', '--slug', 'ok', '--url', 'javascript:alert(1)', '--owner', 'a@example.com'], /url must start with http/],
      [['links', 'create', '--slug', 'jira', '--url', 'https://x.test', '--owner', 'a@example.com'], /slug is already taken/],
      [['links', 'create', '--slug', 'ok', '--url', 'https://x.test', '--owner', 'nobody@example.com'], /no user with email/],
      [['users', 'create', '--email', 'a@example.com'], /already exists/],
      [['users', 'create', '--email', 'not-an-email'], /invalid email address: "not-an-email"/],
    ] as const) {
      const r = run([...args], { cwd });
      assert.equal(r.code, 1, args.join(' '));
      assert.match(r.stderr, message);
      assert.equal(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr}`);
    }
    assert.doesNotMatch(run(['links', 'list'], { cwd }).stdout, /^ok\t/m);
  });

  test('configuration errors name the variable', () => {
    const oracle = run(['migrate'], { cwd, env: { JOE_DB_DRIVER: 'oracle' } });
    assert.equal(oracle.code, 1);
    assert.match(oracle.stderr, /unsupported DB driver "oracle": must be sqlite3, mysql, or postgres/);
    const pg = run(['migrate'], { cwd, env: { JOE_DB_DRIVER: 'postgres' } });
    assert.match(pg.stderr, /JOE_DB_DSN is required for driver postgres/);
    const serve = run(['serve'], { cwd, env: { JOE_SESSION_LIFETIME: 'forever' } });
    assert.equal(serve.code, 1);
    assert.match(serve.stderr, /JOE_SESSION_LIFETIME/);
    const retention = run(['serve'], { cwd, env: { JOE_CLICK_RETENTION: '30' } });
    assert.equal(retention.code, 1);
    assert.match(retention.stderr, /90-day floor/);
  });

  test('an unknown driver names JOE_DB_DRIVER; an address in use names JOE_HTTP_ADDR, in one line and exit 1', async () => {
    const oracle = run(['migrate'], { cwd, env: { JOE_DB_DRIVER: 'oracle' } });
    assert.equal(oracle.code, 1);
    assert.equal(oracle.stderr, 'joe-links: invalid JOE_DB_DRIVER: unsupported DB driver "oracle": must be sqlite3, mysql, or postgres\n');

    const holder = createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', () => r()));
    const port = (holder.address() as AddressInfo).port;
    try {
      // spawnSync blocks this process, but its socket stays bound in the kernel.
      const busy = run(['serve'], { cwd, env: { JOE_HTTP_ADDR: `127.0.0.1:${port}`, JOE_LOG_LEVEL: 'silent' } });
      assert.equal(busy.code, 1);
      assert.equal(
        busy.stderr,
        `joe-links: cannot listen on 127.0.0.1:${port}: the address is already in use (is another joe-links running?); stop what holds it or set JOE_HTTP_ADDR to a free port\n`,
        'one line, no stack trace',
      );
    } finally {
      await new Promise((r) => holder.close(r));
    }
  });

  test('a database file that cannot be opened stops serve with one line naming the file and the fix', () => {
    // A regular file where the database's directory should be: unwritable even for root.
    const blocker = join(cwd, 'not-a-directory');
    writeFileSync(blocker, '');
    const serve = run(['serve'], { cwd, env: { JOE_DB_DSN: join(blocker, 'joe-links.db'), JOE_HTTP_ADDR: '127.0.0.1:0' } });
    assert.equal(serve.code, 1);
    const lines = serve.stderr.trim().split('\n');
    assert.equal(lines.length, 1, serve.stderr);
    assert.match(
      lines[0]!,
      /^joe-links: cannot open the SQLite database .*not-a-directory\/joe-links\.db: .*must exist and be writable.*JOE_DB_DSN/,
    );
  });

  test('joe-links.yaml is read from the working directory; the environment wins', () => {
    const dir = mkdtempSync(join(tmpdir(), 'joe-links-yaml-'));
    writeFileSync(join(dir, 'joe-links.yaml'), 'db:\n  driver: sqlite3\n  dsn: ./from-yaml.db\n');
    assert.equal(run(['migrate'], { cwd: dir }).code, 0);
    const ls = spawnSync('ls', [dir], { encoding: 'utf8' }).stdout;
    assert.match(ls, /from-yaml\.db/);
    assert.equal(run(['migrate'], { cwd: dir, env: { JOE_DB_DSN: './from-env.db' } }).code, 0);
    assert.match(spawnSync('ls', [dir], { encoding: 'utf8' }).stdout, /from-env\.db/);
  });

  test('serve logs its address, serves, and exits 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, [...CLI_ARGS, 'serve'], {
      cwd,
      env: { PATH: process.env.PATH ?? '', JOE_HTTP_ADDR: '127.0.0.1:0', JOE_INSECURE_COOKIES: 'true' },
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const addr = await new Promise<string>((resolveAddr, reject) => {
      // Generous: a loaded machine starts slowly. On failure the server is stopped, so the file never hangs.
      const t = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`no listening line: ${out}`));
      }, 90_000);
      const check = () => {
        const m = /listening on ([^"\s]+)/.exec(out);
        if (m) {
          clearTimeout(t);
          resolveAddr(m[1]!);
        }
      };
      child.stdout.on('data', check);
      child.stderr.on('data', check);
    });
    const res = await fetch(`http://${addr}/jira/X-1`, { redirect: 'manual' });
    assert.equal(res.status, 302);
    const code = await new Promise<number | null>((r) => {
      child.on('exit', (c) => r(c));
      child.kill('SIGTERM');
    });
    assert.equal(code, 0, out);
  });
});
