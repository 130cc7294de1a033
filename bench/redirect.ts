import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, createWriteStream, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DbConfig } from '../src/config.js';
import { connect } from '../src/db/connect.js';
import { migrateUp } from '../src/db/migrate.js';
import { createStore } from '../src/store/index.js';
import { createTestDatabase } from '../test/helpers/databases.js';
import { createLink } from '../test/helpers/links.js';
import { sessionCookie } from '../test/helpers/server.js';
import { SERVER_CORE, wrk, type LoadResult, type LoadShape } from './wrk.js';

/**
 * Redirect throughput of every kind of go-link hop, each against a bare
 * `node:http` server doing one indexed slug lookup, in alternating rounds of
 * one run (method and figures: bench/RESULTS.md). The measured servers run on
 * one core with their click thread; wrk runs on the other core, so the load
 * generator never competes with what it measures.
 */

const PLAIN = 10_000;
const SECURE = 1_000;
const CONNECTIONS = 50;
const SECONDS = 5;
const ROUNDS = 5;

interface Scenario {
  name: string;
  shape: LoadShape;
  /** Whether each answer stores a click (keyword templates do not). */
  clicks: boolean;
}

interface Seeded {
  cookie: string;
}

async function seed(config: DbConfig, plainOnly: boolean): Promise<Seeded> {
  const db = connect(config);
  try {
    await migrateUp(db);
    const store = createStore(db);
    const owner = await store.users.create({ email: 'bench@example.com', displayName: 'Bench' });
    for (let i = 0; i < PLAIN; i++) await createLink(store, { slug: `link-${i}`, url: `https://example.com/destination/${i}` }, owner.id);
    if (!plainOnly) {
      await createLink(store, { slug: 'jira', url: 'https://jira.example.com/browse/$ticket' }, owner.id);
      for (let i = 0; i < SECURE; i++) {
        await createLink(store, { slug: `secure-${i}`, url: `https://example.com/secret/${i}`, visibility: 'secure' }, owner.id);
      }
      await store.keywords.create({ keyword: 'wiki', urlTemplate: 'https://wiki.example.com/{slug}' });
    }
    // A day-long session, so no round outlives it.
    return { cookie: await sessionCookie(store, owner, 86_400_000) };
  } finally {
    await db.close();
  }
}

function scenarios(cookie: string): Scenario[] {
  const signedIn = { cookie };
  return [
    { name: 'anonymous', clicks: true, shape: { path: '"/link-" .. n', count: PLAIN } },
    { name: 'signed_in', clicks: true, shape: { path: '"/link-" .. n', count: PLAIN, headers: signedIn } },
    { name: 'template', clicks: true, shape: { path: '"/jira/ABC-" .. n', count: PLAIN } },
    { name: 'keyword_host', clicks: false, shape: { path: '"/page-" .. n', count: PLAIN, headers: { Host: 'wiki' } } },
    { name: 'secure_owner', clicks: true, shape: { path: '"/secure-" .. n', count: SECURE, headers: signedIn } },
  ];
}

/** `BENCH_REDIRECT_KINDS=anonymous,template` measures only those kinds (all when unset). */
function chosen(list: Scenario[]): Scenario[] {
  const names = process.env.BENCH_REDIRECT_KINDS?.split(',').filter((n) => n !== '');
  return names?.length ? list.filter((s) => names.includes(s.name)) : list;
}

/** What the bare server answers: the same stride through the plain links. */
const BARE: LoadShape = { path: '"/link-" .. n', count: PLAIN };

function pinned(command: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn('taskset', ['-c', SERVER_CORE, command, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
}

function waitFor(child: ChildProcess, pattern: RegExp): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (c: Buffer) => {
      out += c.toString();
      if (!pattern.test(out)) return;
      child.stdout?.off('data', onData);
      child.stderr?.off('data', onData);
      // Keep draining, so a chatty server never blocks on a full pipe.
      child.stdout?.resume();
      child.stderr?.resume();
      resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => reject(new Error(`server exited (${code}): ${out}`)));
  });
}

/**
 * A metric's value on the server's /metrics (a sample without labels), asking for that family
 * alone: the settling wait asks every 10 ms, and a whole scrape would take the core from the
 * click thread it waits for.
 */
