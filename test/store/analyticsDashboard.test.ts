import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../../src/domain/errors.js';
import { dashboardScopeFor } from '../../src/domain/statsScope.js';
import type { Dashboard } from '../../src/store/analytics.js';
import { describeEachDatabase, type DbContext } from '../helpers/databases.js';
import { addClicks, bothPaths, DAY, HOUR, mkLink, mkUser } from './analyticsFixtures.js';

/**
 * `/dashboard/analytics` data
 * (docs/analytics.md#dashboard) on every database, from raw rows and through the rollups.
 * Each test gets its own database so instance-wide (`all`) panels see only
 * its own world.
 */

const NOW = Date.UTC(2026, 6, 17, 14, 0, 0);

const slugs = (d: Dashboard) => d.topLinks.map((t) => t.slug);

describeEachDatabase("dashboard: personal scope never leaks another user's links", (ctx) => {
  test("another user's heavily clicked public link influences none of my panels; a link shared with me does", async () => {
    const c = ctx();
    c.clock.now = NOW;
    const alice = await mkUser(c.store, 'Alice');
    const bob = await mkUser(c.store, 'Bob');
    const mine = await mkLink(c, alice, { slug: 'alice-doc' });
    const bobsPublic = await mkLink(c, bob, { slug: 'bob-public', visibility: 'public' });
    const sharedWithMe = await mkLink(c, bob, { slug: 'bob-secure', visibility: 'secure', shareWith: [alice.id] });
    await mkLink(c, bob, { slug: 'bob-idle', ageDays: 30 });
    await mkLink(c, alice, { slug: 'alice-idle', ageDays: 20 });
    await addClicks(
      c.store,
      mine.id,
      Array.from({ length: 3 }, (_, i) => ({ at: NOW - (i + 1) * DAY, referrer: 'https://mine.example/' })),
    );
    await addClicks(
      c.store,
      bobsPublic.id,
      Array.from({ length: 500 }, (_, i) => ({ at: NOW - (i % 6) * DAY - i, referrer: 'https://bobs-fans.example/' })),
    );
    await addClicks(
      c.store,
      sharedWithMe.id,
      Array.from({ length: 7 }, (_, i) => ({ at: NOW - i * 20 * HOUR, userId: alice.id, referrer: 'https://team.example/' })),
    );

    const a = await bothPaths(c, () =>
      c.store.analytics.dashboard({ period: 'week', scope: dashboardScopeFor({ id: alice.id, isAdmin: false }, 'mine') }),
    );
    assert.equal(a.scope, 'mine');
    assert.deepEqual(slugs(a), ['bob-secure', 'alice-doc']);
    assert.deepEqual(a.topLinks[0], {
      linkId: sharedWithMe.id,
      slug: 'bob-secure',
      count: 7,
      previousCount: 0,
      trendPct: null,
      isNew: true,
    });
    assert.deepEqual(
      a.neverClicked.map((n) => n.slug),
      ['alice-idle'],
    );
    assert.deepEqual(a.topReferrers, [
      { host: 'team.example', count: 7 },
      { host: 'mine.example', count: 3 },
    ]);
    const text = JSON.stringify(a);
    assert.ok(!text.includes(bobsPublic.id) && !text.includes('bobs-fans') && !text.includes('bob-idle'));
    assert.ok(!text.includes('Alice') && !text.includes('Bob'), 'no clicker or owner names');
  });

  test('scope=all is instance-wide for admins and refused for everyone else', async () => {
    const c = ctx();
    c.clock.now = NOW;
    const admin = await mkUser(c.store, 'Root', true);
    const carol = await mkUser(c.store, 'Carol');
    const adminLink = await mkLink(c, admin, { slug: 'admin-own' });
    const carolLink = await mkLink(c, carol, { slug: 'carol-link' });
    await addClicks(c.store, adminLink.id, [{ at: NOW - DAY }]);
    await addClicks(c.store, carolLink.id, [{ at: NOW - DAY }, { at: NOW - 2 * DAY }]);

    const mineView = await bothPaths(c, () =>
      c.store.analytics.dashboard({ period: 'week', scope: dashboardScopeFor({ id: admin.id, isAdmin: true }, 'mine') }),
    );
    assert.deepEqual(slugs(mineView), ['admin-own'], 'admins default to their personal scope too');
    const all = await bothPaths(c, () =>
      c.store.analytics.dashboard({ period: 'week', scope: dashboardScopeFor({ id: admin.id, isAdmin: true }, 'all') }),
    );
    assert.equal(all.scope, 'all');
    assert.ok(slugs(all).includes('carol-link') && slugs(all).includes('admin-own'));
    // The rule is the domain's, applied before the store is asked (domain/statsScope.ts).
    assert.throws(
      () => dashboardScopeFor({ id: carol.id, isAdmin: false }, 'all'),
      (e: unknown) => e instanceof AppError && e.code === 'FORBIDDEN',
    );
  });
});

