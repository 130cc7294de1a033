import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config.js';
import { SETTINGS } from '../../src/config/sources.js';
import { parseDuration } from '../../src/domain/duration.js';

/**
 * The Containerfile and the compose files agree with each other and with the server: ports,
 * volume, health checks, settings and what several replicas need (README.md#containers). No
 * container runtime runs here; `.ci/container` builds the image and starts it.
 */

interface Instruction {
  keyword: string;
  args: string;
}

/** Instructions in order: comments dropped, continuation lines joined. */
function parseContainerfile(text: string): Instruction[] {
  const out: Instruction[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    if (/^\s*#/.test(raw)) continue;
    const line = raw.replace(/\s+$/, '');
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    const full = (pending + line).trim();
    pending = '';
    if (full === '') continue;
    const m = /^(\S+)\s+(.*)$/s.exec(full)!;
    out.push({ keyword: m[1]!.toUpperCase(), args: m[2]! });
  }
  return out;
}

const containerfile = parseContainerfile(readFileSync('Containerfile', 'utf8'));
const stages = containerfile.reduce<Instruction[][]>((acc, i) => {
  if (i.keyword === 'FROM') acc.push([]);
  acc.at(-1)?.push(i);
  return acc;
}, []);
const runtime = stages.at(-1)!;
const args = (keyword: string) => runtime.filter((i) => i.keyword === keyword).map((i) => i.args);

/** `KEY=value` pairs of the runtime stage's ENV instructions. */
const imageEnv: Record<string, string> = Object.fromEntries(
  args('ENV').flatMap((a) => [...a.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!])),
);

const knownSettings = new Set<string>(Object.values(SETTINGS).map((s) => s.env));

/** A compose file with `${VAR:-default}` replaced by its default, as an unset environment gives. */
function readCompose(file: string): Record<string, any> {
  const text = readFileSync(file, 'utf8').replace(/\$\{(\w+):-([^}]*)\}/g, (_m, _name: string, fallback: string) => fallback);
  assert.doesNotMatch(text, /\$\{/, `${file}: every variable has a default`);
  return parse(text, { merge: true }) as Record<string, any>;
}

function assertKnownSettings(env: Record<string, unknown>, where: string): void {
  for (const name of Object.keys(env)) {
    if (name.startsWith('JOE_')) assert.ok(knownSettings.has(name), `${where}: ${name} is a setting of src/config/sources.ts`);
  }
}

const seconds = (text: string) => Number(/^(\d+)s$/.exec(text)?.[1] ?? NaN);
const SHUTDOWN_TIMEOUT_S = 15;

