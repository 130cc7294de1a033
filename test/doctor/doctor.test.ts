import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { SMTPServer } from 'smtp-server';
import { connect } from '../../src/db/connect.js';
import { migrateUp } from '../../src/db/migrate.js';
import { checkBaseUrl } from '../../src/doctor/baseUrl.js';
import { runDoctor, type CheckResult } from '../../src/doctor/index.js';
import { loadConfig } from '../../src/config.js';
import { startOidcProvider, type TestProvider } from '../auth/support/oidcProvider.js';
import { CLI_ARGS } from '../helpers/cli.js';
import { createTestDatabase, skipReason, type TestDatabase } from '../helpers/databases.js';
import { freePort } from '../ops/support.js';

/**
 * `joe-links doctor` against real things: SQLite files, PostgreSQL and MariaDB, an OpenID
 * provider, an SMTP server, and ports where nothing listens.
 */

const BASE = { JOE_BASE_URL: 'http://localhost:8080' };

function only(results: CheckResult[], check: string): CheckResult[] {
  return results.filter((r) => r.check === check);
}

function one(results: CheckResult[], check: string): CheckResult {
  const found = only(results, check);
  assert.equal(found.length, 1, `one ${check} line in ${JSON.stringify(results, null, 1)}`);
  return found[0]!;
}

function assertFails(r: CheckResult, detail: RegExp, fix: RegExp): void {
  assert.equal(r.status, 'fail', JSON.stringify(r));
  assert.match(r.detail, detail);
  assert.match(r.fix ?? '', fix);
}

