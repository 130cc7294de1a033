import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { connect } from '../../src/db/connect.js';
import { migrateUp } from '../../src/db/migrate.js';
import { isPublicAddress } from '../../src/domain/addressClass.js';
import type { Lookup } from '../../src/net/guardedClient.js';
import { createStore, type Store } from '../../src/store/index.js';
import type { LinkView, User } from '../../src/store/types.js';
import { HealthChecker, wakeIntervalMs, type HealthCheckerOptions } from '../../src/workers/healthChecker.js';
import { createTestDatabase } from '../helpers/databases.js';
import { destination, pairOnOnePort, rawServer, sleep, type TestDestination } from '../net/destinations.js';
import { createLink, setLifecycle } from '../helpers/links.js';

/**
 * The checker of docs/lifecycle.md#health-checks end to end: a real store, the real guarded
 * client and real servers on loopback. Each test gets its own database so
 * moving the clock never makes another test's links due.
 */

const H = 3_600_000;
const DAY = 24 * H;
const quiet = { info() {}, warn() {} };

interface Rig {
  store: Store;
  clock: { now: number };
  owner: User;
  checker: HealthChecker;
  link(url: string, extra?: { expiresAt?: number }): Promise<LinkView>;
  cycle(): Promise<Awaited<ReturnType<HealthChecker['runCycle']>>>;
}

const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function rig(opts: Partial<HealthCheckerOptions> = {}): Promise<Rig> {
  const database = await createTestDatabase('sqlite3');
  const db = connect(database.config);
  await migrateUp(db);
  const clock = { now: Date.UTC(2026, 6, 18, 3, 0, 0) };
  const store = createStore(db, () => clock.now);
  const checker = new HealthChecker({ store, intervalMs: DAY, timeoutMs: 3_000, allowPrivate: false, log: quiet, ...opts });
  cleanups.push(async () => {
    await checker.close();
    await db.close();
    await database.drop();
  });
  const owner = await store.users.create({ email: 'owner@example.com', displayName: 'Owner' });
  let n = 0;
  return {
    store,
    clock,
    owner,
    checker,
    link: (url, extra = {}) => createLink(store, { slug: `l${++n}`, url, ...extra }, owner.id),
    cycle: () => checker.runCycle(new AbortController().signal),
  };
}

async function serve(handler: Parameters<typeof destination>[0], host?: string): Promise<TestDestination> {
  const d = await destination(handler, { host });
  cleanups.push(() => d.close());
  return d;
}

