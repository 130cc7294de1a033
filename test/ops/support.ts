import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI_ARGS } from '../helpers/cli.js';

/**
 * Real `joe-links serve` processes for the operations tests: the compiled CLI
 * as an operator runs it, configured only through the environment, observed
 * through HTTP and its JSON log lines.
 */

export interface LogLine {
  level: number;
  time: number;
  msg: string;
  [key: string]: unknown;
}

export interface ServerProcess {
  name: string;
  child: ChildProcess;
  pid: number;
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** The scheduler's lease holder id (from its startup line). */
  holder: string;
  /** Every JSON log line so far (stdout and stderr). */
  readonly lines: LogLine[];
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends `signal` (default SIGTERM) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const c of live) c.kill('SIGKILL');
});

/** Starts `joe-links serve` on 127.0.0.1 and a free port; resolves once it listens. */
export async function spawnServer(name: string, env: Record<string, string>, timeoutMs = 90_000): Promise<ServerProcess> {
  const cwd = mkdtempSync(join(tmpdir(), 'joe-links-ops-'));
  const child = spawn(process.execPath, [...CLI_ARGS, 'serve'], {
    cwd,
    env: {
      PATH: process.env.PATH ?? '',
      JOE_HTTP_ADDR: '127.0.0.1:0',
      JOE_INSECURE_COOKIES: 'true',
      JOE_HEALTH_CHECKS_ENABLED: 'false',
      JOE_BACKUP_DIR: join(cwd, 'backups'),
      // No drain window unless a test asks for one (test/ops/drain.test.ts): stops stay quick.
      JOE_SHUTDOWN_DRAIN: '0s',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  let raw = '';
  const lines: LogLine[] = [];
  let partial = { stdout: '', stderr: '' };
  const feed = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
    const text = chunk.toString();
    raw += text;
    const parts = (partial[stream] + text).split('\n');
    partial = { ...partial, [stream]: parts.pop()! };
    for (const p of parts) {
      if (!p.startsWith('{')) continue;
      try {
        lines.push(JSON.parse(p) as LogLine);
      } catch {
        // not a log line
      }
    }
  };
  child.stdout!.on('data', feed('stdout'));
  child.stderr!.on('data', feed('stderr'));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => {
      live.delete(child);
      rmSync(cwd, { recursive: true, force: true });
      resolve({ code, signal });
    }),
  );
  const started = Date.now();
  for (;;) {
    const listening = lines.find((l) => /^listening on /.test(l.msg));
    const holder = lines.find((l) => typeof l.holder === 'string' && /lease holder/.test(l.msg));
    if (listening && holder) {
      return {
        name,
        child,
        pid: child.pid!,
        url: `http://${listening.msg.slice('listening on '.length)}`,
        holder: holder.holder as string,
        lines,
        output: () => raw,
        exited,
        stop: async (signal = 'SIGTERM') => {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          return exited;
        },
      };
    }
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${name} exited before listening:\n${raw}`);
    if (Date.now() - started > timeoutMs) {
      child.kill('SIGKILL');
      throw new Error(`${name} did not start within ${timeoutMs} ms:\n${raw}`);
    }
    await sleep(50);
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls `cond` until it holds; the message names what never happened. */
export async function waitFor(what: string, cond: () => Promise<boolean> | boolean, timeoutMs = 20_000, everyMs = 50): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await cond()) return;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** A free TCP port on 127.0.0.1 (closed again, so there is a small window for a race). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** One Prometheus sample value from a /metrics text, or 0 when absent. */
export function metricValue(text: string, name: string): number {
  const m = new RegExp(`^${name.replace(/[{}]/g, '\\$&')} ([0-9.e+-]+)$`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
}

// ---------------------------------------------------------------------------
// A throwaway PostgreSQL cluster, so a test may stop and start "the database"
// without touching the shared one other suites use.

export interface PgCluster {
  port: number;
  /** Superuser DSN of the `postgres` database. */
  adminDsn: string;
  dsnFor(db: string): string;
  start(): Promise<void>;
  /** `pg_ctl stop -m fast`: sessions are terminated, as at a real restart. */
  stop(): Promise<void>;
  destroy(): Promise<void>;
}

function pgBinDir(): string | null {
  const config = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  const fromConfig = config.status === 0 ? config.stdout.trim() : '';
  if (fromConfig && existsSync(join(fromConfig, 'initdb'))) return fromConfig;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb')));
  versions.sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? join(root, versions[0]!, 'bin') : null;
}

const isRoot = process.getuid?.() === 0;

/** Why a private cluster cannot be made here, or null when it can. */
export function pgClusterUnavailable(): string | null {
  if (!pgBinDir()) return 'PostgreSQL server binaries (initdb, pg_ctl) not found';
  if (isRoot && spawnSync('id', ['-u', 'postgres']).status !== 0) return 'running as root and there is no postgres user to run initdb as';
  return null;
}

function asPgUser(cmd: string, args: string[]): { status: number | null; output: string } {
  const r = isRoot
    ? spawnSync('runuser', ['-u', 'postgres', '--', cmd, ...args], { encoding: 'utf8' })
    : spawnSync(cmd, args, { encoding: 'utf8' });
  return { status: r.status, output: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

export async function startPgCluster(): Promise<PgCluster> {
  const bin = pgBinDir()!;
  const dir = mkdtempSync(join(tmpdir(), 'joe-links-pg-'));
  if (isRoot) {
    const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
    chownSync(dir, id('-u'), id('-g'));
  }
  const data = join(dir, 'data');
  const init = asPgUser(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'joe', '--no-sync', '-E', 'UTF8', '--locale=C']);
  if (init.status !== 0) throw new Error(`initdb failed: ${init.output}`);
  const port = await freePort();
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=60`;
  // Asynchronous, so traffic from the test keeps flowing while the database stops and starts.
  const ctl = (...args: string[]) =>
    new Promise<void>((resolve, reject) => {
      const full = [join(bin, 'pg_ctl'), '-D', data, '-w', '-t', '60', ...args];
      const child = isRoot ? spawn('runuser', ['-u', 'postgres', '--', ...full]) : spawn(full[0]!, full.slice(1));
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      child.stderr.on('data', (c: Buffer) => (out += c.toString()));
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`pg_ctl ${args.at(-1)} failed: ${out}`))));
    });
  const cluster: PgCluster = {
    port,
    adminDsn: `postgres://joe@127.0.0.1:${port}/postgres`,
    dsnFor: (db) => `postgres://joe@127.0.0.1:${port}/${db}`,
    start: () => ctl('-l', join(dir, 'log'), '-o', opts, 'start'),
    stop: () => ctl('-m', 'fast', 'stop'),
    destroy: async () => {
      asPgUser(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await cluster.start();
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  return cluster;
}

/** `{ skip }` for a suite needing `env`, printing the same notice as the other database tests. */
export function skipWithout(env: 'JOE_TEST_PG_DSN' | 'JOE_TEST_MYSQL_DSN', what: string): string | false {
  if (process.env[env]) return false;
  process.stderr.write(`NOTICE: ${env} is not set; ${what} is skipped (run .ci/databases.sh start to enable)\n`);
  return `${env} not set`;
}
