import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CLASSIFICATION_VERSION } from '../../../src/domain/breakdowns.js';
import { RollupCoverage } from '../../../src/domain/rollupCoverage.js';
import { AnalyticsStore } from '../../../src/store/analytics.js';
import { ClickRollupStore } from '../../../src/store/clickRollups.js';
import { SqliteClickStore } from '../../../src/store/clicks.js';
import { dirtyMarks } from '../../../src/store/rollupMarks.js';
import { dashboardScopeFor } from '../../../src/domain/statsScope.js';
import { describeEachDatabase, type DbContext } from '../../helpers/databases.js';
import { deleteUser } from '../../helpers/links.js';
import { addClicks, DAY, HOUR, mkLink, mkUser, type ClickSpec } from '../analyticsFixtures.js';

/**
 * Analytics answers are never stale (docs/analytics.md#rollups): right after
 * a change to raw rows under a rolled-up day — late clicks, a deleted link, a
 * deleted user, pruning — and before the roll-up job runs again, every
 * surface equals a recount of raw rows.
 */

/** Rollups that cover nothing: the same read code, answering from raw rows only. */
class NoRollups extends ClickRollupStore {
  override async coverage(): Promise<RollupCoverage> {
    return new RollupCoverage([], CLASSIFICATION_VERSION);
  }
}

type Viewer = { id: string; isAdmin: boolean };

async function surfaces(a: AnalyticsStore, linkIds: readonly string[], viewers: readonly Viewer[]) {
  const out: Record<string, unknown> = {};
  for (const id of linkIds) {
    out[`totals ${id}`] = await a.totals(id);
    for (const days of [30, 90]) {
      out[`series ${days} ${id}`] = await a.dailySeries(id, { days });
      out[`breakdowns ${days} ${id}`] = await a.breakdowns(id, { days });
      out[`window ${days} ${id}`] = await a.linkWindow(id, { days });
    }
  }
  for (const v of viewers) {
    for (const period of ['week', 'month'] as const) {
      out[`dashboard mine ${period} ${v.id}`] = await a.dashboard({ period, scope: dashboardScopeFor(v, 'mine') });
      if (v.isAdmin) out[`dashboard all ${period}`] = await a.dashboard({ period, scope: dashboardScopeFor(v, 'all') });
    }
  }
  return out;
}