describe('health checker: probe semantics (docs/lifecycle.md#health-checks, docs/lifecycle.md#outcomes-and-backoff)', () => {
  test('HEAD 200: status, time, zero failures, next check one interval later; the User-Agent names us', async () => {
    const d = await serve((_q, r) => r.end());
    const r = await rig({ allowPrivate: true });
    const l = await r.link(`${d.origin}/ok`);
    const s = await r.cycle();
    assert.equal(s.success, 1);
    const row = await r.store.health.row(l.id);
    assert.deepEqual(row, {
      linkId: l.id,
      lastCheckedAt: r.clock.now,
      lastStatus: 200,
      lastError: null,
      consecutiveFailures: 0,
      nextCheckAt: r.clock.now + DAY,
      skipped: false,
    });
    assert.deepEqual(
      d.hits.map((h) => h.method),
      ['HEAD'],
    );
    assert.match(String(d.hits[0]!.headers['user-agent']), /^joe-links-health\/\S+$/);
    assert.equal(d.hits[0]!.headers.cookie, undefined);
  });

  test('HEAD 405 or 501 falls back to GET; a GET 200 is a success', async () => {
    for (const headStatus of [405, 501]) {
      const d = await serve((req, res) => res.writeHead(req.method === 'HEAD' ? headStatus : 200).end('hello'));
      const r = await rig({ allowPrivate: true });
      const l = await r.link(`${d.origin}/`);
      await r.cycle();
      assert.deepEqual(
        d.hits.map((h) => h.method),
        ['HEAD', 'GET'],
      );
      const row = await r.store.health.row(l.id);
      assert.equal(row!.lastStatus, 200);
      assert.equal(row!.consecutiveFailures, 0);
    }
  });

  test('any other HEAD status is final: 404 fails without a GET; 405 on the GET fails too', async () => {
    const notFound = await serve((_q, r) => r.writeHead(404).end());
    const never = await serve((_q, r) => r.writeHead(405).end());
    const r = await rig({ allowPrivate: true });
    const a = await r.link(`${notFound.origin}/`);
    const b = await r.link(`${never.origin}/`);
    await r.cycle();
    assert.deepEqual(
      notFound.hits.map((h) => h.method),
      ['HEAD'],
    );
    assert.deepEqual(
      never.hits.map((h) => h.method),
      ['HEAD', 'GET'],
    );
    for (const [l, status] of [
      [a, 404],
      [b, 405],
    ] as const) {
      const row = await r.store.health.row(l.id);
      assert.equal(row!.lastStatus, status);
      assert.equal(row!.consecutiveFailures, 1);
      assert.equal(row!.lastError, null, 'a plain HTTP status needs no error text');
    }
  });

  test('bot-blocking 401/403 count as failures and go broken after three strikes', async () => {
    const d = await serve((_q, r) => r.writeHead(403).end());
    const r = await rig({ allowPrivate: true });
    const l = await r.link(`${d.origin}/`);
    for (let i = 0; i < 3; i++) {
      await r.cycle();
      r.clock.now = (await r.store.health.row(l.id))!.nextCheckAt;
    }
    assert.equal((await r.store.health.forLink((await r.store.links.get(l.id))!)).status, 'broken');
  });

  test('three failing due checks: broken, with gaps of ≥ 1× then ≥ 2× the interval and no same-cycle retry', async () => {
    const d = await serve((_q, r) => r.writeHead(503).end());
    const r = await rig({ allowPrivate: true });
    const l = await r.link(`${d.origin}/`);
    const checkedAt: number[] = [];
    for (let i = 1; i <= 3; i++) {
      await r.cycle();
      assert.equal(d.hits.length, i, 'exactly one probe per cycle');
      const row = (await r.store.health.row(l.id))!;
      checkedAt.push(row.lastCheckedAt);
      assert.equal(row.consecutiveFailures, i);
      // Nothing is sent until the backoff has elapsed.
      r.clock.now = row.nextCheckAt - 1;
      await r.cycle();
      assert.equal(d.hits.length, i, 'not due before next_check_at');
      r.clock.now = row.nextCheckAt;
    }
    assert.ok(checkedAt[1]! - checkedAt[0]! >= DAY);
    assert.ok(checkedAt[2]! - checkedAt[1]! >= 2 * DAY);
    const row = (await r.store.health.row(l.id))!;
    assert.equal(row.nextCheckAt - row.lastCheckedAt, 4 * DAY);
    assert.equal((await r.store.health.forLink((await r.store.links.get(l.id))!)).status, 'broken');
    // The fourth and later failures wait 7 intervals, never more.
    await r.cycle();
    const fourth = (await r.store.health.row(l.id))!;
    assert.equal(fourth.nextCheckAt - fourth.lastCheckedAt, 7 * DAY);
  });

  test('429 with Retry-After: 172800 neither counts nor resets, and defers ≥ 48 h', async () => {
    let mode: 'fail' | 'limit' = 'fail';
    const d = await serve((_q, r) => (mode === 'fail' ? r.writeHead(500).end() : r.writeHead(429, { 'retry-after': '172800' }).end()));
    const r = await rig({ allowPrivate: true });
    const l = await r.link(`${d.origin}/`);
    await r.cycle();
    r.clock.now = (await r.store.health.row(l.id))!.nextCheckAt;
    mode = 'limit';
    await r.cycle();
    const row = (await r.store.health.row(l.id))!;
    assert.equal(row.consecutiveFailures, 1, 'neither +1 nor reset');
    assert.equal(row.lastStatus, 429);
    assert.equal(row.lastError, null);
    assert.ok(row.nextCheckAt - row.lastCheckedAt >= 48 * H);
  });

  test('429 with Retry-After: 5 under a 2 h interval waits the interval; a future HTTP-date is honoured', async () => {
    let retryAfter = '5';
    const d = await serve((req, r) => {
      // The HEAD is refused so the 429 arrives on the GET fallback: it is treated the same.
      if (req.method === 'HEAD') return void r.writeHead(405).end();
      r.writeHead(429, { 'retry-after': retryAfter }).end();
    });
    const r = await rig({ allowPrivate: true, intervalMs: 2 * H });
    const l = await r.link(`${d.origin}/`);
    await r.cycle();
    let row = (await r.store.health.row(l.id))!;
    assert.equal(row.nextCheckAt - row.lastCheckedAt, 2 * H);
    assert.equal(row.consecutiveFailures, 0);
    r.clock.now = row.nextCheckAt;
    retryAfter = new Date(r.clock.now + 3 * DAY).toUTCString();
    await r.cycle();
    row = (await r.store.health.row(l.id))!;
    assert.equal(row.nextCheckAt - row.lastCheckedAt, 3 * DAY);
  });

  test('redirects: a loop fails naming the limit, a 5-hop chain succeeds, a 302 to ftp: succeeds with 302', async () => {
    const loop = await serve((_q, r) => r.writeHead(302, { location: '/again' }).end());
    const chain = await serve((req, r) => {
      const n = Number(req.url!.slice(1));
      if (n < 5) r.writeHead(301, { location: `/${n + 1}` }).end();
      else r.end();
    });
    const ftp = await serve((_q, r) => r.writeHead(302, { location: 'ftp://files.example.com/pub/' }).end());
    const r = await rig({ allowPrivate: true });
    const a = await r.link(`${loop.origin}/`);
    const b = await r.link(`${chain.origin}/0`);
    const c = await r.link(`${ftp.origin}/`);
    await r.cycle();
    const ra = (await r.store.health.row(a.id))!;
    assert.equal(ra.consecutiveFailures, 1);
    assert.match(ra.lastError!, /redirect limit/);
    assert.equal(ra.lastStatus, null);
    assert.equal(loop.hits.length, 6);
    assert.equal((await r.store.health.row(b.id))!.lastStatus, 200);
    const rc = (await r.store.health.row(c.id))!;
    assert.equal(rc.lastStatus, 302);
    assert.equal(rc.consecutiveFailures, 0);
  });

  test('hostile destinations: silence, resets and garbage are failures with a reason; a 10 GB body is read only to 64 KiB', async () => {
    const silent = await rawServer(() => {});
    const garbage = await rawServer((s) => s.end('\x00\x01\x02 garbage\r\n\r\n'));
    cleanups.push(
      () => silent.close(),
      () => garbage.close(),
    );
    const reset = await serve((req) => req.socket.resetAndDestroy());
    let written = 0;
    const huge = await serve((req, res) => {
      if (req.method === 'HEAD') return void res.writeHead(405).end();
      res.writeHead(200, { 'content-length': String(10 * 1024 ** 3) });
      const chunk = Buffer.alloc(64 * 1024);
      const pump = () => {
        while (!res.destroyed) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
      };
      pump();
    });
    const r = await rig({ allowPrivate: true, timeoutMs: 1_000 });
    const a = await r.link(`${silent.origin}/`);
    const b = await r.link(`${garbage.origin}/`);
    const c = await r.link(`${reset.origin}/`);
    const e = await r.link(`${huge.origin}/`);
    const started = performance.now();
    await r.cycle();
    assert.ok(performance.now() - started < 6_000, 'the cycle is bounded by the timeout');
    assert.match((await r.store.health.row(a.id))!.lastError!, /timed out/);
    assert.match((await r.store.health.row(b.id))!.lastError!, /invalid HTTP response/);
    assert.match((await r.store.health.row(c.id))!.lastError!, /reset/);
    for (const l of [a, b, c]) {
      const row = (await r.store.health.row(l.id))!;
      assert.equal(row.consecutiveFailures, 1);
      assert.equal(row.lastStatus, null);
      assert.ok(Buffer.byteLength(row.lastError!) <= 512);
    }
    assert.equal((await r.store.health.row(e.id))!.lastStatus, 200);
    assert.ok(written < 64 * 1024 ** 2, `the server wrote ${written} bytes before the checker hung up`);
  });
});

