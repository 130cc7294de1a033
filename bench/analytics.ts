import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { connect, type Db } from '../src/db/connect.js';
import { migrateUp } from '../src/db/migrate.js';
import type { LinkClicksTable } from '../src/db/schema.js';
import { dashboardScopeFor } from '../src/domain/statsScope.js';
import { DAY_MS } from '../src/domain/timeseries.js';
import { UA_MAX_RUNES, parseUserAgent } from '../src/domain/userAgent.js';
import { createStore } from '../src/store/index.js';

/**
 * Analytics at the reference scale of docs/server.md#performance-targets / docs/analytics.md:
 * 1,000,000 link_clicks rows on SQLite, one link holding 200,000 of them
 * inside the 90-day window. Prints the in-process (server-side) time of each
 * read and the RSS growth of streaming a 100,000-row CSV export.
 */

const TOTAL_CLICKS = 1_000_000;
const HOT_CLICKS = 200_000;
const OTHER_LINKS = 1_999;
const USERS = 200;
const RUNS = 7;

/** Real-world UA strings, repeated the way real traffic repeats them. */
const USER_AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.2478.51',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:125.0) Gecko/20100101 Firefox/125.0',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Safari/605.1.15',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0',
  'curl/8.5.0',
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
];

const REFERRER_HOSTS = Array.from({ length: 40 }, (_, i) => `https://site-${i}.example`);

