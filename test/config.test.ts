import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { loadConfig, loadDbConfig, type Config } from '../src/config.js';
import { SETTINGS } from '../src/config/sources.js';

/** Configuration rules of docs/server.md#configuration, the LLM settings of docs/agents.md#llm-suggestions and docs/state-links.md. */

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A fresh working directory, holding `joe-links.yaml` when text is given. */
function workDir(yaml?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'joe-links-config-'));
  dirs.push(dir);
  if (yaml !== undefined) writeFileSync(join(dir, 'joe-links.yaml'), yaml);
  return dir;
}

const load = (env: Record<string, string> = {}, yaml?: string): Config => loadConfig({ env, cwd: workDir(yaml) });

const refused = (env: Record<string, string>, message: string | RegExp, yaml?: string) =>
  assert.throws(() => load(env, yaml), { name: 'ConfigError', message });

const H = 3_600_000;

describe('defaults', () => {
  const c = load();

  test('listens on :8080 with SQLite at ./joe-links.db', () => {
    assert.deepEqual(c.http, { host: '0.0.0.0', port: 8080 });
    assert.deepEqual(c.db, { driver: 'sqlite3', dsn: './joe-links.db' });
  });

  test('base URL is http://localhost:<port> and the OIDC callback hangs off it', () => {
    assert.equal(c.baseUrl, 'http://localhost:8080');
    assert.equal(c.oidc.redirectUrl, 'http://localhost:8080/auth/callback');
  });

  test('runs in local mode with no OIDC or forward-auth settings', () => {
    assert.equal(c.authMode, 'local');
    assert.equal(c.oidc.issuer, null);
    assert.equal(c.authProxyHeader, null);
    assert.equal(c.trustedProxies.length, 0);
  });

  test('every other documented default', () => {
    assert.equal(c.sessionLifetimeMs, 720 * H);
    assert.equal(c.shutdownTimeoutMs, 15_000);
    assert.equal(c.apiRateLimit, 600);
    assert.deepEqual(c.backup, { dir: './backups', keep: 24 });
    assert.equal(c.adminEmail, null);
    assert.deepEqual(c.oidc.adminGroups, []);
    assert.equal(c.oidc.groupsClaim, 'groups');
    assert.equal(c.insecureCookies, false);
    assert.equal(c.shortKeyword, '');
    assert.equal(c.clickRetentionDays, null);
    assert.deepEqual(c.healthChecks, { enabled: true, intervalMs: 24 * H, timeoutMs: 10_000, allowPrivate: false });
    assert.equal(c.llm.provider, null);
  });

  test('state-link defaults of docs/state-links.md#limits-and-configuration', () => {
    assert.equal(c.stateLinks.publicOrigin, 'http://localhost:8080');
    assert.equal(c.stateLinks.targetPath, '/_/state');
    assert.equal(c.stateLinks.missingPath, '/_/link-missing');
    assert.equal(c.stateLinks.payloadPrefix, '#state=v1.');
    assert.equal(c.stateLinks.unopenedTtlMs, 30 * 24 * H);
    assert.equal(c.stateLinks.intervalMs, H);
    assert.equal(c.stateLinks.maxBytes, 1024 ** 3);
    assert.equal(c.stateLinks.rateWindowMs, 60_000);
    assert.equal(c.stateLinks.maxAttempts, 120);
    assert.equal(c.stateLinks.maxCreates, 30);
    assert.equal(c.stateLinks.maxReads, 600);
  });
});

describe('setting names', () => {
  const SEED_NAMES = ['PUBLIC_ORIGIN', 'LINK_TARGET_PATH', 'LINK_MISSING_PATH', 'PAYLOAD_PREFIX', 'UNOPENED_TTL_MS', 'BACKUP_INTERVAL_MS'];

  test('every JOE_ variable is its dotted YAML key upper-cased with . → _', () => {
    for (const { env, yaml } of Object.values(SETTINGS)) {
      if (SEED_NAMES.includes(env)) continue;
      assert.equal(env, `JOE_${yaml.toUpperCase().replace(/\./g, '_')}`, yaml);
    }
  });

  test('the state-link settings keep their own names, lower-cased under state_links in YAML', () => {
    for (const name of SEED_NAMES) {
      const s = Object.values(SETTINGS).find((x) => x.env === name);
      assert.ok(s, name);
      assert.equal(s.yaml, `state_links.${name.toLowerCase()}`);
    }
  });
});

