import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeClickCursor } from '../../src/domain/clickCursor.js';
import { AppError } from '../../src/domain/errors.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { addClicks, bothPaths, DAY, HOUR, mkLink, mkUser, UA } from './analyticsFixtures.js';

/**
 * Per-link analytics on every database: v1 totals and recent-clicks pages
 * (docs/analytics.md#per-link-stats) and the docs/analytics.md daily series and
 * breakdowns, each read both from raw rows and through the daily rollups.
 */
describeEachDatabase('per-link analytics', (ctx) => {
  const NOW = Date.UTC(2026, 6, 17, 14, 0, 0);

  test('totals: all time, and clicked_at >= now − 7 d / now − 30 d', async () => {
    const c = ctx();
    c.clock.now = NOW;
    const owner = await mkUser(c.store, 'Olive');
    const link = await mkLink(c, owner);
    await addClicks(c.store, link.id, [
      { at: NOW - 7 * DAY },
      { at: NOW - 7 * DAY - 1 },
      { at: NOW - 30 * DAY },
      { at: NOW - 30 * DAY - 1 },
      { at: NOW - 400 * DAY },
      { at: NOW - 1 },
    ]);
    assert.deepEqual(await c.store.analytics.totals(link.id), { total: 6, last7d: 2, last30d: 4 });
    const empty = await mkLink(c, owner);
    assert.deepEqual(await c.store.analytics.totals(empty.id), { total: 0, last7d: 0, last30d: 0 });
  });

  test('recent clicks page newest first with an exact cursor across timestamp ties', async () => {
    const c = ctx();
    c.clock.now = NOW;
    const owner = await mkUser(c.store, 'Olive');
    const clicker = await mkUser(c.store, 'Clara');
    const link = await mkLink(c, owner);
    // 25 clicks, with runs of five sharing one clicked_at.
    const specs = Array.from({ length: 25 }, (_, i) => ({
      at: NOW - Math.floor(i / 5) * HOUR,
      userId: i % 2 === 0 ? clicker.id : null,
      referrer: i % 3 === 0 ? '' : `https://ref.example/${i}`,
    }));
    await addClicks(c.store, link.id, specs);

    const first = await c.store.analytics.recentClicks(link.id, { limit: '10', attribution: true });
    assert.equal(first.clicks.length, 10);
    assert.ok(first.nextCursor);
    const seen: string[] = [];
    let page = first;
    for (;;) {
      seen.push(...page.clicks.map((k) => k.id));
      for (let i = 1; i < page.clicks.length; i++) {
        const [a, b] = [page.clicks[i - 1]!, page.clicks[i]!];
        assert.ok(a.clickedAt > b.clickedAt || (a.clickedAt === b.clickedAt && a.id > b.id), 'ordered by (clicked_at, id) desc');
      }
      if (!page.nextCursor) break;
      assert.deepEqual(decodeClickCursor(page.nextCursor), { clickedAt: page.clicks.at(-1)!.clickedAt, id: page.clicks.at(-1)!.id });
      page = await c.store.analytics.recentClicks(link.id, { limit: 10, before: page.nextCursor, attribution: true });
    }
    assert.equal(seen.length, 25);
    assert.equal(new Set(seen).size, 25, 'no click repeated across pages');

    // Exactly `limit` rows left: the last page carries no cursor.
    const exact = await c.store.analytics.recentClicks(link.id, { limit: 25, attribution: true });
    assert.equal(exact.clicks.length, 25);
    assert.equal(exact.nextCursor, null);

    // A legacy bare timestamp means strictly earlier.
    const older = await c.store.analytics.recentClicks(link.id, { before: new Date(NOW - HOUR).toISOString(), attribution: true });
    assert.equal(older.clicks.length, 15);
    assert.ok(older.clicks.every((k) => k.clickedAt < NOW - HOUR));

    await assert.rejects(
      c.store.analytics.recentClicks(link.id, { before: 'not-a-cursor', attribution: true }),
      (e: unknown) => e instanceof AppError && e.code === 'BAD_REQUEST',
    );
  });

  test('recent clicks: attribution only for managers, null user for anonymous, null referrer when empty', async () => {
    const c = ctx();
    c.clock.now = NOW;
    const owner = await mkUser(c.store, 'Olive');
    const clicker = await mkUser(c.store, 'Clara');
    const link = await mkLink(c, owner);
    await addClicks(c.store, link.id, [
      { at: NOW - 2, userId: clicker.id, referrer: 'https://a.example/x' },
      { at: NOW - 1, userId: null, referrer: '' },
    ]);
    const manager = await c.store.analytics.recentClicks(link.id, { attribution: true });
    assert.deepEqual(
      manager.clicks.map((k) => [k.referrer, k.user]),
      [
        [null, null],
        ['https://a.example/x', { id: clicker.id, displayName: 'Clara' }],
      ],
    );
    const recipient = await c.store.analytics.recentClicks(link.id, { attribution: false });
    assert.ok(recipient.clicks.every((k) => k.user === null));
    assert.ok(!JSON.stringify(recipient).includes(clicker.id) && !JSON.stringify(recipient).includes('Clara'));
  });

  test('series: 30 gap-filled UTC days ending today, zero days present', async () => {
    const c = ctx();
    c.clock.now = NOW;
    const owner = await mkUser(c.store, 'Olive');
    const link = await mkLink(c, owner);
    await addClicks(c.store, link.id, [
      { at: Date.UTC(2026, 6, 17, 9) },
      { at: Date.UTC(2026, 6, 16, 23, 30) }, // UTC day 16th whatever the viewer's zone
      { at: Date.UTC(2026, 6, 16, 0, 0) },
      { at: Date.UTC(2026, 5, 18, 0, 0) }, // the midnight opening the oldest bucket
      { at: Date.UTC(2026, 5, 17, 23, 59, 59, 999) }, // one millisecond before the window
    ]);
    const s = await bothPaths(c, () => c.store.analytics.dailySeries(link.id, { days: 30 }));
    assert.equal(s.series.length, 30);
    assert.equal(s.series[0]!.date, '2026-06-18');
    assert.equal(s.series[29]!.date, '2026-07-17');
    assert.deepEqual(
      s.series.filter((p) => p.count > 0).map((p) => [p.date, p.count]),
      [
        ['2026-06-18', 1],
        ['2026-07-16', 2],
        ['2026-07-17', 1],
      ],
    );
    assert.equal(s.series.filter((p) => p.count === 0).length, 27);
    assert.equal(s.retentionHorizon, null);
    assert.ok(s.series.every((p) => !p.noData));
  });

  test('series: 90 days across month boundaries, and the rollups really serve it', async () => {
    const c = ctx();
    c.clock.now = NOW;
    const owner = await mkUser(c.store, 'Olive');
    const link = await mkLink(c, owner);
    const clicks = [];
    for (let d = 0; d < 95; d += 3) for (let k = 0; k <= d % 4; k++) clicks.push({ at: NOW - d * DAY - k * HOUR });
    await addClicks(c.store, link.id, clicks);
    const s = await bothPaths(c, () => c.store.analytics.dailySeries(link.id, { days: 90 }));
    assert.equal(s.series.length, 90);
    assert.ok(s.series.every((p, i) => i === 0 || p.dayStart - s.series[i - 1]!.dayStart === DAY));
    assert.equal(s.series[89]!.date, '2026-07-17');
    const inWindow = clicks.filter((k) => k.at >= s.series[0]!.dayStart).length;
    assert.equal(
      s.series.reduce((a, p) => a + p.count, 0),
      inWindow,
    );
    const rolled = await c.db.kysely
      .selectFrom('link_click_rollups')
      .select('day')
      .where('link_id', '=', link.id)
      .where('span', '=', 1)
      .execute();
    assert.ok(rolled.length > 20, 'closed days of this link are in the rollups');
  });

  test('series: days before a 60-day retention horizon are no-data, not zero', async () => {
    const c = ctx();
    c.clock.now = NOW;
    const owner = await mkUser(c.store, 'Olive');
    const link = await mkLink(c, owner);
    await addClicks(c.store, link.id, [{ at: NOW - 70 * DAY }, { at: NOW - 10 * DAY }]);
    const s = await bothPaths(c, () => c.store.analytics.dailySeries(link.id, { days: 90, retentionDays: 60 }));
    assert.equal(s.series.filter((p) => p.noData).length, 30);
    assert.ok(s.series.slice(0, 30).every((p) => p.noData && p.count === 0));
    assert.ok(s.series.slice(30).every((p) => !p.noData));
    assert.equal(
      s.series.reduce((a, p) => a + p.count, 0),
      1,
    );
    assert.equal(s.retentionHorizon, NOW - 60 * DAY);
  });

  test('breakdowns: referrers grouped by host, Direct / unknown, browser and OS families, auth split', async () => {
    const c = ctx();
    c.clock.now = NOW;
    const owner = await mkUser(c.store, 'Olive');
    const clicker = await mkUser(c.store, 'Clara');
    const link = await mkLink(c, owner);
    await addClicks(c.store, link.id, [
      { at: NOW - 2 * DAY, referrer: 'https://a.example/x', ua: UA.firefoxWindows, userId: clicker.id },
      { at: NOW - 1 * DAY, referrer: 'https://a.example/y?z=1', ua: UA.edgeWindows },
      { at: NOW - HOUR, referrer: '', ua: UA.safariIphone },
      { at: NOW - 40 * DAY, referrer: 'https://old.example/', ua: UA.curl }, // outside the 30-day window
    ]);
    const b = await bothPaths(c, () => c.store.analytics.breakdowns(link.id, { days: 30 }));
    assert.deepEqual(b, {
      days: 30,
      referrers: [
        { host: 'a.example', count: 2 },
        { host: 'Direct / unknown', count: 1 },
      ],
      browsers: [
        { name: 'Edge', count: 1 },
        { name: 'Firefox', count: 1 },
        { name: 'Safari', count: 1 },
      ],
      os: [
        { name: 'Windows', count: 2 },
        { name: 'iOS', count: 1 },
      ],
      auth: { authenticated: 1, anonymous: 2 },
    });
    const wide = await c.store.analytics.breakdowns(link.id, { days: 90 });
    assert.equal(wide.referrers.find((r) => r.host === 'old.example')?.count, 1);
    assert.ok(!JSON.stringify(wide).includes(clicker.id) && !JSON.stringify(wide).includes('Clara'), 'no clicker identity anywhere');
  });

  test('breakdowns: 14 referrer hosts give the top 10 plus one Other row', async () => {
    const c = ctx();
    c.clock.now = NOW;
    const owner = await mkUser(c.store, 'Olive');
    const link = await mkLink(c, owner);
    const clicks = [];
    for (let h = 0; h < 14; h++)
      for (let k = 0; k < 20 - h; k++) clicks.push({ at: NOW - ((h + k) % 20) * DAY - k, referrer: `https://host${h}.example/p/${k}` });
    await addClicks(c.store, link.id, clicks);
    const b = await bothPaths(c, () => c.store.analytics.breakdowns(link.id, { days: 30 }));
    assert.equal(b.referrers.length, 11);
    assert.deepEqual(
      b.referrers.slice(0, 10).map((r) => r.host),
      Array.from({ length: 10 }, (_, h) => `host${h}.example`),
    );
    assert.deepEqual(b.referrers[10], { host: 'Other', count: 10 + 9 + 8 + 7 });
  });

  test('the chart fragment read equals series plus breakdowns', async () => {
    const c = ctx();
    c.clock.now = NOW;
    const owner = await mkUser(c.store, 'Olive');
    const link = await mkLink(c, owner);
    await addClicks(
      c.store,
      link.id,
      Array.from({ length: 40 }, (_, i) => ({
        at: NOW - i * 2 * DAY - i,
        referrer: `https://r${i % 3}.example/`,
        ua: i % 2 ? UA.chromeMac : UA.curl,
        userId: null,
      })),
    );
    const both = await bothPaths(c, () => c.store.analytics.linkWindow(link.id, { days: 90, retentionDays: null }));
    assert.deepEqual(both.series, await c.store.analytics.dailySeries(link.id, { days: 90 }));
    assert.deepEqual(both.breakdowns, await c.store.analytics.breakdowns(link.id, { days: 90 }));
  });
});