/** Deterministic PRNG (mulberry32) so every run seeds the same world. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface World {
  dbPath: string;
  dir: string;
  hotLinkId: string;
  owner: { id: string; isAdmin: boolean };
  admin: { id: string; isAdmin: boolean };
  seedMs: number;
}

export async function seed(now: number, dir = mkdtempSync(join(tmpdir(), 'joe-links-bench-analytics-'))): Promise<World> {
  const started = performance.now();
  const dbPath = join(dir, 'bench.db');
  const db = connect({ driver: 'sqlite3', dsn: dbPath });
  await migrateUp(db);
  // Seeding only: a large page cache keeps random-UUID primary-key inserts off the disk.
  db.sqlite!.pragma('cache_size = -524288');
  const store = createStore(db, () => now);
  const owner = await store.users.create({ email: 'owner@example.com', displayName: 'Owner' });
  const admin = await store.users.create({ email: 'admin@example.com', displayName: 'Admin', role: 'admin' });
  const others: string[] = [];
  for (let i = 0; i < USERS; i++) others.push((await store.users.create({ email: `u${i}@example.com`, displayName: `User ${i}` })).id);
  const random = rng(42);
  const k = db.kysely;
  // Links straight into their tables: the bench measures reads, not link creation.
  const linkIds: string[] = [];
  await k.transaction().execute(async (trx) => {
    for (let i = 0; i <= OTHER_LINKS; i++) {
      const id = randomUUID();
      linkIds.push(id);
      const createdAt = now - 400 * DAY_MS + Math.floor(random() * 380 * DAY_MS);
      await trx
        .insertInto('links')
        .values({
          id,
          slug: `link-${i}`,
          url: `https://example.com/${i}`,
          title: null,
          description: null,
          visibility: 'public',
          created_at: createdAt,
          updated_at: createdAt,
          expires_at: null,
          archived_at: null,
        })
        .execute();
      // The owner owns a quarter of the links (the hot one included); the rest belong to others.
      const ownerId = i % 4 === 0 ? owner.id : others[i % others.length]!;
      await trx.insertInto('link_owners').values({ link_id: id, user_id: ownerId, is_primary: 1, created_at: createdAt }).execute();
    }
  });
  const hotLinkId = linkIds[0]!;

  // Clicks in time order, one hour at a time, the way the click writer appends them.
  const hours = 365 * 24;
  const startHour = Math.floor(now / 3_600_000) - hours + 1;
  // The hot link's clicks all fall inside the 90-day chart window: whole UTC days up to now.
  const hotStart = Math.floor(now / DAY_MS) * DAY_MS - 89 * DAY_MS;
  const hotHours = Math.ceil((now - hotStart) / 3_600_000);
  const otherPerHour = (TOTAL_CLICKS - HOT_CLICKS) / hours;
  const hotPerHour = HOT_CLICKS / hotHours;
  let hotLeft = HOT_CLICKS;
  let otherLeft = TOTAL_CLICKS - HOT_CLICKS;
  let hotCarry = 0;
  let otherCarry = 0;
  let pending: LinkClicksTable[] = [];
  const flush = async (trx: typeof k) => {
    for (let i = 0; i < pending.length; i += 1_000)
      await trx
        .insertInto('link_clicks')
        .values(pending.slice(i, i + 1_000))
        .execute();
    pending = [];
  };
  await k.transaction().execute(async (trx) => {
    for (let h = 0; h < hours; h++) {
      const hourStart = (startHour + h) * 3_600_000;
      const last = h === hours - 1;
      otherCarry += otherPerHour;
      const nOther = last ? otherLeft : Math.min(otherLeft, Math.floor(otherCarry));
      otherCarry -= nOther;
      let nHot = 0;
      if (hourStart >= hotStart) {
        hotCarry += hotPerHour;
        nHot = last ? hotLeft : Math.min(hotLeft, Math.floor(hotCarry));
        hotCarry -= nHot;
      }
      hotLeft -= nHot;
      otherLeft -= nOther;
      const batch: LinkClicksTable[] = [];
      const span = Math.max(1, Math.min(3_600_000, now - hourStart));
      const add = (linkId: string) => {
        const authed = random() < 0.4;
        const ref =
          random() < 0.3 ? null : `${REFERRER_HOSTS[Math.floor(random() * REFERRER_HOSTS.length)]}/page/${Math.floor(random() * 5)}`;
        batch.push({
          id: randomUUID(),
          link_id: linkId,
          user_id: authed ? others[Math.floor(random() * others.length)]! : null,
          ip_hash: 'f'.repeat(64),
          user_agent: USER_AGENTS[Math.floor(random() * USER_AGENTS.length)]!,
          referrer: ref,
          clicked_at: hourStart + Math.floor(random() * span),
        });
      };
      for (let i = 0; i < nHot; i++) add(hotLinkId);
      for (let i = 0; i < nOther; i++) add(linkIds[1 + Math.floor(random() * OTHER_LINKS)]!);
      batch.sort((a, b) => a.clicked_at - b.clicked_at);
      pending.push(...batch);
      if (pending.length >= 20_000) await flush(trx);
    }
    await flush(trx);
  });
  const count = await store.clicks.countAll();
  if (count !== TOTAL_CLICKS) throw new Error(`seeded ${count} clicks, expected ${TOTAL_CLICKS}`);
  const hot = await store.analytics.totals(hotLinkId);
  if (hot.total !== HOT_CLICKS) throw new Error(`hot link holds ${hot.total} clicks, expected ${HOT_CLICKS}`);
  await db.close();
  return {
    dbPath,
    dir,
    hotLinkId,
    owner: { id: owner.id, isAdmin: false },
    admin: { id: admin.id, isAdmin: true },
    seedMs: performance.now() - started,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function timeIt(fn: () => Promise<unknown>): Promise<number> {
  await fn();
  const runs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await fn();
    runs.push(performance.now() - t);
  }
  return median(runs);
}

export interface AnalyticsFigures {
  seedMs: number;
  /** On-the-fly aggregation over raw rows only (no rollups yet): the spec's baseline method. */
  raw: Array<[name: string, ms: number]>;
  rollupBuildMs: number;
  rollupCheckMs: number;
  /** What requests see once the click-rollup job has run: closed days from rollups, today raw. */
  served: Array<[name: string, ms: number]>;
  exportRows: number;
  exportMs: number;
  exportRssGrowthMb: number;
}

/** Streams one 100,000-row export into a discarding sink in a fresh process and reports its RSS growth. */
async function exportRss(dbPath: string, linkId: string, now: number): Promise<{ rows: number; ms: number; rssGrowthMb: number }> {
  const self = fileURLToPath(import.meta.url);
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', self, 'export-rss', dbPath, linkId, String(now)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const code = await new Promise<number | null>((r) => child.on('exit', r));
  if (code !== 0) throw new Error(`export-rss child failed (${code}): ${out}`);
  return JSON.parse(out.trim().split('\n').pop()!);
}