describe('joe-links.yaml', () => {
  test('is read from the working directory with nested keys', () => {
    const c = load({}, 'db:\n  driver: sqlite3\n  dsn: ./jl.db\nhttp:\n  addr: ":9000"\nsession:\n  lifetime: 48h\n');
    assert.deepEqual(c.db, { driver: 'sqlite3', dsn: './jl.db' });
    assert.equal(c.http.port, 9000);
    assert.equal(c.sessionLifetimeMs, 48 * H);
  });

  test('YAML flow style works too', () => {
    assert.equal(load({}, 'db: {driver: sqlite3, dsn: ./flow.db}\n').db.dsn, './flow.db');
  });

  test('environment beats YAML, which beats the default', () => {
    const yaml = 'db: {dsn: ./from-yaml.db}\nhttp: {addr: ":9000"}\nshort_keyword: yamlgo\n';
    const c = load({ JOE_HTTP_ADDR: ':9100', JOE_SHORT_KEYWORD: 'envgo' }, yaml);
    assert.equal(c.http.port, 9100); // env over YAML
    assert.equal(c.shortKeyword, 'envgo'); // env over YAML
    assert.equal(c.db.dsn, './from-yaml.db'); // YAML over default
    assert.equal(c.sessionLifetimeMs, 720 * H); // default
  });

  test('a blank variable counts as unset: the file and then the default apply', () => {
    const yaml = 'db: {dsn: ./from-yaml.db}\nbase_url: https://go.example.com\nsession: {lifetime: 48h}\n';
    const c = load({ JOE_DB_DSN: '', JOE_BASE_URL: '   ', JOE_SESSION_LIFETIME: '', JOE_HTTP_ADDR: '' }, yaml);
    assert.equal(c.db.dsn, './from-yaml.db');
    assert.equal(c.baseUrl, 'https://go.example.com');
    assert.equal(c.sessionLifetimeMs, 48 * H);
    assert.equal(c.http.port, 8080);
    // A blank variable never turns on what it names.
    assert.equal(load({ JOE_OIDC_ISSUER: '', JOE_AUTH_PROXY_HEADER: ' ' }).authMode, 'local');
  });

  test('a missing file is not an error', () => {
    assert.doesNotThrow(() => loadConfig({ env: {}, cwd: workDir() }));
  });

  test('an empty file is not an error', () => {
    assert.equal(load({}, '').http.port, 8080);
  });

  test('an unknown key is refused naming it', () => {
    refused({}, /unknown setting "db\.user"/, 'db:\n  driver: sqlite3\n  user: root\n');
    refused({}, /unknown setting "sesion\.lifetime"/, 'sesion:\n  lifetime: 1h\n');
  });

  test('a value where a section is expected is refused naming the key', () => {
    refused({}, /unknown setting "db"/, 'db: sqlite3\n');
  });

  test('malformed YAML is refused naming the file', () => {
    refused({}, /joe-links\.yaml/, 'db: [unclosed\n');
    refused({}, /joe-links\.yaml/, 'db:\n  driver: sqlite3\n   dsn: x\n');
  });

  test('a bad value from YAML is refused naming the setting', () => {
    refused({}, /^invalid JOE_SESSION_LIFETIME: "forever"/, 'session: {lifetime: forever}\n');
    refused({}, /90-day floor/, 'click_retention: 30\n');
  });

  test('scalars of every YAML type are read as settings', () => {
    const c = load({}, 'insecure_cookies: true\nclick_retention: 365\napi: {rate_limit: 0}\nhealth_checks: {enabled: false}\n');
    assert.equal(c.insecureCookies, true);
    assert.equal(c.clickRetentionDays, 365);
    assert.equal(c.apiRateLimit, 0);
    assert.equal(c.healthChecks.enabled, false);
  });

  test('admin groups may be a YAML list', () => {
    const c = load({}, 'oidc:\n  admin_groups: [" admins ", ops]\n');
    assert.deepEqual(c.oidc.adminGroups, ['admins', 'ops']);
  });

  test('state-link settings live under state_links', () => {
    const c = load({}, 'state_links:\n  payload_prefix: "#app="\n  link_missing_path: /gone\n  unopened_ttl_ms: 60000\n');
    assert.equal(c.stateLinks.payloadPrefix, '#app=');
    assert.equal(c.stateLinks.missingPath, '/gone');
    assert.equal(c.stateLinks.unopenedTtlMs, 60_000);
  });
});

