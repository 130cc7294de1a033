import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { parse } from 'yaml';
import { connect } from '../src/db/connect.js';
import { createStore } from '../src/store/index.js';
import { createTestDatabase } from '../test/helpers/databases.js';
import { createLink } from '../test/helpers/links.js';

/**
 * A rolling restart under load (README.md#running-several-instances): two replicas on one
 * PostgreSQL database behind Caddy, configured with compose.replicas.yaml's own Caddyfile (its
 * upstreams and port swapped for loopback ones), and wrk through the proxy while each replica in
 * turn is sent SIGTERM, started again and waited for until /readyz answers. Counts the answers
 * that were neither 2xx nor 3xx, wrk's socket errors, and the clicks stored against the
 * redirects answered. Needs `caddy` and `wrk` on the PATH and JOE_TEST_PG_DSN.
 */

const LINKS = 100;
const DURATION_S = Number(process.env.JOE_BENCH_ROLLING_SECONDS ?? 60);
const CONNECTIONS = 32;

export interface RollingResult {
  drain: string;
  requests: number;
  failed: number;
  socketErrors: string;
  stored: number;
  restarts: Array<{ replica: number; exitCode: number | null; stopMs: number; readyMs: number }>;
  rps: number;
}

const run = promisify(execFile);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** compose.replicas.yaml's Caddyfile, pointed at loopback replicas and a loopback port. */
export function caddyfileFor(listen: number, upstreams: number[]): string {
  const compose = parse(readFileSync('compose.replicas.yaml', 'utf8')) as { configs: { caddyfile: { content: string } } };
  const original = compose.configs.caddyfile.content;
  const names = /reverse_proxy ([^{]+)\{/.exec(original)![1]!.trim().split(/\s+/);
  if (names.length !== upstreams.length) throw new Error(`the Caddyfile names ${names.length} upstreams`);
  let text = original.replace(/^:\d+ \{/m, `:${listen} {`);
  text = text.replace(names.join(' '), upstreams.map((p) => `127.0.0.1:${p}`).join(' '));
  // No admin endpoint (it would take port 2019) and no certificates: a plain loopback proxy.
  return `{\n\tadmin off\n\tauto_https off\n}\n${text}`;
}

async function ready(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/readyz`)).status === 200;
  } catch {
    return false;
  }
}

async function until(what: string, cond: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

class Replica {
  child: ChildProcess | null = null;
  log = '';
  constructor(
    readonly index: number,
    readonly port: number,
    readonly env: NodeJS.ProcessEnv,
  ) {}
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }
  start(): void {
    const child = spawn(process.execPath, ['dist/src/cli.js', 'serve'], {
      env: { ...this.env, JOE_HTTP_ADDR: `127.0.0.1:${this.port}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (c: Buffer) => (this.log += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (this.log += c.toString()));
    this.child = child;
  }
  /** SIGTERM; resolves with the exit code once the process is gone. */
  stop(): Promise<number | null> {
    const child = this.child!;
    return new Promise((resolve) => {
      if (child.exitCode !== null) return resolve(child.exitCode);
      child.once('exit', (code) => resolve(code));
      child.kill('SIGTERM');
    });
  }
}

export async function benchRollingRestart(drain?: string): Promise<RollingResult> {
  const database = await createTestDatabase('postgres', { migrated: true });
  const dir = mkdtempSync(join(tmpdir(), 'joe-links-rolling-'));
  const replicas: Replica[] = [];
  let caddy: ChildProcess | null = null;
  try {
    const db = connect(database.config);
    const store = createStore(db);
    const owner = await store.users.create({ email: 'rolling@example.com' });
    for (let i = 0; i < LINKS; i++) await createLink(store, { slug: `link-${i}`, url: `https://example.com/destination/${i}` }, owner.id);
    await db.close();

    const proxyPort = await freePort();
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      JOE_DB_DRIVER: 'postgres',
      JOE_DB_DSN: database.config.dsn,
      JOE_BASE_URL: `http://127.0.0.1:${proxyPort}`,
      JOE_TRUSTED_PROXIES: '127.0.0.1',
      JOE_HEALTH_CHECKS_ENABLED: 'false',
      JOE_LOG_FORMAT: 'json',
      ...(drain === undefined ? {} : { JOE_SHUTDOWN_DRAIN: drain }),
    };
    for (const index of [1, 2]) replicas.push(new Replica(index, await freePort(), env));
    for (const r of replicas) r.start();
    for (const r of replicas) await until(`replica ${r.index} to be ready`, () => ready(r.url));

    const caddyfile = join(dir, 'Caddyfile');
    writeFileSync(
      caddyfile,
      caddyfileFor(
        proxyPort,
        replicas.map((r) => r.port),
      ),
    );
    caddy = spawn('caddy', ['run', '--config', caddyfile, '--adapter', 'caddyfile'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let caddyLog = '';
    caddy.stderr!.on('data', (c: Buffer) => (caddyLog += c.toString()));
    const proxy = `http://127.0.0.1:${proxyPort}`;
    await until('the proxy to answer', async () => {
      try {
        return (await fetch(`${proxy}/link-0`, { redirect: 'manual' })).status === 302;
      } catch {
        return false;
      }
    });
    // Both replicas seen healthy by the proxy's active check before the load starts.
    await sleep(3_000);

    const script = join(dir, 'paths.lua');
    writeFileSync(script, `local i = 0\nrequest = function()\n  i = (i + 17) % ${LINKS}\n  return wrk.format("GET", "/link-" .. i)\nend\n`);
    const load = run('wrk', ['-t2', `-c${CONNECTIONS}`, `-d${DURATION_S}s`, '--timeout', '10s', '-s', script, proxy], {
      maxBuffer: 1 << 20,
    });

    const restarts: RollingResult['restarts'] = [];
    await sleep(10_000);
    for (const r of replicas) {
      const stopAt = Date.now();
      const exitCode = await r.stop();
      const stopMs = Date.now() - stopAt;
      const startAt = Date.now();
      r.start();
      await until(`replica ${r.index} to be ready again`, () => ready(r.url));
      restarts.push({ replica: r.index, exitCode, stopMs, readyMs: Date.now() - startAt });
    }
    const { stdout } = await load;
    const requests = Number(/(\d+) requests in/.exec(stdout)![1]);
    const failed = Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0);
    const socketErrors = /Socket errors: (.*)/.exec(stdout)?.[1] ?? 'none';
    const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)![1]);

    // Every replica stopped cleanly, so every answered redirect's click is written.
    caddy.kill('SIGTERM');
    for (const r of replicas) await r.stop();
    const client = new pg.Client({ connectionString: database.config.dsn });
    await client.connect();
    const stored = Number((await client.query<{ n: string }>('select count(*) as n from link_clicks')).rows[0]!.n);
    await client.end();
    if (process.env.JOE_BENCH_VERBOSE) process.stderr.write(`${stdout}\n${caddyLog}\n`);
    return { drain: drain ?? 'default (5s)', requests, failed, socketErrors, stored, restarts, rps };
  } finally {
    caddy?.kill('SIGKILL');
    for (const r of replicas) if (r.child && r.child.exitCode === null) r.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    await database.drop();
  }
}
