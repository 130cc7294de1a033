import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DAY, HOUR } from '../store/analyticsFixtures.js';
import type { TestServer } from '../helpers/server.js';
import { as, clicks, ROLES, rollupsSettled, statsWorld, type Role } from './statsFixture.js';
import { actor, assertError, call, createLink, startApi, type Actor } from './support.js';

/**
 * `GET /api/v1/analytics`
 * (docs/analytics.md#dashboard): the personal scope (own + co-owned + shared, nothing else —
 * not even public links), the admin-only `scope=all`, the trend and the
 * panels, over real HTTP on a real database.
 */

const MINUTE = 60_000;
const spread = (n: number, from: number, step = MINUTE) => Array.from({ length: n }, (_, i) => ({ at: from - i * step }));

describe('analytics API', () => {
  let s: TestServer;
  let ann: Actor;
  let ben: Actor;
  let root: Actor;
  let links: Record<'busy' | 'fresh' | 'stale' | 'young' | 'shared' | 'bensPublic' | 'bensPrivate', { id: string; slug: string }>;

  before(async () => {
    s = await startApi();
    await rollupsSettled(s);
    ann = await actor(s, 'ann');
    ben = await actor(s, 'ben');
    root = await actor(s, 'root', { admin: true });
    const tag = process.pid;
    links = {
      busy: await createLink(s, ann, { slug: `an-busy-${tag}` }),
      fresh: await createLink(s, ann, { slug: `an-fresh-${tag}`, visibility: 'private' }),
      stale: await createLink(s, ann, { slug: `an-stale-${tag}` }),
      young: await createLink(s, ann, { slug: `an-young-${tag}` }),
      shared: await createLink(s, ben, { slug: `ben-shared-${tag}`, visibility: 'secure' }),
      bensPublic: await createLink(s, ben, { slug: `ben-public-${tag}` }),
      bensPrivate: await createLink(s, ben, { slug: `ben-private-${tag}`, visibility: 'private' }),
    };
    const share = await call(s, 'POST', `/api/v1/links/${links.shared.id}/shares`, { as: ben, body: { email: ann.user.email } });
    assert.equal(share.status, 201, share.text);
    // "Never clicked" needs links at least 7 days old; the API cannot backdate, the table can.
    await s.store.db.kysely
      .updateTable('links')
      .set({ created_at: Date.now() - 10 * DAY })
      .where('id', '=', links.stale.id)
      .execute();

    const now = Date.now();
    await clicks(s, links.busy.id, [
      ...spread(120, now - HOUR).map((c) => ({ ...c, referrer: 'https://news.ycombinator.com/item?id=1', userId: ben.user.id })),
      ...spread(80, now - 8 * DAY).map((c) => ({ ...c, referrer: 'https://lobste.rs/s/x' })),
    ]);
    await clicks(s, links.fresh.id, spread(5, now - 2 * HOUR));
    await clicks(
      s,
      links.shared.id,
      spread(30, now - 3 * HOUR).map((c) => ({ ...c, referrer: 'https://shared.example/', userId: ben.user.id })),
    );
    // Ben's own links are the busiest of all, and none of Ann's business.
    await clicks(
      s,
      links.bensPublic.id,
      spread(500, now - 4 * HOUR, 1000).map((c) => ({ ...c, referrer: 'https://bens-public-only.example/' })),
    );
    await clicks(
      s,
      links.bensPrivate.id,
      spread(300, now - 5 * HOUR, 1000).map((c) => ({ ...c, referrer: 'https://bens-private-only.example/' })),
    );
  });
  after(async () => s.stop());

  test('capability table: every token holder gets their own dashboard; scope=all is for admins; no token 401', async () => {
    const w = await statsWorld(s);
    const all: Record<Role, number> = { owner: 403, coowner: 403, share: 403, other: 403, admin: 200, none: 401 };
    for (const role of ROLES) {
      const mine = await call(s, 'GET', '/api/v1/analytics', { as: as(w, role) });
      if (role === 'none') assertError(mine, 401, 'UNAUTHORIZED');
      else assert.equal(mine.status, 200, `${role}: ${mine.text}`);
      const wide = await call(s, 'GET', '/api/v1/analytics?scope=all', { as: as(w, role) });
      if (all[role] === 200) assert.equal(wide.status, 200, `${role}: ${wide.text}`);
      else assertError(wide, all[role], all[role] === 401 ? 'UNAUTHORIZED' : 'FORBIDDEN', `scope=all as ${role}`);
    }
  });

  test('the personal scope: own, co-owned and shared links with trend; another user’s public and private links count nowhere', async () => {
    const r = await call(s, 'GET', '/api/v1/analytics', { as: ann });
    assert.equal(r.status, 200, r.text);
    assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(Object.keys(r.body).sort(), ['never_clicked', 'period', 'scope', 'top_links', 'top_referrers']);
    assert.equal(r.body.period, 'week');
    assert.equal(r.body.scope, 'mine');
    assert.deepEqual(r.body.top_links, [
      { link_id: links.busy.id, slug: links.busy.slug, count: 120, previous_count: 80, trend_pct: 50 },
      { link_id: links.shared.id, slug: links.shared.slug, count: 30, previous_count: 0, trend_pct: null },
      { link_id: links.fresh.id, slug: links.fresh.slug, count: 5, previous_count: 0, trend_pct: null },
    ]);
    assert.deepEqual(r.body.never_clicked, [
      { link_id: links.stale.id, slug: links.stale.slug, created_at: r.body.never_clicked[0]?.created_at },
    ]);
    assert.ok(
      Math.abs(Date.parse(r.body.never_clicked[0].created_at) - (Date.now() - 10 * DAY)) < 10 * MINUTE,
      'created_at is the stored creation time',
    );
    assert.deepEqual(r.body.top_referrers, [
      { host: 'news.ycombinator.com', count: 120 },
      { host: 'shared.example', count: 30 },
      { host: 'Direct / unknown', count: 5 },
    ]);
    for (const leak of [
      links.bensPublic.id,
      links.bensPrivate.id,
      'bens-public-only',
      'bens-private-only',
      ben.user.id,
      ben.user.displayName,
    ]) {
      assert.ok(!r.text.includes(leak), `nothing of Ben's own links or identity reaches Ann (${leak})`);
    }
  });

  test('period=month covers the last 30 days; the previous month had nothing, so every trend is "new"', async () => {
    const r = await call(s, 'GET', '/api/v1/analytics?period=month', { as: ann });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.period, 'month');
    assert.deepEqual(
      r.body.top_links.map((l: { slug: string; count: number; trend_pct: number | null }) => [l.slug, l.count, l.trend_pct]),
      [
        [links.busy.slug, 200, null],
        [links.shared.slug, 30, null],
        [links.fresh.slug, 5, null],
      ],
    );
    assert.ok(r.body.top_referrers.some((h: { host: string; count: number }) => h.host === 'lobste.rs' && h.count === 80));
  });

  test('a share recipient sees the shared link counted, the owner sees it too, an admin’s own scope holds neither', async () => {
    const bens = await call(s, 'GET', '/api/v1/analytics', { as: ben });
    const slugs = bens.body.top_links.map((l: { slug: string }) => l.slug);
    assert.deepEqual(slugs, [links.bensPublic.slug, links.bensPrivate.slug, links.shared.slug]);
    assert.ok(!slugs.includes(links.busy.slug), "Ben clicked Ann's link; that does not make it his");

    const mine = await call(s, 'GET', '/api/v1/analytics', { as: root });
    assert.equal(mine.body.scope, 'mine');
    assert.deepEqual(mine.body.top_links, [], 'admins default to their personal scope');
    assert.deepEqual(mine.body.top_referrers, []);
  });

  test('scope=all gives an admin every link, other users’ public and private ones included', async () => {
    const r = await call(s, 'GET', '/api/v1/analytics?scope=all&period=week', { as: root });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.scope, 'all');
    const slugs = r.body.top_links.map((l: { slug: string }) => l.slug);
    for (const l of [links.bensPublic, links.bensPrivate, links.busy, links.shared, links.fresh]) assert.ok(slugs.includes(l.slug), l.slug);
    const hosts = r.body.top_referrers.map((h: { host: string }) => h.host);
    assert.ok(hosts.includes('bens-public-only.example') && hosts.includes('bens-private-only.example'));
    assert.ok(!r.text.includes(ben.user.id) && !r.text.includes(ann.user.displayName), 'aggregates only, even instance-wide');
  });

  test('bad period or scope is 400 BAD_REQUEST', async () => {
    for (const q of [
      'period=year',
      'period=',
      'period=Week',
      'period=7',
      'period=week&period=month',
      'scope=everyone',
      'scope=',
      'scope=ALL',
      'scope=mine&scope=all',
    ]) {
      assertError(await call(s, 'GET', `/api/v1/analytics?${q}`, { as: ann }), 400, 'BAD_REQUEST', q);
      assertError(await call(s, 'GET', `/api/v1/analytics?${q}`, { as: root }), 400, 'BAD_REQUEST', `${q} (admin)`);
    }
    assertError(await call(s, 'GET', '/api/v1/analytics?period=year'), 401, 'UNAUTHORIZED', 'authentication comes first');
  });
});