describe('database', () => {
  test('an unknown driver is refused with the exact message, naming the variable', () => {
    refused({ JOE_DB_DRIVER: 'oracle' }, 'invalid JOE_DB_DRIVER: unsupported DB driver "oracle": must be sqlite3, mysql, or postgres');
  });

  test('a server DSN without JOE_DB_DRIVER picks the driver from its scheme', () => {
    const cases: Array<[string, string]> = [
      ['postgres://joe:s3cret@db.internal:5432/jl', 'postgres'],
      ['postgresql://joe:s3cret@db.internal/jl', 'postgres'],
      ['POSTGRES://joe:s3cret@db.internal/jl', 'postgres'],
      ['mysql://joe:s3cret@db.internal:3306/jl', 'mysql'],
      ['mariadb://joe:s3cret@db.internal:3306/jl', 'mysql'],
      ['joe:s3cret@tcp(db.internal:3306)/jl', 'mysql'],
    ];
    for (const [dsn, driver] of cases) {
      assert.deepEqual(load({ JOE_DB_DSN: dsn }).db, { driver, dsn }, dsn);
      assert.deepEqual(load({}, `db:\n  dsn: "${dsn}"\n`).db, { driver, dsn }, `${dsn} from joe-links.yaml`);
      assert.deepEqual(load({ JOE_DB_DRIVER: driver, JOE_DB_DSN: dsn }).db, { driver, dsn }, 'an agreeing driver is fine');
    }
  });

  test('a DSN whose scheme contradicts JOE_DB_DRIVER stops startup naming both, never echoing the password', () => {
    const cases: Array<[string, string]> = [
      ['sqlite3', 'postgres://joe:s3cret@db.internal/jl'],
      ['mysql', 'postgresql://joe:s3cret@db.internal/jl'],
      ['postgres', 'mysql://joe:s3cret@db.internal/jl'],
      ['postgres', 'mariadb://joe:s3cret@db.internal/jl'],
      ['sqlite3', 'joe:s3cret@tcp(db.internal:3306)/jl'],
    ];
    for (const [driver, dsn] of cases) {
      assert.throws(
        () => load({ JOE_DB_DRIVER: driver, JOE_DB_DSN: dsn }),
        (e: Error) =>
          e.name === 'ConfigError' && /JOE_DB_DRIVER/.test(e.message) && /JOE_DB_DSN/.test(e.message) && !e.message.includes('s3cret'),
        `${driver} with ${dsn}`,
      );
    }
    assert.throws(() => load({ JOE_DB_DRIVER: 'sqlite3', JOE_DB_DSN: 'postgres://joe:s3cret@db/jl' }), {
      message: /^JOE_DB_DRIVER is sqlite3 but JOE_DB_DSN is a postgres:\/\/ address: set JOE_DB_DRIVER=postgres or leave it unset/,
    });
  });

  test('an unknown scheme is refused instead of becoming a SQLite file named after the DSN', () => {
    assert.throws(
      () => load({ JOE_DB_DSN: 'redis://joe:s3cret@cache/0' }),
      (e: Error) => {
        assert.equal(e.name, 'ConfigError');
        assert.match(e.message, /^invalid JOE_DB_DSN: unknown scheme "redis:\/\/"/);
        assert.doesNotMatch(e.message, /s3cret/);
        return true;
      },
    );
  });

  test('postgres and mysql need a DSN', () => {
    refused({ JOE_DB_DRIVER: 'postgres' }, 'JOE_DB_DSN is required for driver postgres');
    refused({ JOE_DB_DRIVER: 'mysql' }, 'JOE_DB_DSN is required for driver mysql');
  });

  test('with a DSN the server drivers are accepted', () => {
    assert.deepEqual(load({ JOE_DB_DRIVER: 'postgres', JOE_DB_DSN: 'postgres://u:p@db/jl' }).db, {
      driver: 'postgres',
      dsn: 'postgres://u:p@db/jl',
    });
    assert.equal(load({ JOE_DB_DRIVER: 'mysql', JOE_DB_DSN: 'mysql://u:p@db/jl' }).db.driver, 'mysql');
  });

  test('SQLite takes a file path or :memory:', () => {
    assert.equal(load({ JOE_DB_DSN: ':memory:' }).db.dsn, ':memory:');
    assert.equal(load({ JOE_DB_DSN: '/var/lib/jl/links.db' }).db.dsn, '/var/lib/jl/links.db');
  });

  test('maintenance commands need only the database settings, never the OIDC ones', () => {
    assert.deepEqual(loadDbConfig({ JOE_OIDC_ISSUER: 'https://id.test', JOE_CLICK_RETENTION: '30' }, {}), {
      driver: 'sqlite3',
      dsn: './joe-links.db',
    });
    assert.throws(() => loadDbConfig({ JOE_DB_DRIVER: 'oracle' }, {}), { message: /unsupported DB driver "oracle"/ });
  });
});