describe('health checker: eligibility (docs/lifecycle.md#health-checks)', () => {
  test('opted-out, variable, archived and expired links get no request; frozen rows stay as they were', async () => {
    const d = await serve((_q, r) => r.end());
    const r = await rig({ allowPrivate: true });
    const optedOut = await r.link(`${d.origin}/opted-out`);
    await setLifecycle(r.store, optedOut.id, { healthChecksDisabled: true });
    const variable = await r.link(`${d.origin}/$ticket`);
    const archived = await r.link(`${d.origin}/archived`);
    const expiring = await r.link(`${d.origin}/expiring`, { expiresAt: r.clock.now + 60_000 });
    await r.cycle();
    assert.deepEqual(d.hits.map((h) => h.url).sort(), ['/archived', '/expiring']);
    const frozen = await r.store.health.row(archived.id);
    await setLifecycle(r.store, archived.id, { archived: true });
    r.clock.now += 2 * DAY;
    await r.cycle();
    assert.equal(d.hits.length, 2, 'nothing probed: archived and expired are no longer eligible');
    assert.deepEqual(await r.store.health.row(archived.id), frozen, 'row frozen');
    assert.equal(await r.store.health.row(variable.id), null, 'no row for a variable link');
    assert.equal(await r.store.health.row(optedOut.id), null);
    const health = await r.store.health.forLinks(
      await Promise.all([optedOut, archived, expiring].map(async (l) => (await r.store.links.get(l.id))!)),
    );
    for (const h of health.values()) assert.equal(h.status, 'unchecked');
  });

  test('stored javascript:/ftp: destinations are recorded skipped without any network activity', async () => {
    let lookups = 0;
    const lookup: Lookup = async () => {
      lookups++;
      return [{ address: '93.184.216.34', family: 4 }];
    };
    const r = await rig({ lookup });
    const a = await r.link('https://placeholder.test/a');
    const b = await r.link('https://placeholder.test/b');
    // Rows written before validation existed: the checker must cope with whatever is stored.
    await r.store.db.kysely.updateTable('links').set({ url: 'javascript:alert(1)' }).where('id', '=', a.id).execute();
    await r.store.db.kysely.updateTable('links').set({ url: 'ftp://files.example.com/x' }).where('id', '=', b.id).execute();
    await r.cycle();
    assert.equal(lookups, 0);
    for (const l of [a, b]) {
      const row = (await r.store.health.row(l.id))!;
      assert.equal(row.skipped, true);
      assert.equal(row.consecutiveFailures, 0);
      assert.equal(row.lastStatus, null);
      assert.equal((await r.store.health.forLink((await r.store.links.get(l.id))!)).status, 'skipped');
    }
  });
});