async function markCount(c: DbContext): Promise<number> {
  const r = await c.db.kysely
    .selectFrom('click_rollup_dirty_days')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

describeEachDatabase('analytics are never stale', (ctx) => {
  test('late clicks, link deletion, user deletion and pruning show at once, before the roll-up job runs', async () => {
    const c = ctx();
    const now = Date.UTC(2026, 11, 4, 14, 0, 0);
    c.clock.now = now;
    const owner = await mkUser(c.store, 'Olive');
    const clicker = await mkUser(c.store, 'Clara');
    const doomedOwner = await mkUser(c.store, 'Dora');
    const admin = await mkUser(c.store, 'Root', true);
    const keep = await mkLink(c, owner, { ageDays: 200 });
    const doomed = await mkLink(c, doomedOwner, { ageDays: 200 });
    const spec = (i: number, host: string, userId: string | null): ClickSpec => ({
      at: now - (i % 25) * DAY - HOUR,
      userId,
      referrer: `https://${host}/`,
    });
    await addClicks(
      c.store,
      keep.id,
      Array.from({ length: 60 }, (_, i) => spec(i, 'keep.example', i % 3 === 0 ? clicker.id : null)),
    );
    await addClicks(
      c.store,
      doomed.id,
      Array.from({ length: 40 }, (_, i) => spec(i, 'doomed.example', null)),
    );
    const viewers: Viewer[] = [
      { id: owner.id, isAdmin: false },
      { id: admin.id, isAdmin: true },
    ];
    const raw = new AnalyticsStore(c.db.kysely, () => c.clock.now, new NoRollups(c.db.kysely, () => c.clock.now));
    const served = c.store.analytics;
    const ids = [keep.id, doomed.id];
    const expectFresh = async (what: string) => {
      assert.deepEqual(await surfaces(served, ids, viewers), await surfaces(raw, ids, viewers), what);
    };

    const first = await c.store.clickRollups.rollUp();
    assert.ok(first.rolled >= 89, JSON.stringify(first));
    assert.equal(await markCount(c), 0);
    await expectFresh('right after the roll-up');

    // Clicks stored late for yesterday and for a day three weeks back, through the store the
    // click writer uses (on SQLite, the writer thread's own statement).
    const late: ClickSpec[] = [
      ...Array.from({ length: 30 }, (_, i) => ({ at: now - DAY - i * 60_000, referrer: 'https://late.example/', userId: clicker.id })),
      { at: now - 21 * DAY, referrer: 'https://late.example/' },
    ];
    const clickStore = c.db.sqlite ? new SqliteClickStore(c.db.kysely, c.db.sqlite, () => c.clock.now) : c.store.clicks;
    await addClicks({ ...c.store, clicks: clickStore }, keep.id, late);
    const yesterday = Date.UTC(2026, 11, 3);
    const series = await served.dailySeries(keep.id, { days: 30 });
    const rawSeries = await raw.dailySeries(keep.id, { days: 30 });
    assert.equal(series.series.find((p) => p.dayStart === yesterday)!.count, rawSeries.series.find((p) => p.dayStart === yesterday)!.count);
    await expectFresh('after late clicks');

    // A deleted link's clicks cascade away; the instance-wide referrer panel must drop them.
    await c.store.links.delete(doomed.id);
    const all = await served.dashboard({ period: 'month', scope: dashboardScopeFor({ id: admin.id, isAdmin: true }, 'all') });
    assert.ok(!all.topReferrers.some((r) => r.host === 'doomed.example'), JSON.stringify(all.topReferrers));
    await expectFresh('after deleting a link');

    // A deleted user's clicks turn anonymous: the signed-in split changes under closed days.
    await deleteUser(c.store, clicker.id, admin.id);
    const b = await served.breakdowns(keep.id, { days: 30 });
    assert.equal(b.auth.authenticated, 0);
    await expectFresh('after deleting a user');

    // Pruning under the window (a horizon 15 days back).
    const pruned = await c.store.clickRetention.pruneClicksOlderThan(now - 15 * DAY);
    assert.ok(pruned.deleted > 0);
    await expectFresh('after pruning');

    // The job then rebuilds exactly what was marked; the answers do not move and no mark is left.
    const before = await surfaces(served, ids, viewers);
    const run = await c.store.clickRollups.rollUp();
    assert.ok(run.rolled > 0 && run.rolled < 89, JSON.stringify(run));
    assert.equal(await markCount(c), 0, 'the job cleared every mark it accounted for');
    assert.deepEqual(await surfaces(served, ids, viewers), before, 'answers unchanged by the job');
    await expectFresh('after the job');
  });

  test('a mark written while its day is rebuilt survives the rebuild', async () => {
    const c = ctx();
    const now = Date.UTC(2026, 11, 4, 14, 0, 0);
    c.clock.now = now;
    const owner = await mkUser(c.store, 'Olive');
    const link = await mkLink(c, owner, { ageDays: 100 });
    const day = Date.UTC(2026, 11, 2);
    await addClicks(
      c.store,
      link.id,
      Array.from({ length: 10 }, (_, i) => ({ at: day + i * HOUR })),
    );
    await c.store.clickRollups.rollUp();
    const raw = new AnalyticsStore(c.db.kysely, () => c.clock.now, new NoRollups(c.db.kysely, () => c.clock.now));

    await addClicks(c.store, link.id, [{ at: day + 20 * HOUR }]);
    // The rebuild reads the day's marks, then (before it reads raw rows and commits) another late click lands.
    const read = (await dirtyMarks(c.db.kysely, day, day + DAY)).map((m) => m.markId);
    assert.equal(read.length, 1);
    await addClicks(c.store, link.id, [{ at: day + 21 * HOUR }]);
    await c.store.clickRollups.rollDay(day, read);
    const left = await dirtyMarks(c.db.kysely, day, day + DAY);
    assert.equal(left.length, 1, 'only the mark the rebuild read is gone');
    assert.ok(!read.includes(left[0]!.markId));
    assert.equal((await c.store.clickRollups.coverage(day, day + DAY)).dayRolled(day), false, 'the day is still dirty');
    assert.deepEqual(await c.store.analytics.dailySeries(link.id, { days: 30 }), await raw.dailySeries(link.id, { days: 30 }));

    await c.store.clickRollups.rollUp();
    assert.equal((await dirtyMarks(c.db.kysely, day, day + DAY)).length, 0);
    assert.equal((await c.store.clickRollups.coverage(day, day + DAY)).dayRolled(day), true);
    const series = await c.store.analytics.dailySeries(link.id, { days: 30 });
    assert.equal(series.series.find((p) => p.dayStart === day)!.count, 12);
    assert.deepEqual(series, await raw.dailySeries(link.id, { days: 30 }));
  });
});