describe('listen address and base URL', () => {
  test(':port and host:port forms', () => {
    assert.deepEqual(load({ JOE_HTTP_ADDR: ':9090' }).http, { host: '0.0.0.0', port: 9090 });
    assert.deepEqual(load({ JOE_HTTP_ADDR: '127.0.0.1:3000' }).http, { host: '127.0.0.1', port: 3000 });
    assert.deepEqual(load({ JOE_HTTP_ADDR: '[::1]:8081' }).http, { host: '::1', port: 8081 });
  });

  test('the default base URL follows the listen port', () => {
    const c = load({ JOE_HTTP_ADDR: ':9090' });
    assert.equal(c.baseUrl, 'http://localhost:9090');
    assert.equal(c.oidc.redirectUrl, 'http://localhost:9090/auth/callback');
    assert.equal(c.stateLinks.publicOrigin, 'http://localhost:9090');
  });

  for (const bad of ['8080', 'localhost', ':99999', ':port']) {
    test(`${JSON.stringify(bad)} is refused naming JOE_HTTP_ADDR`, () => refused({ JOE_HTTP_ADDR: bad }, /^invalid JOE_HTTP_ADDR: /));
  }

  test('an explicit base URL is used without a trailing slash', () => {
    const c = load({ JOE_BASE_URL: 'https://go.example.com/' });
    assert.equal(c.baseUrl, 'https://go.example.com');
    assert.equal(c.oidc.redirectUrl, 'https://go.example.com/auth/callback');
    assert.equal(c.stateLinks.publicOrigin, 'https://go.example.com');
  });

  test('a base URL that is not an absolute http(s) URL is refused', () => {
    refused({ JOE_BASE_URL: 'go.example.com' }, /^invalid JOE_BASE_URL: /);
    refused({ JOE_BASE_URL: 'ftp://go.example.com' }, /^invalid JOE_BASE_URL: /);
  });
});

describe('OIDC', () => {
  const full = { JOE_OIDC_ISSUER: 'https://id.example.com', JOE_OIDC_CLIENT_ID: 'joe-links', JOE_OIDC_CLIENT_SECRET: 's3cret' };

  test('all three set selects OIDC mode', () => {
    const c = load(full);
    assert.equal(c.authMode, 'oidc');
    assert.equal(c.oidc.issuer, 'https://id.example.com');
    assert.equal(c.oidc.clientId, 'joe-links');
    assert.equal(c.oidc.clientSecret, 's3cret');
  });

  test('only the issuer names both missing variables', () => {
    refused(
      { JOE_OIDC_ISSUER: 'https://id.example.com' },
      'JOE_OIDC_CLIENT_ID and JOE_OIDC_CLIENT_SECRET are required when JOE_OIDC_ISSUER is set',
    );
  });

  test('a missing secret is named as in docs/server.md#configuration', () => {
    const { JOE_OIDC_CLIENT_SECRET: _, ...partial } = full;
    refused(partial, 'JOE_OIDC_CLIENT_SECRET is required when JOE_OIDC_ISSUER is set');
  });

  test('a client id or secret without an issuer names what is missing', () => {
    refused({ JOE_OIDC_CLIENT_SECRET: 'x' }, /^JOE_OIDC_ISSUER and JOE_OIDC_CLIENT_ID are required/);
    refused({ JOE_OIDC_CLIENT_ID: 'x', JOE_OIDC_CLIENT_SECRET: 'y' }, /^JOE_OIDC_ISSUER is required/);
  });

  test('a partial set from YAML is refused the same way', () => {
    refused({}, /JOE_OIDC_CLIENT_ID and JOE_OIDC_CLIENT_SECRET are required/, 'oidc: {issuer: "https://id.example.com"}\n');
  });

  test('an explicit redirect URL overrides the default', () => {
    assert.equal(
      load({ ...full, JOE_OIDC_REDIRECT_URL: 'https://go.example.com/auth/callback' }).oidc.redirectUrl,
      'https://go.example.com/auth/callback',
    );
  });

  test('admin groups are trimmed and empty items dropped', () => {
    assert.deepEqual(load({ JOE_OIDC_ADMIN_GROUPS: ' admins , ,ops,, ' }).oidc.adminGroups, ['admins', 'ops']);
  });

  test('the groups claim can be renamed', () => {
    assert.equal(load({ JOE_OIDC_GROUPS_CLAIM: 'roles' }).oidc.groupsClaim, 'roles');
  });
});