async function counter(port: number, name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics?name[]=${name}`)).text();
  const m = new RegExp(`^${name} ([\\d.e+-]+)`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
}

/**
 * The event loop's longest delay since the previous scrape, in ms: read right after a round,
 * it says whether the server itself stopped answering (a long delay) or only got less of the
 * core (a short one).
 */
const loopMaxMs = async (port: number) => (await counter(port, 'nodejs_eventloop_lag_max_seconds')) * 1000;

/** How often the settling wait asks the server how many clicks it has stored. */
const SETTLE_POLL_MS = 10;

/**
 * Waits until the server has stored a click for every redirect wrk counted,
 * and fails if it dropped any. Returns how long that took after wrk ended:
 * recording clicks is part of what is measured, so a round of ours lasts
 * until its last click is stored (clicks left waiting in a batch would
 * otherwise be stored for free between rounds).
 */
async function settleClicks(port: number, expected: number): Promise<number> {
  const start = performance.now();
  const deadline = Date.now() + 120_000;
  while ((await counter(port, 'joelinks_clicks_recorded_total')) < expected) {
    if (Date.now() > deadline) throw new Error(`clicks of ${expected} redirects were not all stored within 120 s`);
    await new Promise((r) => setTimeout(r, SETTLE_POLL_MS));
  }
  const settledMs = performance.now() - start;
  const dropped = await counter(port, 'joelinks_clicks_dropped_total');
  if (dropped > 0) throw new Error(`the server dropped ${dropped} clicks under load`);
  return settledMs;
}

/** Clock ticks per second of /proc's CPU times (`getconf CLK_TCK`; 100 on Linux). */
const CLK_TCK = 100;

/** CPU seconds each thread of `pid` has used so far, by thread id (Linux /proc; empty elsewhere). */
function threadCpu(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      // Fields after the parenthesised name: state is 3rd, utime 14th, stime 15th.
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(tid), (Number(f[11]) + Number(f[12])) / CLK_TCK);
    }
  } catch {
    // Not Linux, or the process is gone: no per-thread figures.
  }
  return out;
}

/**
 * Where a round's CPU went, in µs per redirect: the thread answering redirects (the process's
 * own thread), the busiest other thread (on SQLite, the click thread) and every other thread.
 */
export interface ThreadCost {
  mainUs: number;
  clickUs: number;
  otherUs: number;
}

function threadCost(pid: number, before: Map<number, number>, after: Map<number, number>, requests: number): ThreadCost {
  const used = [...after].map(([tid, s]) => [tid, s - (before.get(tid) ?? 0)] as const);
  const main = used.find(([tid]) => tid === pid)?.[1] ?? 0;
  const others = used.filter(([tid]) => tid !== pid).map(([, s]) => s);
  const click = Math.max(0, ...others);
  const total = others.reduce((a, b) => a + b, 0);
  const per = (s: number) => (requests > 0 ? (s * 1e6) / requests : 0);
  return { mainUs: per(main), clickUs: per(click), otherUs: per(total - click) };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The tail bound of a round: our p99 within three times the bare server's, or 15 ms. */
export const tailBoundMs = (bareP99Ms: number) => Math.max(3 * bareP99Ms, 15);

/** One round of ours and the bare round right after it. */
export interface Round {
  ratio: number;
  oursP99Ms: number;
  oursMaxMs: number;
  bareP99Ms: number;
  bareMaxMs: number;
  /** Our event loop's longest delay over the round. */
  loopMaxMs: number;
  /** Our server's CPU per redirect over the round and the storing of its clicks. */
  cpu: ThreadCost;
  /** The bare server's CPU per request, all threads. */
  bareCpuUs: number;
}

export interface ScenarioResult {
  name: string;
  /** Median of the per-round ratios ours / bare. */
  ratio: number;
  ratios: number[];
  oursRps: number;
  bareRps: number;
  /** Median over rounds of our p99 latency. */
  p99Ms: number;
  rounds: Round[];
}

interface Servers {
  /** The servers' process ids, for their CPU per request. */
  oursPid: number;
  barePid: number;
  oursPort: number;
  barePort: number;
  list: Scenario[];
}

/**
 * Alternating rounds: each of our rounds is compared with the baseline round
 * right after it, because this machine's speed drifts by tens of percent
 * within minutes and far less within one pair.
 */
async function measure(servers: Servers): Promise<ScenarioResult[]> {
  return (await measureEach([servers]))[0]!;
}

/** `measure` for several of our servers at once, their rounds taken in turn. */
async function measureEach(all: Servers[]): Promise<ScenarioResult[][]> {
  const sides = all.map(side);
  for (const s of sides) await s.warm();
  for (let r = 0; r < ROUNDS; r++) for (const s of sides) await s.round();
  return sides.map((s) => s.results());
}

/** One of our servers: its warm-up, its rounds, its results. */
function side({ oursPid, barePid, oursPort, barePort, list }: Servers) {
  const load = { connections: CONNECTIONS, seconds: SECONDS };
  let clicks = 0;
  type Ours = LoadResult & { loopMaxMs: number; cpu: ThreadCost };
  const ours = async (s: Scenario): Promise<Ours> => {
    // Starts the event loop's delay afresh, so the figure read after wrk is this round's.
    await loopMaxMs(oursPort);
    const before = threadCpu(oursPid);
    const r = await wrk(oursPort, s.shape, load);
    const loop = await loopMaxMs(oursPort);
    if (s.clicks) clicks += r.requests;
    const settledMs = await settleClicks(oursPort, clicks);
    const cpu = threadCost(oursPid, before, threadCpu(oursPid), r.requests);
    // Our rate over the round and the storing of its clicks.
    return { ...r, rps: r.requests / (r.requests / r.rps + settledMs / 1000), loopMaxMs: loop, cpu };
  };
  const bare = async (): Promise<LoadResult & { cpuUs: number }> => {
    const before = threadCpu(barePid);
    const r = await wrk(barePort, BARE, load);
    const c = threadCost(barePid, before, threadCpu(barePid), r.requests);
    return { ...r, cpuUs: c.mainUs + c.clickUs + c.otherUs };
  };
  const runs = new Map(list.map((s) => [s.name, [] as { ours: Ours; bare: LoadResult & { cpuUs: number } }[]]));
  // Warm-up: JIT, statement caches and page cache on both sides.
  const warm = async () => {
    for (const s of list) await ours(s);
    await bare();
  };
  const round = async () => {
    for (const s of list) {
      const o = await ours(s);
      runs.get(s.name)!.push({ ours: o, bare: await bare() });
    }
  };
  const results = () =>
    list.map((s) => {
      const pairs = runs.get(s.name)!;
      const ratios = pairs.map((p) => p.ours.rps / p.bare.rps);
      return {
        name: s.name,
        ratio: median(ratios),
        ratios,
        oursRps: median(pairs.map((p) => p.ours.rps)),
        bareRps: median(pairs.map((p) => p.bare.rps)),
        p99Ms: median(pairs.map((p) => p.ours.p99Ms)),
        rounds: pairs.map((p) => ({
          ratio: p.ours.rps / p.bare.rps,
          oursP99Ms: p.ours.p99Ms,
          oursMaxMs: p.ours.maxMs,
          bareP99Ms: p.bare.p99Ms,
          bareMaxMs: p.bare.maxMs,
          loopMaxMs: p.ours.loopMaxMs,
          cpu: p.ours.cpu,
          bareCpuUs: p.bare.cpuUs,
        })),
      };
    });
  return { warm, round, results };
}

/**
 * Our server's command line. To see inside a stall, `BENCH_SERVER_NODE_FLAGS` gives our server
 * (not the bare one) extra Node flags (`--trace-gc`) and `BENCH_SERVER_LOG` names a file its
 * output is appended to.
 */
const ourNodeArgs = (script: string, ...args: string[]) => [
  ...(process.env.BENCH_SERVER_NODE_FLAGS?.split(' ').filter((f) => f !== '') ?? []),
  script,
  ...args,
];

function serverEnv(config: DbConfig, port: number): NodeJS.ProcessEnv {
  return {
    ...process.env,
    JOE_DB_DRIVER: config.driver,
    JOE_DB_DSN: config.dsn,
    JOE_HTTP_ADDR: `127.0.0.1:${port}`,
    JOE_HEALTH_CHECKS_ENABLED: 'false',
    JOE_LOG_LEVEL: 'info',
  };
}

async function withServers<T>(ours: ChildProcess, bare: ChildProcess, work: () => Promise<T>): Promise<T> {
  const log = process.env.BENCH_SERVER_LOG;
  if (log) {
    const file = createWriteStream(log, { flags: 'a' });
    ours.stdout?.pipe(file);
    ours.stderr?.pipe(file);
  }
  try {
    await Promise.all([waitFor(ours, /listening on/), waitFor(bare, /ready/)]);
    return await work();
  } finally {
    ours.kill('SIGTERM');
    bare.kill('SIGTERM');
  }
}

/** Every kind of redirect on an SQLite file, each against the bare better-sqlite3 server. */
export async function benchRedirects(): Promise<ScenarioResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'joe-links-bench-'));
  const config: DbConfig = { driver: 'sqlite3', dsn: join(dir, 'bench.db') };
  const { cookie } = await seed(config, false);
  // The baseline reads its own copy: our click writes grow the shared file's
  // WAL, which would otherwise make its reads vary from round to round.
  const barePath = join(dir, 'bare.db');
  copyFileSync(config.dsn, barePath);
  const oursPort = 18_181;
  const barePort = 18_182;
  const ours = pinned(process.execPath, ourNodeArgs('dist/src/cli.js', 'serve'), serverEnv(config, oursPort));
  const bare = pinned(process.execPath, ['bench/bareServer.mjs', barePath, String(barePort)], process.env);
  return withServers(ours, bare, () =>
    measure({ oursPid: ours.pid!, barePid: bare.pid!, oursPort, barePort, list: chosen(scenarios(cookie)) }),
  );
}

/**
 * What the go-link front (`serverFactory`, src/http/goLinks.ts) saves against a plain Fastify
 * route: the anonymous hop of `serve` as it is and of the same server with the front turned
 * off (bench/routeOnlyServer.mjs), each on its own copy of the seeded file, each against the
 * bare server in the round right after it.
 */
export async function benchFrontVsRoute(): Promise<{ front: ScenarioResult; route: ScenarioResult }> {
  const dir = mkdtempSync(join(tmpdir(), 'joe-links-bench-'));
  const seeded: DbConfig = { driver: 'sqlite3', dsn: join(dir, 'front.db') };
  await seed(seeded, true);
  const routeConfig: DbConfig = { ...seeded, dsn: join(dir, 'route.db') };
  copyFileSync(seeded.dsn, routeConfig.dsn);
  const barePath = join(dir, 'bare.db');
  copyFileSync(seeded.dsn, barePath);
  const [frontPort, routePort, barePort] = [18_185, 18_186, 18_187];
  const front = pinned(process.execPath, ourNodeArgs('dist/src/cli.js', 'serve'), serverEnv(seeded, frontPort));
  const route = pinned(process.execPath, ourNodeArgs('bench/routeOnlyServer.mjs'), serverEnv(routeConfig, routePort));
  const bare = pinned(process.execPath, ['bench/bareServer.mjs', barePath, String(barePort)], process.env);
  try {
    await waitFor(route, /listening on/);
    const anonymous = scenarios('').slice(0, 1);
    return await withServers(front, bare, async () => {
      // Two servers measured in turn, each round followed by its own bare round.
      const [f, r] = await measureEach([
        { oursPid: front.pid!, barePid: bare.pid!, oursPort: frontPort, barePort, list: anonymous },
        { oursPid: route.pid!, barePid: bare.pid!, oursPort: routePort, barePort, list: anonymous },
      ]);
      return { front: f![0]!, route: r![0]! };
    });
  } finally {
    route.kill('SIGTERM');
  }
}

/**
 * Anonymous redirects on PostgreSQL (JOE_TEST_PG_DSN) against a bare
 * `node:http` + `pg` server with the same pool size; null when it is not set.
 */
export async function benchPostgresRedirects(): Promise<ScenarioResult | null> {
  if (!process.env.JOE_TEST_PG_DSN) return null;
  const database = await createTestDatabase('postgres');
  try {
    await seed(database.config, true);
    const oursPort = 18_183;
    const barePort = 18_184;
    const ours = pinned(process.execPath, ourNodeArgs('dist/src/cli.js', 'serve'), serverEnv(database.config, oursPort));
    const bare = pinned(process.execPath, ['bench/barePgServer.mjs', database.config.dsn, String(barePort)], process.env);
    const [result] = await withServers(ours, bare, () =>
      measure({ oursPid: ours.pid!, barePid: bare.pid!, oursPort, barePort, list: scenarios('').slice(0, 1) }),
    );
    return result!;
  } finally {
    await database.drop();
  }
}