describe('Containerfile', () => {
  test('builds in one stage with the toolchain and runs in another without it', () => {
    assert.equal(stages.length, 2);
    assert.match(containerfile[0]!.args, /^NODE_IMAGE=docker\.io\/library\/node:(\d+)-bookworm-slim$/);
    const engines = (JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } }).engines.node;
    const major = Number(/node:(\d+)-/.exec(containerfile[0]!.args)![1]);
    assert.ok(major >= Number(/^>=(\d+)/.exec(engines)![1]), `the default base's Node ${major} satisfies engines ${engines}`);
    assert.equal(stages[0]![0]!.args, '${BUILD_IMAGE} AS build');
    assert.equal(runtime[0]!.args, '${NODE_IMAGE}');
    assert.match(stages[0]!.map((i) => i.args).join('\n'), /npm_config_build_from_source=better-sqlite3/);
    assert.doesNotMatch(runtime.map((i) => i.args).join('\n'), /apt-get|g\+\+|npm ci/, 'nothing is compiled or installed at run time');
  });

  test('runs as uid 10001 with its state on the /data volume, on port 8080', () => {
    assert.deepEqual(args('USER'), ['10001:10001']);
    assert.deepEqual(args('VOLUME'), ['/data']);
    assert.deepEqual(args('EXPOSE'), ['8080']);
    assert.equal(imageEnv.JOE_HTTP_ADDR, ':8080');
    assert.match(imageEnv.JOE_DB_DSN!, /^\/data\//);
    assert.match(imageEnv.JOE_BACKUP_DIR!, /^\/data\//);
    assertKnownSettings(imageEnv, 'Containerfile');
  });

  test('checks /healthz without curl, stops on SIGTERM, starts serve through the CLI, and is labelled', () => {
    const [health] = args('HEALTHCHECK');
    assert.match(health!, /CMD \["node", "-e", ".*\/healthz/);
    assert.deepEqual(args('STOPSIGNAL'), ['SIGTERM']);
    assert.deepEqual(args('ENTRYPOINT'), ['["node", "/app/dist/src/cli.js"]']);
    assert.deepEqual(args('CMD'), ['["serve"]']);
    const labels = args('LABEL').join(' ');
    for (const key of ['title', 'description', 'licenses', 'version', 'revision']) {
      assert.match(labels, new RegExp(`org\\.opencontainers\\.image\\.${key}=`), key);
    }
  });
});

describe('compose.yaml', () => {
  const compose = readCompose('compose.yaml');
  const service = compose.services['joe-links'];

  test('builds the Containerfile and keeps the database on a named volume at /data', () => {
    assert.deepEqual(Object.keys(compose.services), ['joe-links']);
    assert.equal(service.build.dockerfile, 'Containerfile');
    assert.deepEqual(service.volumes, ['data:/data']);
    assert.ok('data' in compose.volumes);
    assert.deepEqual(service.ports, ['8080:8080']);
  });

  test('sets known settings only, and lets a stop finish', () => {
    assertKnownSettings(service.environment, 'compose.yaml');
    assert.equal(service.environment.JOE_BASE_URL, 'http://localhost:8080');
    assert.equal(service.healthcheck, undefined, "the image's own /healthz check applies");
    assert.ok(seconds(service.stop_grace_period) > SHUTDOWN_TIMEOUT_S);
  });
});

describe('compose.replicas.yaml', () => {
  const compose = readCompose('compose.replicas.yaml');
  const services = compose.services as Record<string, any>;
  const replicas = Object.entries(services).filter(([, s]) => s.build?.dockerfile === 'Containerfile');
  const proxy = services.proxy;
  const postgres = services.postgres;

  test('two replicas of the same image with the same settings, on PostgreSQL', () => {
    assert.deepEqual(
      replicas.map(([name]) => name),
      ['joe-links-1', 'joe-links-2'],
    );
    const [[, first], [, second]] = replicas as [[string, any], [string, any]];
    assert.deepEqual(first.environment, second.environment);
    assertKnownSettings(first.environment, 'compose.replicas.yaml');
    assert.equal(first.environment.JOE_DB_DRIVER, 'postgres');
    const dsn = new URL(first.environment.JOE_DB_DSN);
    assert.equal(dsn.hostname, 'postgres', 'the database service');
    assert.equal(dsn.username, postgres.environment.POSTGRES_USER);
    assert.equal(decodeURIComponent(dsn.password), postgres.environment.POSTGRES_PASSWORD);
    assert.equal(dsn.pathname, `/${postgres.environment.POSTGRES_DB}`);
    for (const [name, s] of replicas) {
      assert.equal(s.depends_on.postgres.condition, 'service_healthy', name);
      assert.equal(s.ports, undefined, `${name} is reached through the proxy only`);
      assert.ok(seconds(s.stop_grace_period) > SHUTDOWN_TIMEOUT_S, name);
      assert.match(s.healthcheck.test.join(' '), /\/readyz/, `${name} is healthy once ready`);
    }
    assert.match(postgres.healthcheck.test.join(' '), /pg_isready/);
  });

  test('the proxy balances over both replicas by /readyz, and is the only address they trust', () => {
    const caddyfile: string = compose.configs.caddyfile.content;
    const upstreams = /reverse_proxy ([^{]+)\{/.exec(caddyfile)![1]!.trim().split(/\s+/);
    assert.deepEqual(
      upstreams,
      replicas.map(([name]) => `${name}:8080`),
    );
    assert.match(caddyfile, /health_uri \/readyz/);
    assert.deepEqual(proxy.configs, [{ source: 'caddyfile', target: '/etc/caddy/Caddyfile' }]);
    for (const [name] of replicas) assert.equal(proxy.depends_on[name].condition, 'service_healthy');

    const listen = /^:(\d+) \{/m.exec(caddyfile)![1];
    assert.deepEqual(proxy.ports, [`${listen}:${listen}`]);
    const [, first] = replicas[0]!;
    assert.equal(new URL(first.environment.JOE_BASE_URL).port, listen, 'JOE_BASE_URL is the proxy');
    const proxyAddress = proxy.networks['joe-links'].ipv4_address;
    assert.equal(first.environment.JOE_TRUSTED_PROXIES, proxyAddress);
    const subnet: string = compose.networks['joe-links'].ipam.config[0].subnet;
    assert.ok(proxyAddress.startsWith(subnet.replace(/\.0\/24$/, '.')), `${proxyAddress} lies in ${subnet}`);
  });

  test('a stopping replica is out of the proxy before it closes, and a refused request goes to the other one', () => {
    const caddyfile: string = compose.configs.caddyfile.content;
    const option = (name: string) => new RegExp(`^\\s*${name} (\\S+)$`, 'm').exec(caddyfile)?.[1];
    const defaults = loadConfig({ env: {}, cwd: mkdtempSync(join(tmpdir(), 'joe-links-compose-')) });
    const drainMs = defaults.shutdownDrainMs;
    const noticedMs = parseDuration(option('health_interval')!)! + parseDuration(option('health_timeout')!)!;
    assert.ok(noticedMs < drainMs, `the proxy sees /readyz fail within ${noticedMs} ms, inside the ${drainMs} ms drain`);
    assert.ok(parseDuration(option('lb_try_duration')!)! > 0, 'a refused connection is retried on another replica');
    assert.match(caddyfile, /lb_retry_match \{\s*method GET HEAD\s*\}/, 'a GET or HEAD that failed on its way is retried');
    for (const [name, s] of replicas) {
      assert.ok(seconds(s.stop_grace_period) * 1000 > drainMs + defaults.shutdownTimeoutMs, `${name} may drain and finish`);
    }
  });
});