describe('forward-auth', () => {
  test('needs trusted proxies', () => {
    refused({ JOE_AUTH_PROXY_HEADER: 'X-Forwarded-Email' }, /^JOE_AUTH_PROXY_HEADER requires JOE_TRUSTED_PROXIES/);
  });

  test('cannot be combined with OIDC', () => {
    refused(
      {
        JOE_AUTH_PROXY_HEADER: 'X-Forwarded-Email',
        JOE_TRUSTED_PROXIES: '10.0.0.0/8',
        JOE_OIDC_ISSUER: 'https://id.example.com',
        JOE_OIDC_CLIENT_ID: 'a',
        JOE_OIDC_CLIENT_SECRET: 'b',
      },
      /JOE_AUTH_PROXY_HEADER and JOE_OIDC_ISSUER cannot both be set/,
    );
  });

  test('with trusted proxies it selects forward-auth mode', () => {
    const c = load({ JOE_AUTH_PROXY_HEADER: 'X-Forwarded-Email', JOE_TRUSTED_PROXIES: '10.0.0.0/8, ::1' });
    assert.equal(c.authMode, 'proxy');
    assert.equal(c.authProxyHeader, 'x-forwarded-email');
    assert.equal(c.trustedProxies.length, 2);
  });

  test('a header name with illegal characters is refused', () => {
    refused({ JOE_AUTH_PROXY_HEADER: 'X Email:', JOE_TRUSTED_PROXIES: '10.0.0.1' }, /^invalid JOE_AUTH_PROXY_HEADER/);
  });

  test('the groups header is read as a lower-cased header name, off by default', () => {
    assert.equal(load({}).forwardAuthGroupsHeader, null);
    const c = load({ JOE_AUTH_PROXY_HEADER: 'Remote-Email', JOE_FORWARD_AUTH_GROUPS_HEADER: 'Remote-Groups', JOE_TRUSTED_PROXIES: '::1' });
    assert.equal(c.forwardAuthGroupsHeader, 'remote-groups');
  });

  test('a bad groups header name, or one without forward-auth, stops startup naming JOE_FORWARD_AUTH_GROUPS_HEADER', () => {
    refused(
      { JOE_AUTH_PROXY_HEADER: 'Remote-Email', JOE_FORWARD_AUTH_GROUPS_HEADER: 'Remote Groups:', JOE_TRUSTED_PROXIES: '::1' },
      /^invalid JOE_FORWARD_AUTH_GROUPS_HEADER: "Remote Groups:"/,
    );
    refused({ JOE_FORWARD_AUTH_GROUPS_HEADER: 'Remote-Groups' }, /^JOE_FORWARD_AUTH_GROUPS_HEADER requires JOE_AUTH_PROXY_HEADER/);
  });

  test('a bad trusted-proxy entry is refused naming JOE_TRUSTED_PROXIES', () => {
    refused({ JOE_TRUSTED_PROXIES: '10.0.0.0/8, proxy.internal' }, /^invalid JOE_TRUSTED_PROXIES: /);
  });
});

describe('durations', () => {
  test('number+unit pairs are accepted', () => {
    assert.equal(load({ JOE_SESSION_LIFETIME: '1h30m' }).sessionLifetimeMs, 90 * 60_000);
    assert.equal(load({ JOE_SESSION_LIFETIME: '30d' }).sessionLifetimeMs, 720 * H);
    assert.equal(load({ JOE_SHUTDOWN_TIMEOUT: '500ms' }).shutdownTimeoutMs, 500);
  });

  for (const [name, value] of [
    ['JOE_SESSION_LIFETIME', 'forever'],
    ['JOE_SESSION_LIFETIME', '720'],
    ['JOE_SHUTDOWN_TIMEOUT', '15 s'],
    ['JOE_HEALTH_CHECK_INTERVAL', 'daily'],
    ['JOE_HEALTH_CHECK_TIMEOUT', '10sec'],
    ['JOE_STATE_LINKS_RATE_WINDOW', '1 minute'],
  ] as const) {
    test(`${name}=${value} is refused naming the variable`, () => refused({ [name]: value }, new RegExp(`^invalid ${name}: "${value}"`)));
  }

  test('JOE_SHUTDOWN_DRAIN: 5 s by default, 0 turns the drain off, more than 10 minutes or a bare number is refused naming it', () => {
    assert.equal(load({}).shutdownDrainMs, 5_000);
    assert.equal(load({ JOE_SHUTDOWN_DRAIN: '0' }).shutdownDrainMs, 0);
    assert.equal(load({ JOE_SHUTDOWN_DRAIN: '0s' }).shutdownDrainMs, 0);
    assert.equal(load({ JOE_SHUTDOWN_DRAIN: '10m' }).shutdownDrainMs, 600_000);
    refused({ JOE_SHUTDOWN_DRAIN: '5' }, /^invalid JOE_SHUTDOWN_DRAIN: "5"/);
    refused({ JOE_SHUTDOWN_DRAIN: 'soon' }, /^invalid JOE_SHUTDOWN_DRAIN: "soon"/);
    refused({ JOE_SHUTDOWN_DRAIN: '10m1s' }, /^invalid JOE_SHUTDOWN_DRAIN: "10m1s" \(expected at most 10m\)/);
  });

  test('a zero session lifetime is refused', () => {
    refused({ JOE_SESSION_LIFETIME: '0s' }, /^invalid JOE_SESSION_LIFETIME/);
  });
});

