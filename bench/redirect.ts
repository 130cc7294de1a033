import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { connect } from '../src/db/connect.js';
import { migrateUp } from '../src/db/migrate.js';
import { createStore } from '../src/store/index.js';
import { createLink } from '../test/helpers/links.js';

const LINKS = 10_000;
const CONNECTIONS = 50;
const DURATION_S = 8;
/** Rounds of each server, alternating; the ratio is the median of the rounds' own ratios. */
const ROUNDS = 5;

function waitFor(child: ChildProcess, pattern: RegExp): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (c: Buffer) => {
      out += c.toString();
      if (!pattern.test(out)) return;
      // Stop collecting: the load generator shares this process.
      child.stdout?.off('data', onData);
      child.stderr?.off('data', onData);
      child.stdout?.resume();
      child.stderr?.resume();
      resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => reject(new Error(`server exited (${code}): ${out}`)));
  });
}

async function seed(dbPath: string): Promise<string[]> {
  const db = connect({ driver: 'sqlite3', dsn: dbPath });
  await migrateUp(db);
  const store = createStore(db);
  const owner = await store.users.create({ email: 'bench@example.com' });
  const slugs: string[] = [];
  for (let i = 0; i < LINKS; i++) {
    const slug = `link-${i}`;
    await createLink(store, { slug, url: `https://example.com/destination/${i}` }, owner.id);
    slugs.push(slug);
  }
  await db.close();
  return slugs;
}

interface LoadRun {
  rps: number;
  redirects: number;
}

async function load(port: number, slugs: string[]): Promise<LoadRun> {
  let i = 0;
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: CONNECTIONS,
    duration: DURATION_S,
    requests: [
      {
        setupRequest: (req) => {
          i = (i + 7919) % slugs.length;
          return { ...req, path: `/${slugs[i]}` };
        },
      },
    ],
  });
  const bad = result.non2xx - (result['3xx'] ?? 0);
  if (result.errors > 0 || bad > 0) throw new Error(`load run had ${result.errors} errors and ${bad} non-redirects`);
  return { rps: result.requests.average, redirects: result['3xx'] ?? 0 };
}

/** A counter's value on the server's /metrics. */
async function counter(port: number, name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const m = new RegExp(`^${name} (\\d+)`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
}

/**
 * Waits until the server has stored a click for every redirect it answered,
 * and fails if it dropped any: click recording is part of what is measured,
 * and work it left over would otherwise run during the baseline's round.
 */
async function settleClicks(port: number, redirects: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  while ((await counter(port, 'joelinks_clicks_recorded_total')) < redirects) {
    if (Date.now() > deadline) throw new Error(`clicks of ${redirects} redirects were not all stored within 60 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const dropped = await counter(port, 'joelinks_clicks_dropped_total');
  if (dropped > 0) throw new Error(`the server dropped ${dropped} clicks under load`);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Redirect throughput of `GET /{slug}` with click recording on, against the
 * bare baseline, alternating rounds in one run (architecture.md §6).
 */
export async function benchRedirects(): Promise<{ ours: number; bare: number; ratio: number; ratios: number[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'joe-links-bench-'));
  const dbPath = join(dir, 'bench.db');
  const slugs = await seed(dbPath);
  // The baseline reads its own copy of the same links: our click writes grow the
  // shared file's WAL, which would otherwise make its reads vary from round to round.
  const barePath = join(dir, 'bare.db');
  copyFileSync(dbPath, barePath);

  const oursPort = 18_181;
  const barePort = 18_182;
  const ours = spawn(process.execPath, ['dist/src/cli.js', 'serve'], {
    env: {
      ...process.env,
      JOE_DB_DSN: dbPath,
      JOE_HTTP_ADDR: `127.0.0.1:${oursPort}`,
      JOE_HEALTH_CHECKS_ENABLED: 'false',
      JOE_LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const bare = spawn(process.execPath, ['bench/bareServer.mjs', barePath, String(barePort)], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    await Promise.all([waitFor(ours, /listening on/), waitFor(bare, /ready/)]);
    // Warm both up so JIT and caches are comparable.
    let redirects = (await load(oursPort, slugs)).redirects;
    await settleClicks(oursPort, redirects);
    await load(barePort, slugs);
    const oursRuns: number[] = [];
    const bareRuns: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const ran = await load(oursPort, slugs);
      oursRuns.push(ran.rps);
      redirects += ran.redirects;
      await settleClicks(oursPort, redirects);
      bareRuns.push((await load(barePort, slugs)).rps);
    }
    // Each of our rounds is compared with the baseline round right after it: the
    // VM's speed drifts by tens of percent within minutes, far less within one pair.
    const ratios = oursRuns.map((o, r) => o / bareRuns[r]!);
    return { ours: median(oursRuns), bare: median(bareRuns), ratio: median(ratios), ratios };
  } finally {
    ours.kill('SIGTERM');
    bare.kill('SIGTERM');
  }
}
