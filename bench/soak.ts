import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import pg from 'pg';
import { Pool } from 'undici';
import { connect } from '../src/db/connect.js';
import { migrateUp } from '../src/db/migrate.js';
import { createStore } from '../src/store/index.js';
import { createLink } from '../test/helpers/links.js';

/**
 * `npm run soak` (issue 10, not part of `npm test`): one server on
 * PostgreSQL under mixed traffic for JOE_SOAK_SECONDS (default 600) —
 * redirects, API writes, stats reads, app-state link posts — printing the
 * error count, p50/p99 latency per route class and the server's RSS at start
 * and end. Targets: zero 5xx and RSS growth under 10 %. Exits 1 when a target
 * is missed.
 *
 * JOE_SOAK_PG_DSN (else JOE_TEST_PG_DSN) names a PostgreSQL server where a
 * fresh database is created and dropped again. JOE_SOAK_RPS paces the load
 * (default 300 requests/s; 0 = as fast as JOE_SOAK_CONNECTIONS allow).
 */

const env = (name: string, fallback: number) => {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got "${v}"`);
  return n;
};
const DURATION_S = env('JOE_SOAK_SECONDS', 600);
const RPS = env('JOE_SOAK_RPS', 300);
const CONNECTIONS = Math.max(1, env('JOE_SOAK_CONNECTIONS', 16));
/** RSS "start" is taken after this warm-up, once JIT, pools and caches have settled. */
const WARMUP_S = Math.min(60, Math.max(10, DURATION_S / 10));
const LINKS = 500;

type RouteClass = 'redirect' | 'api_write' | 'stats_read' | 'state_post';
/** Share of requests per class; redirects dominate, as in real use. */
const MIX: Array<[RouteClass, number]> = [
  ['redirect', 0.7],
  ['api_write', 0.1],
  ['stats_read', 0.1],
  ['state_post', 0.1],
];

const adminDsn = process.env.JOE_SOAK_PG_DSN || process.env.JOE_TEST_PG_DSN;
if (!adminDsn) {
  console.error('soak: set JOE_SOAK_PG_DSN (or JOE_TEST_PG_DSN) to a PostgreSQL server, e.g. eval "$(.ci/databases.sh env)"');
  process.exit(2);
}

const build = spawnSync(process.execPath, ['scripts/build.mjs', '--if-needed'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const dbName = `jl_soak_${randomBytes(4).toString('hex')}`;
const dsnFor = (name: string) => {
  const u = new URL(adminDsn);
  u.pathname = `/${name}`;
  return u.toString();
};
const adminQuery = async (sql: string) => {
  const c = new pg.Client({ connectionString: adminDsn });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
};
await adminQuery(`create database ${dbName}`);
const dsn = dsnFor(dbName);

/** Current RSS of a process in MiB, from /proc (Linux). */
function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

class Samples {
  private buf = new Float64Array(1 << 16);
  n = 0;
  add(v: number) {
    if (this.n === this.buf.length) {
      const next = new Float64Array(this.buf.length * 2);
      next.set(this.buf);
      this.buf = next;
    }
    this.buf[this.n++] = v;
  }
  sorted(): Float64Array {
    return this.buf.slice(0, this.n).sort();
  }
}

const cwd = mkdtempSync(join(tmpdir(), 'joe-links-soak-'));
let exitCode = 0;
try {
  // Seed: one user with a token and LINKS links.
  const db = connect({ driver: 'postgres', dsn }, { poolSize: 4 });
  await migrateUp(db);
  const store = createStore(db);
  const owner = await store.users.create({ email: 'soak@example.com' });
  const { plaintext: token } = await store.tokens.create(owner.id, 'soak', null);
  const seeded: Array<{ id: string; slug: string }> = [];
  for (let i = 0; i < LINKS; i++) {
    const l = await createLink(store, { slug: `soak-${i}`, url: `https://example.com/soak/${i}` }, owner.id);
    seeded.push({ id: l.id, slug: l.slug });
  }
  await db.close();

  const child = spawn(process.execPath, [resolve('dist/src/cli.js'), 'serve'], {
    cwd,
    env: {
      PATH: process.env.PATH ?? '',
      JOE_DB_DRIVER: 'postgres',
      JOE_DB_DSN: dsn,
      JOE_HTTP_ADDR: '127.0.0.1:0',
      JOE_HEALTH_CHECKS_ENABLED: 'false',
      // Budgets are per client; here one client is the whole load, so lift them.
      JOE_API_RATE_LIMIT: '0',
      JOE_STATE_LINKS_MAX_ATTEMPTS: '100000000',
      JOE_STATE_LINKS_MAX_CREATES: '100000000',
      JOE_STATE_LINKS_MAX_READS: '100000000',
      JOE_LOG_LEVEL: 'info',
      JOE_BACKUP_DIR: join(cwd, 'backups'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let errorLogLines = 0;
  const onData = (c: Buffer) => {
    const text = c.toString();
    errorLogLines += (text.match(/"level":(50|60)/g) ?? []).length;
    out += text;
    if (out.length > 1 << 20) out = out.slice(-(1 << 19));
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const base = await new Promise<string>((resolve, reject) => {
    const t = setInterval(() => {
      const m = /"msg":"listening on ([^"]+)"/.exec(out);
      if (m) {
        clearInterval(t);
        resolve(`http://${m[1]}`);
      } else if (child.exitCode !== null) {
        clearInterval(t);
        reject(new Error(`server exited: ${out}`));
      }
    }, 50);
  });
  const pid = child.pid!;
  const http = new Pool(base, { connections: CONNECTIONS });
  const auth = { authorization: `Bearer ${token}` };
  const json = { ...auth, 'content-type': 'application/json' };

  // The stats endpoint may not exist in this build: fall back to reading the link itself.
  const probe = await http.request({ path: `/api/v1/links/${seeded[0]!.id}/stats`, method: 'GET', headers: auth });
  await probe.body.dump();
  const statsPath = probe.statusCode === 404 ? (id: string) => `/api/v1/links/${id}` : (id: string) => `/api/v1/links/${id}/stats`;
  const statsRoute = probe.statusCode === 404 ? 'GET /api/v1/links/{id} (stats route answered 404)' : 'GET /api/v1/links/{id}/stats';

  const latency = new Map<RouteClass, Samples>(MIX.map(([c]) => [c, new Samples()]));
  const statusCounts = new Map<string, number>();
  let errors = 0;
  let fivexx = 0;
  let netErrors = 0;
  let redirects302 = 0;
  const created: string[] = [];
  let createdN = 0;
  const recentPayloads: string[] = [];
  let rng = 0x2545f491;
  const rand = () => {
    rng ^= rng << 13;
    rng ^= rng >>> 17;
    rng ^= rng << 5;
    return (rng >>> 0) / 2 ** 32;
  };
  const pick = (): RouteClass => {
    let r = rand();
    for (const [c, w] of MIX) if ((r -= w) < 0) return c;
    return 'redirect';
  };

  /** What a web app posts: its state as gzipped JSON in base64url after the prefix. */
  const statePayload = () => {
    const state = { view: 'table', filters: randomBytes(128 + Math.floor(rand() * 1024)).toString('hex'), page: Math.floor(rand() * 100) };
    return `#state=v1.${gzipSync(JSON.stringify(state)).toString('base64url')}`;
  };

  async function once(): Promise<void> {
    const cls = pick();
    let path: string;
    let method = 'GET';
    let headers: Record<string, string> = {};
    let body: string | undefined;
    let ok: number[];
    switch (cls) {
      case 'redirect': {
        path = `/${seeded[Math.floor(rand() * seeded.length)]!.slug}`;
        ok = [302];
        break;
      }
      case 'api_write': {
        // Creates, with deletes keeping the table from growing without bound.
        if (created.length > 50 && rand() < 0.45) {
          path = `/api/v1/links/${created.splice(Math.floor(rand() * created.length), 1)[0]!}`;
          method = 'DELETE';
          headers = auth;
          ok = [204];
        } else {
          path = '/api/v1/links';
          method = 'POST';
          headers = json;
          body = JSON.stringify({ slug: `soak-w-${process.pid}-${createdN++}`, url: `https://example.com/w/${createdN}`, tags: ['soak'] });
          ok = [201];
        }
        break;
      }
      case 'stats_read': {
        path = statsPath(seeded[Math.floor(rand() * seeded.length)]!.id);
        headers = auth;
        ok = [200];
        break;
      }
      case 'state_post': {
        // Half repeat a recent payload (deduplicated: 200), half are new (201).
        const repeat = recentPayloads.length > 0 && rand() < 0.5;
        body = repeat ? recentPayloads[Math.floor(rand() * recentPayloads.length)]! : statePayload();
        if (!repeat) {
          recentPayloads.push(body);
          if (recentPayloads.length > 100) recentPayloads.shift();
        }
        path = '/api/links';
        method = 'POST';
        headers = { 'content-type': 'text/plain' };
        ok = [200, 201];
        break;
      }
    }
    const t0 = performance.now();
    try {
      const res = await http.request({ path, method: method as 'GET', headers, body });
      const text = await res.body.text();
      latency.get(cls)!.add(performance.now() - t0);
      const key = `${cls} ${res.statusCode}`;
      statusCounts.set(key, (statusCounts.get(key) ?? 0) + 1);
      if (res.statusCode >= 500) fivexx++;
      if (!ok.includes(res.statusCode)) errors++;
      if (cls === 'redirect' && res.statusCode === 302) redirects302++;
      if (cls === 'api_write' && method === 'POST' && res.statusCode === 201) created.push((JSON.parse(text) as { id: string }).id);
    } catch {
      netErrors++;
      errors++;
    }
  }

  const heapUsedMb = async () => {
    const res = await http.request({ path: '/metrics', method: 'GET' });
    const m = /^nodejs_heap_size_used_bytes ([0-9.e+]+)$/m.exec(await res.body.text());
    return m ? Number(m[1]) / 2 ** 20 : NaN;
  };
  const rssIdle = rssMb(pid);
  const startedAt = performance.now();
  const deadline = startedAt + DURATION_S * 1000;
  const perWorkerGapMs = RPS > 0 ? (1000 * CONNECTIONS) / RPS : 0;
  let heapStart = NaN;
  let heapAsked = false;
  const rssSeries: number[] = [];
  const sampler = setInterval(() => {
    const now = performance.now();
    rssSeries.push(rssMb(pid));
    if (!heapAsked && now - startedAt >= WARMUP_S * 1000) {
      heapAsked = true;
      void heapUsedMb().then((v) => (heapStart = v));
    }
  }, 1000);
  const progress = setInterval(() => {
    const done = [...latency.values()].reduce((a, s) => a + s.n, 0);
    console.error(
      `soak: ${((performance.now() - startedAt) / 1000).toFixed(0)} s, ${done} requests, ${errors} errors, rss ${rssMb(pid).toFixed(1)} MiB`,
    );
  }, 30_000);

  await Promise.all(
    Array.from({ length: CONNECTIONS }, async (_, w) => {
      // Workers start spread over one gap so the paced load is even, not in bursts.
      let next = performance.now() + (perWorkerGapMs * w) / CONNECTIONS;
      while (performance.now() < deadline) {
        const wait = next - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        next = Math.max(next + perWorkerGapMs, performance.now() - perWorkerGapMs);
        await once();
      }
    }),
  );
  const elapsedS = (performance.now() - startedAt) / 1000;
  clearInterval(sampler);
  clearInterval(progress);
  // RSS swings with garbage collection by tens of MiB; compare medians of a window at each end.
  const window = Math.max(5, Math.min(30, Math.round(DURATION_S / 20)));
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
  const rssEnd = median(rssSeries.slice(-window));
  const rssStart = median(rssSeries.slice(WARMUP_S, WARMUP_S + window));
  const heapEnd = await heapUsedMb();
  await http.close();

  child.kill('SIGTERM');
  const code = await exited;
  const check = new pg.Client({ connectionString: dsn });
  await check.connect();
  const stored = Number((await check.query<{ n: string }>('select count(*) as n from link_clicks')).rows[0]!.n);
  await check.end();

  const total = [...latency.values()].reduce((a, s) => a + s.n, 0) + netErrors;
  const growth = ((rssEnd - rssStart) / rssStart) * 100;
  const f1 = (v: number) => v.toFixed(1);
  console.log(`soak_duration_s=${f1(elapsedS)} connections=${CONNECTIONS} target_rps=${RPS || 'max'} achieved_rps=${f1(total / elapsedS)}`);
  console.log(`soak_requests_total=${total}`);
  console.log(`soak_stats_route=${statsRoute}`);
  for (const [cls] of MIX) {
    const s = latency.get(cls)!.sorted();
    console.log(
      `soak_${cls}: n=${s.length} p50_ms=${f1(percentile(s, 50))} p99_ms=${f1(percentile(s, 99))} max_ms=${f1(s[s.length - 1] ?? NaN)}`,
    );
  }
  console.log(`soak_statuses=${JSON.stringify(Object.fromEntries([...statusCounts].sort()))}`);
  console.log(`soak_errors=${errors} (unexpected status or connection error; ${netErrors} connection errors)`);
  console.log(`soak_5xx=${fivexx} (target 0)`);
  console.log(`soak_server_error_log_lines=${errorLogLines}`);
  console.log(
    `soak_rss_idle_mb=${f1(rssIdle)} soak_rss_start_mb=${f1(rssStart)} soak_rss_end_mb=${f1(rssEnd)} (medians of ${window} s after a ${WARMUP_S} s warm-up / before the end) soak_rss_max_mb=${f1(Math.max(...rssSeries))}`,
  );
  console.log(`soak_rss_growth_pct=${f1(growth)} (target < 10)`);
  const every = Math.max(1, Math.round(rssSeries.length / 12));
  console.log(
    `soak_rss_series_mb=${rssSeries
      .filter((_, i) => i % every === 0)
      .map((v) => v.toFixed(0))
      .join(',')} (every ${every} s)`,
  );
  console.log(`soak_heap_used_mb start=${f1(heapStart)} end=${f1(heapEnd)}`);
  console.log(`soak_clicks_stored=${stored} (302 responses: ${redirects302}) server_exit=${code}`);
  const pass = fivexx === 0 && growth < 10 && code === 0 && stored === redirects302;
  console.log(`soak_result=${pass ? 'PASS' : 'FAIL'}`);
  if (!pass) exitCode = 1;
} catch (e) {
  console.error(`soak failed: ${(e as Error).stack ?? String(e)}`);
  exitCode = 1;
} finally {
  rmSync(cwd, { recursive: true, force: true });
  if (!process.env.JOE_SOAK_KEEP_DB) await adminQuery(`drop database if exists ${dbName} with (force)`).catch(() => {});
}
process.exit(exitCode);