describe('doctor on SQLite', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'joe-links-doctor-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('a fresh install passes: the file is created later, nothing is created by the check', async () => {
    const env = { ...BASE, JOE_DB_DSN: join(dir, 'fresh', 'joe-links.db'), JOE_BACKUP_DIR: join(dir, 'fresh', 'backups') };
    const results = await runDoctor({ env, cwd: dir });
    assert.deepEqual(
      results.filter((r) => r.status !== 'ok'),
      [],
    );
    assert.match(one(results, 'database').detail, /does not exist yet: joe-links serve creates it/);
    assert.match(one(results, 'migrations').detail, /none applied yet/);
    assert.equal(existsSync(join(dir, 'fresh')), false, 'no directory was made');
  });

  test('a migrated database passes; one migrated by a newer build fails with the way out', async () => {
    const file = join(dir, 'migrated.db');
    const db = connect({ driver: 'sqlite3', dsn: file });
    await migrateUp(db);
    await db.close();
    const env = { ...BASE, JOE_DB_DSN: file, JOE_BACKUP_DIR: join(dir, 'backups') };
    const good = await runDoctor({ env, cwd: dir });
    assert.equal(one(good, 'database').status, 'ok');
    assert.match(one(good, 'migrations').detail, /^all \d+ applied$/);

    const raw = new SqliteDatabase(file);
    raw.prepare('insert into kysely_migration (name, timestamp) values (?, ?)').run('99999_from_a_newer_build', new Date().toISOString());
    raw.close();
    const newer = await runDoctor({ env, cwd: dir });
    assertFails(one(newer, 'migrations'), /newer joe-links build \(99999_from_a_newer_build\)/, /migrate down/);
  });

  test('a file that is not a database fails naming it', async () => {
    const file = join(dir, 'garbage.db');
    writeFileSync(file, 'this is not an SQLite file, it is a shopping list'.repeat(100));
    const results = await runDoctor({ env: { ...BASE, JOE_DB_DSN: file }, cwd: dir });
    assertFails(one(results, 'database'), /garbage\.db cannot be opened: file is not a database/, /restore a backup/);
    assert.equal(one(results, 'migrations').status, 'skip');
  });

  test('a database path under a regular file fails the file check', async () => {
    writeFileSync(join(dir, 'plain-file'), 'x');
    const results = await runDoctor({ env: { ...BASE, JOE_DB_DSN: join(dir, 'plain-file', 'sub', 'joe-links.db') }, cwd: dir });
    assertFails(only(results, 'files')[0]!, /plain-file is a file/, /directory/);
  });

  test('a directory this user cannot write fails the file check with the chown to run', async (t) => {
    const locked = join(dir, 'locked');
    mkdirSync(locked);
    const isRoot = process.getuid?.() === 0;
    if (!isRoot) {
      chmodSync(locked, 0o555);
      const results = await runDoctor({
        env: { ...BASE, JOE_DB_DSN: join(locked, 'joe-links.db'), JOE_BACKUP_DIR: join(dir, 'b') },
        cwd: dir,
      });
      assertFails(one(results, 'files'), /cannot write to .*locked/, /chown/);
      return;
    }
    // root may write anywhere: ask as an unprivileged user instead.
    if (spawnSync('id', ['-u', 'nobody']).status !== 0) return t.skip('no unprivileged user to run as');
    chmodSync(dir, 0o755);
    const r = spawnSync('runuser', ['-u', 'nobody', '--', process.execPath, ...CLI_ARGS, 'doctor'], {
      cwd: locked,
      env: { PATH: process.env.PATH ?? '', ...BASE, JOE_DB_DSN: join(locked, 'joe-links.db'), JOE_BACKUP_DIR: join(locked, 'backups') },
      encoding: 'utf8',
    });
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(
      r.stdout,
      /^FAIL {2}files +this user \(uid 65534\) cannot write to .*locked, where the database .*— fix: give uid 65534 write access, e.g. chown -R 65534 /m,
    );
  });

  test('a bad setting fails the configuration check, naming it, and skips the rest', async () => {
    const results = await runDoctor({ env: { JOE_LOG_FORMAT: 'fancy' }, cwd: dir });
    assertFails(one(results, 'configuration'), /invalid JOE_LOG_FORMAT: "fancy"/, /docs\/configuration\.md/);
    assert.deepEqual(
      results.slice(1).map((r) => r.status),
      ['skip'],
    );
  });

  test('the command prints one line per check, and exits non-zero only on a failure', () => {
    const run = (env: Record<string, string>) =>
      spawnSync(process.execPath, [...CLI_ARGS, 'doctor'], { cwd: dir, env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8' });
    const good = run({ JOE_DB_DSN: join(dir, 'cli.db') });
    assert.equal(good.status, 0, good.stdout + good.stderr);
    const lines = good.stdout.trim().split('\n');
    assert.deepEqual(
      lines.slice(0, -1).map((l) => l.split(/\s{2,}/)[1]),
      ['configuration', 'base URL', 'files', 'database', 'migrations', 'sign-in', 'mail'],
    );
    assert.match(lines[1]!, /^warn {2}base URL .*JOE_BASE_URL is not set.* — fix: set JOE_BASE_URL/);
    assert.equal(lines.at(-1), 'no problems found (1 warning)');

    const bad = run({ JOE_DB_DSN: join(dir, 'cli.db'), JOE_BASE_URL: 'http://go.example.com' });
    assert.equal(bad.status, 1);
    assert.match(bad.stdout, /^FAIL {2}base URL .*plain HTTP on a non-local host.* — fix: .*JOE_INSECURE_COOKIES=true$/m);
    assert.match(bad.stdout, /^1 check failed$/m);
  });
});

describe('doctor: base URL rules', () => {
  const check = (env: Record<string, string>) => checkBaseUrl(loadConfig({ env, cwd: tmpdir() }), 'JOE_BASE_URL' in env);
  const statuses = (env: Record<string, string>) => check(env).map((r) => r.status);

  test('a public HTTPS address, or a local one matching the port, is fine', () => {
    assert.deepEqual(statuses({ JOE_BASE_URL: 'https://go.example.com' }), ['ok']);
    assert.deepEqual(statuses({ JOE_BASE_URL: 'http://localhost:9000', JOE_HTTP_ADDR: ':9000' }), ['ok']);
    assert.deepEqual(statuses({ JOE_BASE_URL: 'http://go.lan', JOE_INSECURE_COOKIES: 'true' }), ['ok']);
  });

  test('what breaks sign-in fails; what surprises warns', () => {
    assert.deepEqual(statuses({}), ['warn'], 'unset');
    assert.deepEqual(statuses({ JOE_BASE_URL: 'http://go.lan' }), ['fail'], 'Secure cookie over plain HTTP');
    assert.deepEqual(statuses({ JOE_BASE_URL: 'https://example.com/go' }), ['fail'], 'a path');
    assert.deepEqual(statuses({ JOE_BASE_URL: 'https://go.example.com', JOE_INSECURE_COOKIES: 'true' }), ['warn']);
    const port = check({ JOE_BASE_URL: 'http://localhost:3000', JOE_HTTP_ADDR: ':8080' });
    assert.deepEqual(
      port.map((r) => r.status),
      ['warn'],
    );
    assert.match(port[0]!.detail, /names port 3000, but joe-links listens on 8080/);
    const oidc = {
      JOE_OIDC_ISSUER: 'https://id.example.com',
      JOE_OIDC_CLIENT_ID: 'c',
      JOE_OIDC_CLIENT_SECRET: 's',
      JOE_BASE_URL: 'https://go.example.com',
    };
    assert.deepEqual(statuses(oidc), ['ok']);
    assert.deepEqual(statuses({ ...oidc, JOE_OIDC_REDIRECT_URL: 'https://other.example.com/auth/callback' }), ['warn']);
  });
});

