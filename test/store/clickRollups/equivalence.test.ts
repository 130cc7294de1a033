import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dashboardScopeFor } from '../../../src/domain/statsScope.js';
import { describeEachDatabase, type DbContext } from '../../helpers/databases.js';
import { addClicks, clearRollups, DAY, HOUR, mkLink, mkUser, UA, type ClickSpec } from '../analyticsFixtures.js';

/**
 * The daily rollups (the escape hatch of docs/analytics.md#rollups) must never change an answer:
 * for random click histories and every surface, reads through rollups equal
 * reads of raw rows, and every change to raw rows behind a rolled-up day is
 * picked up by the next roll-up run.
 */

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

const REFERRERS = [
  null,
  '',
  'https://a.example/x',
  'https://A.example/y?q=1',
  'https://b.example:8080/',
  'not a url',
  'android-app://com.slack/',
  '=SUM(A1)',
];
const AGENTS = [
  null,
  '',
  UA.firefoxWindows,
  UA.chromeMac,
  UA.safariIphone,
  UA.edgeWindows,
  UA.curl,
  'Opera/9.80 (J2ME/MIDP; Opera Mini/9.80)',
];

async function everySurface(c: DbContext, linkIds: string[], viewers: Array<{ id: string; isAdmin: boolean }>) {
  const a = c.store.analytics;
  const out: unknown[] = [];
  for (const id of linkIds) {
    out.push(await a.dailySeries(id, { days: 30 }), await a.dailySeries(id, { days: 90 }));
    out.push(await a.breakdowns(id, { days: 30 }), await a.breakdowns(id, { days: 90 }));
  }
  for (const v of viewers) {
    for (const period of ['week', 'month'] as const) {
      out.push(await a.dashboard({ period, scope: dashboardScopeFor(v, 'mine') }));
      if (v.isAdmin) out.push(await a.dashboard({ period, scope: dashboardScopeFor(v, 'all') }));
    }
  }
  return out;
}