describe('click retention', () => {
  test('unset, empty or 0 leaves pruning off', () => {
    assert.equal(load({}).clickRetentionDays, null);
    assert.equal(load({ JOE_CLICK_RETENTION: '' }).clickRetentionDays, null);
    assert.equal(load({ JOE_CLICK_RETENTION: '0' }).clickRetentionDays, null);
  });

  test('90 and above are accepted as days', () => {
    assert.equal(load({ JOE_CLICK_RETENTION: '90' }).clickRetentionDays, 90);
    assert.equal(load({ JOE_CLICK_RETENTION: '365' }).clickRetentionDays, 365);
  });

  for (const days of ['1', '30', '89']) {
    test(`${days} is refused citing the 90-day floor`, () => {
      refused({ JOE_CLICK_RETENTION: days }, new RegExp(`^invalid JOE_CLICK_RETENTION: ${days} is below the 90-day floor`));
    });
  }

  for (const bad of ['-1', '1.5', 'abc', '90d', '1e3']) {
    test(`${JSON.stringify(bad)} is refused naming the variable`, () =>
      refused({ JOE_CLICK_RETENTION: bad }, /^invalid JOE_CLICK_RETENTION: /));
  }
});

describe('health checks', () => {
  const hc = (env: Record<string, string>) => load(env).healthChecks;

  test('an interval below 1h is clamped to 1h', () => {
    assert.equal(hc({ JOE_HEALTH_CHECK_INTERVAL: '30m' }).intervalMs, H);
    assert.equal(hc({ JOE_HEALTH_CHECK_INTERVAL: '0' }).intervalMs, H);
    assert.equal(hc({ JOE_HEALTH_CHECK_INTERVAL: '1h' }).intervalMs, H);
    assert.equal(hc({ JOE_HEALTH_CHECK_INTERVAL: '48h' }).intervalMs, 48 * H);
  });

  test('a timeout above 30s is clamped to 30s', () => {
    assert.equal(hc({ JOE_HEALTH_CHECK_TIMEOUT: '2m' }).timeoutMs, 30_000);
    assert.equal(hc({ JOE_HEALTH_CHECK_TIMEOUT: '30s' }).timeoutMs, 30_000);
    assert.equal(hc({ JOE_HEALTH_CHECK_TIMEOUT: '5s' }).timeoutMs, 5_000);
  });

  test('a timeout ≤ 0 becomes 10s', () => {
    assert.equal(hc({ JOE_HEALTH_CHECK_TIMEOUT: '0' }).timeoutMs, 10_000);
    assert.equal(hc({ JOE_HEALTH_CHECK_TIMEOUT: '0s' }).timeoutMs, 10_000);
    assert.equal(hc({ JOE_HEALTH_CHECK_TIMEOUT: '-5s' }).timeoutMs, 10_000);
  });

  test('the switches are booleans', () => {
    assert.equal(hc({ JOE_HEALTH_CHECKS_ENABLED: 'false' }).enabled, false);
    assert.equal(hc({ JOE_HEALTH_CHECK_ALLOW_PRIVATE: 'true' }).allowPrivate, true);
    refused({ JOE_HEALTH_CHECKS_ENABLED: 'maybe' }, /^invalid JOE_HEALTH_CHECKS_ENABLED: "maybe"/);
  });
});

describe('LLM provider', () => {
  test('unset means off', () => {
    assert.equal(load().llm.provider, null);
  });

  test('an unsupported provider is refused', () => {
    refused({ JOE_LLM_PROVIDER: 'gemini' }, /unsupported LLM provider "gemini"/);
    refused({ JOE_LLM_PROVIDER: 'Anthropic' }, /unsupported LLM provider/);
  });

  test('the model defaults per provider', () => {
    assert.equal(load({ JOE_LLM_PROVIDER: 'anthropic' }).llm.model, 'claude-haiku-4-5-20251001');
    assert.equal(load({ JOE_LLM_PROVIDER: 'openai' }).llm.model, 'gpt-4o-mini');
    assert.equal(load({ JOE_LLM_PROVIDER: 'openai-compatible' }).llm.model, 'gpt-4o-mini');
    assert.equal(load({ JOE_LLM_PROVIDER: 'openai', JOE_LLM_MODEL: 'gpt-4.1' }).llm.model, 'gpt-4.1');
  });

  test('the base URL defaults to OpenAI and loses a trailing slash', () => {
    assert.equal(load({ JOE_LLM_PROVIDER: 'openai' }).llm.baseUrl, 'https://api.openai.com');
    assert.equal(
      load({ JOE_LLM_PROVIDER: 'openai-compatible', JOE_LLM_BASE_URL: 'http://llm.internal:8000/' }).llm.baseUrl,
      'http://llm.internal:8000',
    );
    refused({ JOE_LLM_PROVIDER: 'openai-compatible', JOE_LLM_BASE_URL: 'llm.internal' }, /^invalid JOE_LLM_BASE_URL/);
  });

  test('an empty API key is allowed for keyless servers', () => {
    assert.equal(load({ JOE_LLM_PROVIDER: 'openai-compatible' }).llm.apiKey, '');
  });
});