for (const driver of ['postgres', 'mysql'] as const) {
  describe(`doctor on ${driver}`, { skip: skipReason(driver) }, () => {
    let database: TestDatabase;
    before(async () => {
      database = await createTestDatabase(driver);
    });
    after(() => database.drop());
    const env = (dsn: string) => ({ ...BASE, JOE_DB_DRIVER: driver, JOE_DB_DSN: dsn });
    const withUrl = (change: (u: URL) => void) => {
      const u = new URL(database.config.dsn);
      change(u);
      return u.toString();
    };

    test('an empty database answers with nothing applied; a migrated one with everything applied', async () => {
      const fresh = await runDoctor({ env: env(database.config.dsn), cwd: tmpdir() });
      assert.equal(one(fresh, 'database').status, 'ok');
      assert.match(one(fresh, 'migrations').detail, /none applied yet/);
      assert.deepEqual(only(fresh, 'files'), [], 'no file checks for a server database');
      const db = connect(database.config);
      await migrateUp(db);
      await db.close();
      const migrated = await runDoctor({ env: env(database.config.dsn), cwd: tmpdir() });
      assert.match(one(migrated, 'migrations').detail, /^all \d+ applied$/);
    });

    test('without JOE_DB_DRIVER the DSN scheme picks the driver, as serve does; a contradicting one fails naming both', async () => {
      const cwd = mkdtempSync(join(tmpdir(), 'joe-links-doctor-scheme-'));
      try {
        // MariaDB's own scheme means the MySQL driver too.
        const dsn = driver === 'mysql' ? database.config.dsn.replace(/^mysql:/, 'mariadb:') : database.config.dsn;
        const chosen = await runDoctor({ env: { ...BASE, JOE_DB_DSN: dsn }, cwd });
        assert.equal(one(chosen, 'configuration').status, 'ok');
        assert.match(one(chosen, 'configuration').detail, new RegExp(`${driver} database \\(chosen by the JOE_DB_DSN scheme\\)`));
        assert.equal(one(chosen, 'database').status, 'ok', JSON.stringify(chosen));
        assert.deepEqual(only(chosen, 'files'), [], 'no SQLite file is checked, let alone created');

        const other = driver === 'postgres' ? 'mysql' : 'postgres';
        for (const named of ['sqlite3', other]) {
          const refused = await runDoctor({ env: { ...BASE, JOE_DB_DRIVER: named, JOE_DB_DSN: dsn }, cwd });
          assertFails(one(refused, 'configuration'), /JOE_DB_DRIVER is .* but JOE_DB_DSN is a/, /docs\/configuration\.md/);
          assert.doesNotMatch(JSON.stringify(refused), new RegExp(new URL(database.config.dsn).password || 'no-password-in-dsn'));
        }
        assert.deepEqual(readdirSync(cwd), [], 'nothing named after the DSN appeared');
      } finally {
        rmSync(cwd, { recursive: true, force: true });
      }
    });

    test('a wrong password fails naming the login, never printing the password', async () => {
      const dsn = withUrl((u) => (u.password = 'not-the-password-4711'));
      const results = await runDoctor({ env: env(dsn), cwd: tmpdir() });
      assertFails(one(results, 'database'), /refused the login/, /user and password in JOE_DB_DSN/);
      assert.doesNotMatch(JSON.stringify(results), /not-the-password-4711/);
      assert.equal(one(results, 'migrations').status, 'skip');
    });

    test('a database that does not exist fails with the statement to create it', async () => {
      const results = await runDoctor({ env: env(withUrl((u) => (u.pathname = '/jl_no_such_database'))), cwd: tmpdir() });
      assertFails(one(results, 'database'), /has no database "jl_no_such_database"/, /CREATE DATABASE jl_no_such_database/);
    });

    test('a port where nothing listens fails at once with the fix', async () => {
      const port = await freePort();
      const started = Date.now();
      const results = await runDoctor({ env: env(withUrl((u) => (u.port = String(port)))), cwd: tmpdir() });
      assertFails(
        one(results, 'database'),
        new RegExp(`nothing accepts connections at 127\\.0\\.0\\.1:${port}`),
        /start the database server/,
      );
      assert.ok(Date.now() - started < 5_000, 'refused, not timed out');
    });
  });
}