describeEachDatabase('dashboard: trend, never-clicked and referrers', (ctx) => {
  async function world(c: DbContext) {
    c.clock.now = NOW;
    const owner = await mkUser(c.store, 'Olive');
    return { owner, viewer: { id: owner.id, isAdmin: false } };
  }

  test('trend against the previous equal-length period: +50% and "new"', async () => {
    const c = ctx();
    const { owner, viewer } = await world(c);
    const jira = await mkLink(c, owner, { slug: 'jira' });
    const fresh = await mkLink(c, owner, { slug: 'fresh' });
    const faded = await mkLink(c, owner, { slug: 'faded' });
    // Made two months ago, idle the week before: no trend to show, and not new either.
    const veteran = await mkLink(c, owner, { slug: 'veteran', ageDays: 60 });
    // 120 clicks this week, 80 the week before; boundaries at exactly now − 7 d and now − 14 d.
    await addClicks(c.store, jira.id, [
      ...Array.from({ length: 119 }, (_, i) => ({ at: NOW - (i % 7) * DAY - (i % 24) * HOUR })),
      { at: NOW - 7 * DAY },
      ...Array.from({ length: 79 }, (_, i) => ({ at: NOW - 8 * DAY - (i % 6) * DAY - i * 60_000 })),
      { at: NOW - 14 * DAY },
      { at: NOW - 14 * DAY - 1 }, // before the previous period: counts nowhere
    ]);
    await addClicks(
      c.store,
      fresh.id,
      Array.from({ length: 5 }, (_, i) => ({ at: NOW - i * DAY })),
    );
    await addClicks(c.store, faded.id, [{ at: NOW - 10 * DAY }]);
    await addClicks(c.store, veteran.id, [{ at: NOW - HOUR }, { at: NOW - 2 * DAY }, { at: NOW - 40 * DAY }]);
    const d = await bothPaths(c, () => c.store.analytics.dashboard({ period: 'week', scope: dashboardScopeFor(viewer, 'mine') }));
    assert.deepEqual(d.topLinks, [
      { linkId: jira.id, slug: 'jira', count: 120, previousCount: 80, trendPct: 50, isNew: true },
      { linkId: fresh.id, slug: 'fresh', count: 5, previousCount: 0, trendPct: null, isNew: true },
      { linkId: veteran.id, slug: 'veteran', count: 2, previousCount: 0, trendPct: null, isNew: false },
    ]);
    const month = await bothPaths(c, () => c.store.analytics.dashboard({ period: 'month', scope: dashboardScopeFor(viewer, 'mine') }));
    assert.equal(month.period, 'month');
    assert.deepEqual(
      month.topLinks.map((t) => [t.slug, t.count, t.previousCount]),
      [
        ['jira', 201, 0],
        ['fresh', 5, 0],
        ['veteran', 2, 1],
        ['faded', 1, 0],
      ],
    );
  });

  test('top links: at most ten, ties broken by slug', async () => {
    const c = ctx();
    const { owner, viewer } = await world(c);
    for (let i = 0; i < 13; i++) {
      const l = await mkLink(c, owner, { slug: `tie-${String.fromCharCode(109 - i)}` });
      await addClicks(
        c.store,
        l.id,
        Array.from({ length: i < 3 ? 9 : 4 }, (_, k) => ({ at: NOW - k * DAY })),
      );
    }
    const d = await bothPaths(c, () => c.store.analytics.dashboard({ period: 'week', scope: dashboardScopeFor(viewer, 'mine') }));
    assert.equal(d.topLinks.length, 10);
    assert.deepEqual(slugs(d).slice(0, 3), ['tie-k', 'tie-l', 'tie-m']);
    assert.deepEqual(slugs(d).slice(3), ['tie-a', 'tie-b', 'tie-c', 'tie-d', 'tie-e', 'tie-f', 'tie-g']);
  });

  test('never-clicked: created at least 7 days ago, no click ever, newest first, at most 10', async () => {
    const c = ctx();
    const { owner, viewer } = await world(c);
    const expected: string[] = [];
    for (let i = 0; i < 12; i++) {
      const l = await mkLink(c, owner, { slug: `idle-${String(i).padStart(2, '0')}`, ageDays: 7 + i });
      expected.push(l.slug);
    }
    await mkLink(c, owner, { slug: 'too-young', ageDays: 6 });
    const clicked = await mkLink(c, owner, { slug: 'clicked-long-ago', ageDays: 300 });
    await addClicks(c.store, clicked.id, [{ at: NOW - 200 * DAY }]);
    const d = await c.store.analytics.dashboard({ period: 'week', scope: dashboardScopeFor(viewer, 'mine') });
    assert.deepEqual(
      d.neverClicked.map((n) => n.slug),
      expected.slice(0, 10),
    );
    assert.equal(d.neverClicked[0]!.createdAt, NOW - 7 * DAY);
  });

  test('busiest referrers: top 10 hosts over the period plus Other, grouped like the breakdowns', async () => {
    const c = ctx();
    const { owner, viewer } = await world(c);
    const a = await mkLink(c, owner);
    const b = await mkLink(c, owner);
    const clicks = (host: string, n: number, offset: number) =>
      Array.from({ length: n }, (_, i) => ({
        at: NOW - offset - (i % 6) * DAY - i * 1_000,
        referrer: host ? `https://${host}/p?q=${i}` : null,
      }));
    await addClicks(c.store, a.id, [...clicks('news.example', 30, 0), ...clicks('', 4, 0), ...clicks('old.example', 50, 8 * DAY)]);
    for (let h = 0; h < 12; h++) await addClicks(c.store, b.id, clicks(`h${h}.example`, 20 - h, HOUR));
    const d = await bothPaths(c, () => c.store.analytics.dashboard({ period: 'week', scope: dashboardScopeFor(viewer, 'mine') }));
    assert.equal(d.topReferrers.length, 11);
    assert.deepEqual(d.topReferrers[0], { host: 'news.example', count: 30 });
    assert.ok(!d.topReferrers.some((r) => r.host === 'old.example'), 'only the current period counts');
    // news.example and h0–h8 make the ten; h9, h10, h11 and the four direct clicks are summed.
    assert.deepEqual(d.topReferrers.at(-1), { host: 'Other', count: 11 + 10 + 9 + 4 });
  });
});