describe('other settings', () => {
  test('the API rate limit accepts 0 (off) and refuses negatives or words', () => {
    assert.equal(load({ JOE_API_RATE_LIMIT: '0' }).apiRateLimit, 0);
    assert.equal(load({ JOE_API_RATE_LIMIT: '120' }).apiRateLimit, 120);
    refused({ JOE_API_RATE_LIMIT: '-1' }, /^invalid JOE_API_RATE_LIMIT/);
    refused({ JOE_API_RATE_LIMIT: 'lots' }, /^invalid JOE_API_RATE_LIMIT/);
  });

  test('insecure cookies, admin email and short keyword are read', () => {
    const c = load({ JOE_INSECURE_COOKIES: 'true', JOE_ADMIN_EMAIL: 'root@example.com', JOE_SHORT_KEYWORD: 'go' });
    assert.equal(c.insecureCookies, true);
    assert.equal(c.adminEmail, 'root@example.com');
    assert.equal(c.shortKeyword, 'go');
  });

  test('backups keep at least one file', () => {
    assert.equal(load({ JOE_BACKUP_KEEP: '3', JOE_BACKUP_DIR: '/srv/backups' }).backup.keep, 3);
    refused({ JOE_BACKUP_KEEP: '0' }, /^invalid JOE_BACKUP_KEEP/);
  });

  test('the log format is auto unless set to pretty or json, from the environment or the file', () => {
    assert.equal(load().logFormat, 'auto');
    assert.equal(load({ JOE_LOG_FORMAT: 'json' }).logFormat, 'json');
    assert.equal(load({}, 'log_format: pretty\n').logFormat, 'pretty');
    refused({ JOE_LOG_FORMAT: 'text' }, 'invalid JOE_LOG_FORMAT: "text" (expected auto, pretty, json)');
  });
});