async function exportRssChild(dbPath: string, linkId: string, now: number): Promise<void> {
  const db: Db = connect({ driver: 'sqlite3', dsn: dbPath });
  const store = createStore(db, () => now);
  // Warm the code paths (and settle the heap) on a small export first, so the figure is the export's own growth.
  for await (const _ of (await store.analytics.exportClicks(linkId, { attribution: true, cap: 2_000 })).rows);
  global.gc?.();
  const base = process.memoryUsage().rss;
  let peak = base;
  const sample = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  const started = performance.now();
  const { rows } = await store.analytics.exportClicks(linkId, { attribution: true });
  let lines = 0;
  await pipeline(
    Readable.from(rows),
    new Writable({
      write(chunk: Buffer | string, _enc, cb) {
        const s = chunk.toString();
        for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) === 10) lines++;
        peak = Math.max(peak, process.memoryUsage().rss);
        // A slow client: hand control back so backpressure, not buffering, paces the walk.
        setImmediate(cb);
      },
    }),
  );
  const ms = performance.now() - started;
  clearInterval(sample);
  await db.close();
  process.stdout.write(`${JSON.stringify({ rows: lines - 1, ms, rssGrowthMb: (peak - base) / 1_048_576 })}\n`);
}

/**
 * Nanoseconds per `parseUserAgent` call, median of RUNS rounds: over the real UA strings above,
 * and over a 512-character run of one token prefix (docs/analytics.md#user-agent-families: the
 * parse is one pass, so the hostile string costs what any 512-character string costs).
 */
export function benchUserAgentParsing(): { realNs: number; hostileNs: number } {
  const hostile = 'Mozilla/'.repeat(UA_MAX_RUNES / 8);
  const perCall = (uas: string[], calls: number) => {
    const runs: number[] = [];
    for (let round = 0; round <= RUNS; round++) {
      const t = performance.now();
      for (let i = 0; i < calls; i++) parseUserAgent(uas[i % uas.length]);
      if (round > 0) runs.push(((performance.now() - t) * 1e6) / calls);
    }
    return median(runs);
  };
  return { realNs: perCall(USER_AGENTS, 200_000), hostileNs: perCall([hostile], 50_000) };
}

export async function benchAnalytics(): Promise<AnalyticsFigures> {
  const now = Date.UTC(2026, 6, 17, 15, 30, 0);
  const w = await seed(now);
  try {
    const db = connect({ driver: 'sqlite3', dsn: w.dbPath });
    const store = createStore(db, () => now);
    const a = store.analytics;
    const reads: Array<[string, () => Promise<unknown>]> = [
      ['series_30d', () => a.dailySeries(w.hotLinkId, { days: 30 })],
      ['series_90d', () => a.dailySeries(w.hotLinkId, { days: 90 })],
      ['breakdowns_30d', () => a.breakdowns(w.hotLinkId, { days: 30 })],
      ['breakdowns_90d', () => a.breakdowns(w.hotLinkId, { days: 90 })],
      ['series_plus_breakdowns_90d', () => a.linkWindow(w.hotLinkId, { days: 90 })],
      ['dashboard_all_week', () => a.dashboard({ period: 'week', scope: dashboardScopeFor(w.admin, 'all') })],
      ['dashboard_all_month', () => a.dashboard({ period: 'month', scope: dashboardScopeFor(w.admin, 'all') })],
      ['dashboard_mine_week', () => a.dashboard({ period: 'week', scope: dashboardScopeFor(w.owner, 'mine') })],
      ['dashboard_mine_month', () => a.dashboard({ period: 'month', scope: dashboardScopeFor(w.owner, 'mine') })],
    ];
    const raw: Array<[string, number]> = [];
    for (const [name, fn] of reads) raw.push([name, await timeIt(fn)]);
    let t = performance.now();
    await store.clickRollups.rollUp();
    const rollupBuildMs = performance.now() - t;
    t = performance.now();
    await store.clickRollups.rollUp();
    const rollupCheckMs = performance.now() - t;
    const served: Array<[string, number]> = [];
    for (const [name, fn] of reads) served.push([name, await timeIt(fn)]);
    await db.close();
    const ex = await exportRss(w.dbPath, w.hotLinkId, now);
    return {
      seedMs: w.seedMs,
      raw,
      rollupBuildMs,
      rollupCheckMs,
      served,
      exportRows: ex.rows,
      exportMs: ex.ms,
      exportRssGrowthMb: ex.rssGrowthMb,
    };
  } finally {
    rmSync(w.dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (process.argv[2] === 'export-rss') {
    await exportRssChild(process.argv[3]!, process.argv[4]!, Number(process.argv[5]));
  } else {
    const f = await benchAnalytics();
    console.log(JSON.stringify(f, null, 2));
  }
}