describe('doctor: sign-in and mail', () => {
  let idp: TestProvider;
  let smtp: SMTPServer;
  let smtpPort: number;
  before(async () => {
    idp = await startOidcProvider();
    smtp = new SMTPServer({
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      onAuth(auth, _session, cb) {
        if (auth.username === 'joe' && auth.password === 'right-password') cb(null, { user: 'joe' });
        else cb(new Error('Invalid username or password'));
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    smtpPort = (smtp.server.address() as { port: number }).port;
  });
  after(async () => {
    await idp.stop();
    await new Promise<void>((resolve) => smtp.close(resolve));
  });
  const sqlite = () => ({ ...BASE, JOE_DB_DSN: ':memory:' });

  test('a reachable OpenID provider passes; one that does not answer fails with the URL to check', async () => {
    const good = one(await runDoctor({ env: { ...sqlite(), ...idp.env() }, cwd: tmpdir() }), 'sign-in');
    assert.equal(good.status, 'ok', good.detail);
    assert.match(good.detail, /answered discovery; it must allow the redirect URL http:\/\/joe-links\.test\/auth\/callback/);

    const port = await freePort();
    const down = await runDoctor({ env: { ...sqlite(), ...idp.env({ JOE_OIDC_ISSUER: `http://127.0.0.1:${port}` }) }, cwd: tmpdir() });
    assertFails(one(down, 'sign-in'), /ECONNREFUSED/, new RegExp(`127\\.0\\.0\\.1:${port}/\\.well-known/openid-configuration`));
  });

  test('local and forward-auth sign-in need nothing outside', async () => {
    assert.match(one(await runDoctor({ env: sqlite(), cwd: tmpdir() }), 'sign-in').detail, /^local mode/);
    const proxy = one(
      await runDoctor({ env: { ...sqlite(), JOE_AUTH_PROXY_HEADER: 'X-Email', JOE_TRUSTED_PROXIES: '10.0.0.1' }, cwd: tmpdir() }),
      'sign-in',
    );
    assert.match(proxy.detail, /^forward-auth: x-email/);
  });

  test('a mail server that accepts the login passes; a wrong password and a closed port fail; a malformed URL fails the configuration', async () => {
    const run = async (url: string) =>
      runDoctor({ env: { ...sqlite(), JOE_SMTP_URL: url, JOE_MAIL_FROM: 'links@joe-links.test' }, cwd: tmpdir() });
    const mail = async (url: string) => one(await run(url), 'mail');
    const good = await mail(`smtp://joe:right-password@127.0.0.1:${smtpPort}`);
    assert.equal(good.status, 'ok', good.detail);
    assert.match(good.detail, /accepted the connection and the login/);

    const wrong = await mail(`smtp://joe:wrong-password-0815@127.0.0.1:${smtpPort}`);
    assertFails(wrong, /Invalid username or password/, /credentials in JOE_SMTP_URL/);
    assert.doesNotMatch(wrong.detail, /wrong-password-0815/);

    assertFails(one(await run('https://mail.example.com'), 'configuration'), /JOE_SMTP_URL: scheme "https"/, /docs\/configuration\.md/);
    const closed = await mail(`smtp://127.0.0.1:${await freePort()}`);
    assertFails(closed, /ECONNREFUSED/, /JOE_SMTP_URL/);
    assert.equal((await mail('')).status, 'ok', 'unset: nothing to check');
  });
});