describe('state-link settings', () => {
  test('PUBLIC_ORIGIN overrides the base URL for redirects', () => {
    assert.equal(load({ PUBLIC_ORIGIN: 'https://app.example.com/' }).stateLinks.publicOrigin, 'https://app.example.com');
    refused({ PUBLIC_ORIGIN: 'app.example.com' }, /^invalid PUBLIC_ORIGIN/);
  });

  for (const prefix of ['#', '#state=v1.', '#s', `#${'a'.repeat(32)}`, '#A-Z_a.z~0=9']) {
    test(`PAYLOAD_PREFIX ${JSON.stringify(prefix)} is accepted`, () =>
      assert.equal(load({ PAYLOAD_PREFIX: prefix }).stateLinks.payloadPrefix, prefix));
  }

  for (const prefix of ['state=v1.', `#${'a'.repeat(33)}`, '#state/v1', '#a b', '#é', '##', '?state=']) {
    test(`PAYLOAD_PREFIX ${JSON.stringify(prefix)} is refused`, () => refused({ PAYLOAD_PREFIX: prefix }, /^invalid PAYLOAD_PREFIX/));
  }

  for (const path of ['/s/gone', '/s', '/s/']) {
    test(`LINK_MISSING_PATH ${path} is refused: it must not be under /s/`, () => {
      refused({ LINK_MISSING_PATH: path }, /^invalid LINK_MISSING_PATH: .*must not be under \/s\//);
    });
  }

  test('LINK_MISSING_PATH elsewhere is accepted, including names that only start with s', () => {
    assert.equal(load({ LINK_MISSING_PATH: '/gone' }).stateLinks.missingPath, '/gone');
    assert.equal(load({ LINK_MISSING_PATH: '/sorry' }).stateLinks.missingPath, '/sorry');
  });

  for (const [name, path] of [
    ['LINK_TARGET_PATH', 'app'],
    ['LINK_TARGET_PATH', '//evil.example.com/app'],
    ['LINK_TARGET_PATH', '/app#x'],
    ['LINK_MISSING_PATH', '/gone?x=1'],
    ['LINK_MISSING_PATH', 'https://evil.example.com/'],
  ] as const) {
    test(`${name}=${path} is refused: redirects stay on PUBLIC_ORIGIN`, () => refused({ [name]: path }, new RegExp(`^invalid ${name}`)));
  }

  test('the integer settings refuse zero and words', () => {
    refused({ UNOPENED_TTL_MS: '0' }, /^invalid UNOPENED_TTL_MS/);
    refused({ BACKUP_INTERVAL_MS: 'hourly' }, /^invalid BACKUP_INTERVAL_MS/);
    refused({ JOE_STATE_LINKS_MAX_CREATES: '-3' }, /^invalid JOE_STATE_LINKS_MAX_CREATES/);
    assert.equal(load({ UNOPENED_TTL_MS: '86400000' }).stateLinks.unopenedTtlMs, 86_400_000);
  });
});

describe('notification mail and webhooks (docs/configuration.md#notifications-and-webhooks)', () => {
  test('off by default; webhooks retry from 10s and refuse private addresses', () => {
    const c = load();
    assert.deepEqual(c.mail, { smtp: null, from: null });
    assert.deepEqual(c.webhooks, { retryBaseMs: 10_000, allowPrivate: false });
  });

  test('smtp and smtps URLs with credentials, default ports 587 and 465', () => {
    const plain = load({ JOE_SMTP_URL: 'smtp://mailer:p%40ss@mail.example.com:2525', JOE_MAIL_FROM: 'links@example.com' });
    assert.deepEqual(plain.mail.smtp, { host: 'mail.example.com', port: 2525, secure: false, user: 'mailer', pass: 'p@ss' });
    const tls = load({ JOE_SMTP_URL: 'smtps://mail.example.com', JOE_MAIL_FROM: 'Joe Links <links@example.com>' });
    assert.deepEqual(tls.mail, {
      smtp: { host: 'mail.example.com', port: 465, secure: true, user: null, pass: null },
      from: 'Joe Links <links@example.com>',
    });
    assert.equal(load({ JOE_SMTP_URL: 'smtp://relay', JOE_MAIL_FROM: 'a@b.c' }).mail.smtp!.port, 587);
  });

  test('bad values stop startup naming the variable, never echoing a password', () => {
    refused(
      { JOE_SMTP_URL: 'http://user:hunter2@mail.example.com', JOE_MAIL_FROM: 'a@b.c' },
      /^invalid JOE_SMTP_URL: scheme "http"(?!.*hunter2)/,
    );
    refused({ JOE_SMTP_URL: 'mail.example.com', JOE_MAIL_FROM: 'a@b.c' }, /^invalid JOE_SMTP_URL/);
    refused(
      { JOE_SMTP_URL: 'smtp://u:hunter2@mail.example.com/path', JOE_MAIL_FROM: 'a@b.c' },
      /^invalid JOE_SMTP_URL: unexpected path(?!.*hunter2)/,
    );
    refused({ JOE_SMTP_URL: 'smtp://mail.example.com' }, 'JOE_MAIL_FROM is required when JOE_SMTP_URL is set');
    refused({ JOE_SMTP_URL: 'smtp://mail.example.com', JOE_MAIL_FROM: 'not an address' }, /^invalid JOE_MAIL_FROM/);
    refused({ JOE_SMTP_URL: 'smtp://mail.example.com', JOE_MAIL_FROM: 'a@b.c\r\nBcc: x@y.z' }, /^invalid JOE_MAIL_FROM/);
    refused({ JOE_WEBHOOK_RETRY_BASE: 'soon' }, /^invalid JOE_WEBHOOK_RETRY_BASE/);
    refused({ JOE_WEBHOOK_RETRY_BASE: '10ms' }, /^invalid JOE_WEBHOOK_RETRY_BASE/);
    refused({ JOE_WEBHOOK_ALLOW_PRIVATE: 'maybe' }, /^invalid JOE_WEBHOOK_ALLOW_PRIVATE/);
  });

  test('how often one person is mailed: one mail a minute, ten an hour, unless set', () => {
    assert.deepEqual(load({}).mailPacing, { windowMs: 60_000, hourlyCap: 10 });
    assert.deepEqual(load({ JOE_MAIL_DIGEST_WINDOW: '5m', JOE_MAIL_HOURLY_CAP: '4' }).mailPacing, { windowMs: 300_000, hourlyCap: 4 });
    assert.deepEqual(load({}, 'mail:\n  digest_window: 2m\n  hourly_cap: 3\n').mailPacing, { windowMs: 120_000, hourlyCap: 3 });
    refused({ JOE_MAIL_DIGEST_WINDOW: 'soon' }, /^invalid JOE_MAIL_DIGEST_WINDOW/);
    refused({ JOE_MAIL_DIGEST_WINDOW: '500ms' }, /^invalid JOE_MAIL_DIGEST_WINDOW/);
    refused({ JOE_MAIL_DIGEST_WINDOW: '2h' }, /^invalid JOE_MAIL_DIGEST_WINDOW/);
    refused({ JOE_MAIL_HOURLY_CAP: '0' }, /^invalid JOE_MAIL_HOURLY_CAP/);
    refused({ JOE_MAIL_HOURLY_CAP: 'lots' }, /^invalid JOE_MAIL_HOURLY_CAP/);
  });

  test('from joe-links.yaml too', () => {
    const c = load(
      {},
      'smtp:\n  url: smtp://relay:25\nmail:\n  from: links@example.com\nwebhook:\n  retry_base: 1m\n  allow_private: true\n',
    );
    assert.equal(c.mail.smtp!.host, 'relay');
    assert.deepEqual(c.webhooks, { retryBaseMs: 60_000, allowPrivate: true });
  });
});