describe('health checker: SSRF guard (docs/lifecycle.md#ssrf-guard)', () => {
  test('by default a link to 127.0.0.1 is skipped, no request reaches it, no failure is counted', async () => {
    const d = await serve((_q, r) => r.end('internal'));
    const r = await rig();
    const l = await r.link(`${d.origin}/admin`);
    const s = await r.cycle();
    assert.equal(s.skipped, 1);
    assert.equal(d.hits.length, 0);
    const row = (await r.store.health.row(l.id))!;
    assert.equal(row.skipped, true);
    assert.equal(row.consecutiveFailures, 0);
    assert.equal(row.lastError, 'destination is not checkable under current server policy');
    assert.equal(row.nextCheckAt, r.clock.now + DAY);
  });

  test('with allowPrivate the same link is probed and succeeds, and the skip is cleared', async () => {
    const d = await serve((_q, r) => r.end('internal'));
    const r = await rig();
    const l = await r.link(`${d.origin}/admin`);
    await r.cycle();
    const open = new HealthChecker({ store: r.store, intervalMs: DAY, timeoutMs: 3_000, allowPrivate: true, log: quiet });
    cleanups.push(() => open.close());
    r.clock.now += DAY;
    await open.runCycle(new AbortController().signal);
    assert.equal(d.hits.length, 1);
    const row = (await r.store.health.row(l.id))!;
    assert.equal(row.skipped, false);
    assert.equal(row.lastStatus, 200);
  });

  test('a public host redirecting to 127.0.0.1: the hop is refused and the link skipped', async () => {
    const internal = await serve((_q, r) => r.end('internal'));
    const pub = await serve((_q, r) => r.writeHead(302, { location: `http://127.0.0.1:${internal.port}/` }).end(), '127.0.0.2');
    const r = await rig({ addressAllowed: (a) => a === '127.0.0.2' || isPublicAddress(a) });
    const l = await r.link(`${pub.origin}/`);
    await r.cycle();
    assert.equal(pub.hits.length, 1);
    assert.equal(internal.hits.length, 0);
    const row = (await r.store.health.row(l.id))!;
    assert.equal(row.skipped, true);
    assert.equal(row.consecutiveFailures, 0);
  });

  test('the GET fallback goes through the same guard', async () => {
    const internal = await serve((_q, r) => r.end('internal'));
    const pub = await serve(
      (req, r) =>
        req.method === 'HEAD' ? r.writeHead(405).end() : r.writeHead(302, { location: `http://127.0.0.1:${internal.port}/` }).end(),
      '127.0.0.2',
    );
    const r = await rig({ addressAllowed: (a) => a === '127.0.0.2' || isPublicAddress(a) });
    const l = await r.link(`${pub.origin}/`);
    await r.cycle();
    assert.deepEqual(
      pub.hits.map((h) => h.method),
      ['HEAD', 'GET'],
    );
    assert.equal(internal.hits.length, 0);
    assert.equal((await r.store.health.row(l.id))!.skipped, true);
  });

  test('DNS rebinding: public at the first probe, internal at the next: the second connection is refused', async () => {
    const pair = await pairOnOnePort((_q, r) => r.end('public'));
    cleanups.push(() => pair.close());
    let lookups = 0;
    const lookup: Lookup = async () => [{ address: lookups++ === 0 ? '127.0.0.2' : '127.0.0.1', family: 4 }];
    const r = await rig({ lookup, addressAllowed: (a) => a === '127.0.0.2' || isPublicAddress(a) });
    const l = await r.link(`http://rebind.test:${pair.pub.port}/`);
    await r.cycle();
    assert.equal((await r.store.health.row(l.id))!.lastStatus, 200);
    r.clock.now += DAY;
    await r.cycle();
    const row = (await r.store.health.row(l.id))!;
    assert.equal(row.skipped, true);
    assert.equal(row.consecutiveFailures, 0);
    assert.equal(pair.pub.hits.length, 1);
    assert.equal(pair.internal.hits.length, 0);
  });
});