describeEachDatabase('click rollups', (ctx) => {
  test('random histories: every surface answers the same from rollups as from raw rows, at any time of day', async () => {
    const c = ctx();
    const base = Date.UTC(2026, 4, 20, 0, 0, 0);
    c.clock.now = base;
    const owner = await mkUser(c.store, 'Olive');
    const other = await mkUser(c.store, 'Bob');
    const recipient = await mkUser(c.store, 'Rita');
    const admin = await mkUser(c.store, 'Root', true);
    const links = [
      await mkLink(c, owner, { ageDays: 120 }),
      await mkLink(c, owner, { visibility: 'secure', shareWith: [recipient.id], ageDays: 90 }),
      await mkLink(c, other, { visibility: 'public', ageDays: 200 }),
      await mkLink(c, other, { ageDays: 10 }),
    ];
    const random = rng(7);
    const clicks = new Map<string, ClickSpec[]>();
    for (let i = 0; i < 3_000; i++) {
      const link = links[Math.floor(random() ** 2 * links.length)]!;
      const who = [null, null, owner.id, other.id, recipient.id][Math.floor(random() * 5)]!;
      const spec = {
        at: base + 3 * DAY - Math.floor(random() * 110 * DAY),
        userId: who,
        referrer: REFERRERS[Math.floor(random() * REFERRERS.length)]!,
        ua: AGENTS[Math.floor(random() * AGENTS.length)]!,
      };
      if (!clicks.has(link.id)) clicks.set(link.id, []);
      clicks.get(link.id)!.push(spec);
    }
    for (const [id, specs] of clicks) await addClicks(c.store, id, specs);
    const viewers = [owner, other, recipient, admin].map((u) => ({ id: u.id, isAdmin: u.role === 'admin' }));

    // Right after midnight (yesterday still inside the grace period), midday, and just before midnight.
    for (const now of [base + 5 * 60_000, base + 12 * HOUR + 17 * 60_000, base + 2 * DAY + 23 * HOUR + 59 * 60_000]) {
      c.clock.now = now;
      await clearRollups(c);
      const raw = await everySurface(
        c,
        links.map((l) => l.id),
        viewers,
      );
      const run = await c.store.clickRollups.rollUp();
      assert.ok(run.rolled >= 88 && run.runs > 0, JSON.stringify(run));
      const rolled = await everySurface(
        c,
        links.map((l) => l.id),
        viewers,
      );
      assert.deepEqual(rolled, raw);
      const again = await c.store.clickRollups.rollUp();
      assert.deepEqual(again, { rolled: 0, current: run.rolled + run.current, runs: 0 }, 'an unchanged history is left alone');
    }
  });

  test('a late write, a deleted clicker and a deleted link are each picked up by the next run', async () => {
    const c = ctx();
    const now = Date.UTC(2026, 6, 17, 14, 0, 0);
    c.clock.now = now;
    const owner = await mkUser(c.store, 'Olive');
    const clicker = await mkUser(c.store, 'Clara');
    const admin = await mkUser(c.store, 'Root', true);
    const keep = await mkLink(c, owner);
    const doomed = await mkLink(c, owner);
    await addClicks(
      c.store,
      keep.id,
      Array.from({ length: 40 }, (_, i) => ({
        at: now - (i % 20) * DAY - HOUR,
        userId: i % 2 ? clicker.id : null,
        referrer: 'https://k.example/',
      })),
    );
    await addClicks(
      c.store,
      doomed.id,
      Array.from({ length: 15 }, (_, i) => ({ at: now - (i % 5) * DAY - HOUR, referrer: 'https://d.example/' })),
    );
    const viewers = [
      { id: owner.id, isAdmin: false },
      { id: admin.id, isAdmin: true },
    ];
    await c.store.clickRollups.rollUp();
    const check = async () => {
      const rolled = await everySurface(c, [keep.id], viewers);
      await clearRollups(c);
      const raw = await everySurface(c, [keep.id], viewers);
      await c.store.clickRollups.rollUp();
      assert.deepEqual(rolled, raw);
    };

    // A click written after its day was rolled up (a writer delayed by a database outage).
    await addClicks(c.store, keep.id, [{ at: now - 3 * DAY, referrer: 'https://late.example/' }]);
    let run = await c.store.clickRollups.rollUp();
    assert.equal(run.rolled, 1, 'exactly the changed day is rebuilt');
    assert.ok(run.runs > 0, 'and the multi-day runs built on it');
    await check();

    // Deleting a user turns their clicks anonymous (ON DELETE SET NULL).
    await c.db.kysely.deleteFrom('users').where('id', '=', clicker.id).execute();
    run = await c.store.clickRollups.rollUp();
    assert.ok(run.rolled >= 10, JSON.stringify(run));
    const b = await c.store.analytics.breakdowns(keep.id, { days: 30 });
    assert.deepEqual(b.auth, { authenticated: 0, anonymous: 41 });
    await check();

    // Deleting a link removes its rollups with it.
    await c.store.links.delete(doomed.id);
    const left = await c.db.kysely.selectFrom('link_click_rollups').select('link_id').where('link_id', '=', doomed.id).execute();
    assert.equal(left.length, 0);
    await c.store.clickRollups.rollUp();
    const all = await c.store.analytics.dashboard({ period: 'month', scope: dashboardScopeFor({ id: admin.id, isAdmin: true }, 'all') });
    assert.ok(!all.topReferrers.some((r) => r.host === 'd.example'));
    await check();
  });

  test('rollups built by another classification are not used and get rebuilt', async () => {
    const c = ctx();
    const now = Date.UTC(2026, 6, 17, 14, 0, 0);
    c.clock.now = now;
    const owner = await mkUser(c.store, 'Olive');
    const link = await mkLink(c, owner);
    await addClicks(
      c.store,
      link.id,
      Array.from({ length: 12 }, (_, i) => ({ at: now - i * DAY - HOUR, ua: UA.curl })),
    );
    await clearRollups(c);
    const raw = await c.store.analytics.breakdowns(link.id, { days: 30 });
    await c.store.clickRollups.rollUp();
    // Pretend an older parser built them, with different answers.
    await c.db.kysely.updateTable('link_click_rollup_spans').set({ version: 'older-parser' }).execute();
    await c.db.kysely
      .updateTable('link_click_rollups')
      .set({ dim_key: 'Chrome' })
      .where('dim', '=', 'browser')
      .where('link_id', '=', link.id)
      .execute();
    assert.deepEqual(await c.store.analytics.breakdowns(link.id, { days: 30 }), raw, 'stale rollups are ignored');
    const run = await c.store.clickRollups.rollUp();
    assert.ok(run.rolled >= 89);
    assert.deepEqual(await c.store.analytics.breakdowns(link.id, { days: 30 }), raw);
  });
});