describe('health checker: politeness (docs/lifecycle.md#outcomes-and-backoff) and shutdown (docs/lifecycle.md#health-checks)', () => {
  test('two due links on one host reach it ≥ 1 s apart (port ignored)', async () => {
    const a = await serve((_q, r) => r.end());
    const b = await serve((_q, r) => r.end());
    const r = await rig({ allowPrivate: true });
    await r.link(`${a.origin}/1`);
    await r.link(`${b.origin}/2`);
    await r.cycle();
    const times = [...a.hits, ...b.hits].map((h) => h.at).sort((x, y) => x - y);
    assert.equal(times.length, 2);
    assert.ok(times[1]! - times[0]! >= 999, `arrived ${times[1]! - times[0]!} ms apart`);
  });

  test('ten due links on distinct hosts: never more than 4 probes in flight', async () => {
    let inFlight = 0;
    let peak = 0;
    const d = await serve((_q, res) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      setTimeout(() => {
        inFlight--;
        res.end();
      }, 250);
    });
    const lookup: Lookup = async () => [{ address: '127.0.0.1', family: 4 }];
    const r = await rig({ allowPrivate: true, lookup });
    for (let i = 0; i < 10; i++) await r.link(`http://host${i}.test:${d.port}/`);
    const s = await r.cycle();
    assert.equal(s.success, 10);
    assert.equal(d.hits.length, 10);
    assert.equal(peak, 4, 'bounded, and the bound is used');
  });

  test('shutdown aborts in-flight probes without recording them', async () => {
    const silent = await rawServer(() => {});
    cleanups.push(() => silent.close());
    const r = await rig({ allowPrivate: true, timeoutMs: 30_000 });
    const l = await r.link(`${silent.origin}/`);
    const ac = new AbortController();
    const started = performance.now();
    const run = r.checker.runCycle(ac.signal);
    await sleep(200);
    ac.abort();
    const s = await run;
    assert.ok(performance.now() - started < 2_000, 'the cycle ends promptly');
    assert.equal(s.aborted, 1);
    assert.equal(await r.store.health.row(l.id), null, 'not recorded as a failure');
  });

  test('wake-up period: min(interval / 8, 5 min), at least 1 s', () => {
    assert.equal(wakeIntervalMs(24 * H), 5 * 60_000);
    assert.equal(wakeIntervalMs(H), 5 * 60_000, 'the 1 h floor still wakes every 5 min');
    assert.equal(wakeIntervalMs(16 * 60_000), 2 * 60_000);
    assert.equal(wakeIntervalMs(2_000), 1_000);
  });
});
