import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Link } from '../../src/store/types.js';
import { addClicks, DAY, HOUR } from '../store/analyticsFixtures.js';
import type { TestServer } from '../helpers/server.js';
import { anonymous, has, lacks, mainOf, signedIn, startWebServer, textOf, type Client } from './support.js';
import { addOwner, createLink } from '../helpers/links.js';

/**
 * `/dashboard/analytics` (docs/analytics.md#dashboard) over
 * real HTTP: the personal scope (own + co-owned + shared, never anyone
 * else's links — public ones included), the admin-only `scope=all`, periods,
 * trends, never-clicked links, busiest referrers, and no clicker identity.
 */

const NOW = Date.UTC(2030, 5, 17, 14, 0, 0);

const panel = (html: string, id: string) => {
  const m = new RegExp(`<section[^>]*id="${id}">([\\s\\S]*?)</section>`).exec(html);
  assert.ok(m, `panel ${id}`);
  return m[1]!;
};

describe('analytics dashboard (docs/analytics.md)', () => {
  let s: TestServer;
  let alice: Client;
  let bob: Client;
  let carol: Client;
  let admin: Client;
  let zed: Client;
  const links: Record<string, Link> = {};

  let clock = NOW;
  before(async () => {
    s = await startWebServer({ env: { JOE_SHORT_KEYWORD: 'go' }, now: () => clock });
    await s.scheduler.stop();
    alice = await signedIn(s, 'alice@x.io', { name: 'Alice' });
    bob = await signedIn(s, 'bob@x.io', { name: 'Bob' });
    carol = await signedIn(s, 'carol@x.io', { name: 'Carol' });
    admin = await signedIn(s, 'root@x.io', { name: 'Root', admin: true });
    zed = await signedIn(s, 'zed@x.io', { name: 'Zed Clicksworth' });
    const mk = async (slug: string, owner: Client, opts: { visibility?: string; shareWith?: Client[] } = {}) => {
      links[slug] = await createLink(
        s.store,
        { slug, url: `https://${slug}.example`, visibility: opts.visibility ?? 'public' },
        owner.user!.id,
        { shareWith: (opts.shareWith ?? []).map((c) => c.user!.id) },
      );
    };
    // Links made ten days ago, so the unclicked ones qualify as never clicked.
    clock = NOW - 10 * DAY;
    // Alice's scope: her own links, one she co-owns, and a secure link shared with her.
    await mk('rising', alice);
    await mk('falling', alice);
    await mk('co-owned', carol);
    await addOwner(s.store, links['co-owned']!.id, alice.user!.id);
    await mk('shared-secret', carol, { visibility: 'secure', shareWith: [alice] });
    await mk('alice-idle', alice);
    await mk('shared-idle', carol, { visibility: 'secure', shareWith: [alice] });
    // Bob's public link: heavily clicked, from a referrer no one else has; and his idle one.
    await mk('bob-public', bob);
    await mk('bob-idle', bob);
    await mk('carol-private', carol, { visibility: 'private' });
    clock = NOW - 2 * DAY;
    await mk('alice-fresh', alice);
    // Created within this week: the one link whose trend reads "new".
    await mk('brand-new', alice);
    clock = NOW;

    const at = (days: number, hours = 0) => NOW - days * DAY - hours * HOUR;
    const many = (n: number, from: number, span: number, extra: object = {}) =>
      Array.from({ length: n }, (_, i) => ({ at: from - Math.floor((i * span) / n), ...extra }));
    // rising: 120 this week, 80 the week before → +50%.
    await addClicks(s.store, links['rising']!.id, [
      ...many(120, at(0, 1), 6 * DAY, { referrer: 'https://news.example/a', userId: zed.user!.id }),
      ...many(80, at(8), 5 * DAY),
    ]);
    // brand-new: created two days ago, 5 clicks since → "new". shared-secret and co-owned, ten days
    // old with no clicks the week before, are "new" too: the API's trend_pct is null for all three.
    await addClicks(s.store, links['brand-new']!.id, many(5, at(1), DAY, { referrer: 'https://chat.example/' }));
    // falling: 10 this week, 40 before → −75%.
    await addClicks(s.store, links['falling']!.id, [...many(10, at(2), DAY), ...many(40, at(9), 3 * DAY)]);
    await addClicks(s.store, links['co-owned']!.id, many(3, at(3), DAY, { referrer: 'https://wiki.example/page' }));
    await addClicks(
      s.store,
      links['shared-secret']!.id,
      many(7, at(1), DAY, { userId: zed.user!.id, referrer: 'https://intranet.example/"><img src=x onerror=alert(1)>' }),
    );
    await addClicks(s.store, links['bob-public']!.id, many(500, at(0, 2), 6 * DAY, { referrer: 'https://bob-only.example/' }));
    await addClicks(s.store, links['carol-private']!.id, many(50, at(0, 3), 6 * DAY, { referrer: 'https://carol-only.example/' }));
    await s.store.clickRollups.rollUp();
  });
  after(async () => s.stop());

  test('anonymous visitors are sent to sign in; HTMX ones get HX-Redirect', async () => {
    for (const path of ['/dashboard/analytics', '/dashboard/analytics?period=month&scope=all']) {
      const r = await anonymous(s).page(path);
      assert.equal(r.status, 302);
      assert.equal(r.header('location'), `/auth/login?return_url=${encodeURIComponent(path)}`);
    }
    const hx = await anonymous(s).page('/dashboard/analytics', { htmx: true });
    assert.equal(hx.status, 204);
    has(hx.header('hx-redirect') ?? '', /^\/auth\/login\?return_url=/);
  });

  test('personal scope: own, co-owned and shared links, top links with trend and "new", busiest referrers', async () => {
    const r = await alice.page('/dashboard/analytics');
    assert.equal(r.status, 200);
    has(r.body, /<title>Analytics — Joe Links<\/title>/);
    has(r.body, /<a href="\/dashboard\/analytics" class="menu-active" aria-current="page">/, 'the nav entry is highlighted');
    const main = mainOf(r.body);
    const top = panel(main, 'top-links');
    const rows = textOf(top);
    has(
      rows,
      /Link Clicks Previous Trend rising 120 80 ▲ \+50% falling 10 40 ▼ −75% shared-secret 7 0 new brand-new 5 0 new co-owned 3 0 new/,
    );
    lacks(rows, /from 0/, 'a previous period of 0 is "new", never "from 0"');
    has(top, /title="No clicks in the previous period">new</, 'an older link idle the week before');
    has(top, /title="Created in this period">new</, 'a link created this week');
    has(top, new RegExp(`href="/dashboard/links/${links['rising']!.id}/stats"`), 'each link opens its stats page');
    const refs = textOf(panel(main, 'busiest-referrers'));
    has(refs, /news\.example 120/);
    has(refs, /Direct \/ unknown 10/);
    has(refs, /intranet\.example 7/);
    has(refs, /chat\.example 5/);
    has(refs, /wiki\.example 3/);
    lacks(main, /scope=all|All links/, 'no scope toggle for a non-admin');
    has(main, /aria-pressed="true"[^>]*>Week</);
  });

  test("another user's public link never influences my dashboard, nor does another user's private link", async () => {
    const before = mainOf((await alice.page('/dashboard/analytics')).body);
    const beforeMonth = mainOf((await alice.page('/dashboard/analytics?period=month')).body);
    for (const html of [before, beforeMonth]) {
      lacks(html, /bob-public|bob-idle|bob-only\.example|carol-private|carol-only\.example/);
      lacks(html, new RegExp(`${links['bob-public']!.id}|${links['carol-private']!.id}`));
    }
    // More clicks on Bob's public link, from a referrer Alice's links also see, change nothing for her.
    await addClicks(
      s.store,
      links['bob-public']!.id,
      Array.from({ length: 300 }, (_, i) => ({ at: NOW - 10 * HOUR - i * 1000, referrer: 'https://news.example/b' })),
    );
    await addClicks(
      s.store,
      links['bob-public']!.id,
      Array.from({ length: 300 }, (_, i) => ({ at: NOW - 9 * DAY - i * 1000, referrer: 'https://news.example/b' })),
    );
    await s.store.clickRollups.rollUp();
    assert.equal(mainOf((await alice.page('/dashboard/analytics')).body), before, 'byte-identical panels');
    assert.equal(mainOf((await alice.page('/dashboard/analytics?period=month')).body), beforeMonth);
    // Bob sees his own link.
    has(textOf(panel(mainOf((await bob.page('/dashboard/analytics')).body), 'top-links')), /bob-public 800 300 ▲ \+167%/);
  });

  test('scope=all: admins get every link and a visible toggle; others get the styled 403; admins default to their own scope', async () => {
    const mine = mainOf((await admin.page('/dashboard/analytics')).body);
    has(mine, /aria-label="Scope"/);
    has(mine, /aria-pressed="true"[^>]*>My links</);
    has(panel(mine, 'top-links'), /No clicks in the last 7 days\./, 'the admin owns no links');
    lacks(mine, /bob-public/);

    const all = await admin.page('/dashboard/analytics?scope=all');
    assert.equal(all.status, 200);
    const allMain = mainOf(all.body);
    has(allMain, /aria-pressed="true"[^>]*>All links</);
    has(textOf(panel(allMain, 'top-links')), /bob-public 800 300 .* rising 120 80 .* carol-private 50 0 new/);
    has(textOf(panel(allMain, 'busiest-referrers')), /bob-only\.example 500/);
    has(allMain, /href="\/dashboard\/analytics\?period=month&amp;scope=all"/, 'the period toggle keeps the scope');

    for (const c of [alice, bob]) {
      for (const q of ['?scope=all', '?scope=all&period=month']) {
        const r = await c.page(`/dashboard/analytics${q}`);
        assert.equal(r.status, 403, q);
        has(mainOf(r.body), /Access denied/);
        lacks(r.body, /bob-public|rising|top-links/);
        const hx = await c.page(`/dashboard/analytics${q}`, { htmx: true });
        assert.equal(hx.status, 403);
        lacks(hx.body, /top-links/);
      }
    }
    assert.equal((await alice.page('/dashboard/analytics?scope=mine')).status, 200);
  });

  test('periods: week (default) and month; bad period or scope values are a 400', async () => {
    const month = mainOf((await alice.page('/dashboard/analytics?period=month')).body);
    has(month, /data-period="month"/);
    has(month, /aria-pressed="true"[^>]*>Month</);
    // 30 days: rising's 200 and falling's 50 are all in the current period.
    has(textOf(panel(month, 'top-links')), /rising 200 0 new falling 50 0 new/);
    for (const q of ['?period=year', '?period=WEEK', '?scope=everyone', '?scope=ALL']) {
      const r = await alice.page(`/dashboard/analytics${q}`);
      assert.equal(r.status, 400, q);
      has(mainOf(r.body), /(period must be week or month|scope must be mine or all)/);
    }
    assert.equal((await alice.page('/dashboard/analytics?period=')).status, 200, 'an empty value is the default');
  });

  test('the toggles swap only the panels over HTMX and push the URL; plain links work without JavaScript', async () => {
    const main = mainOf((await alice.page('/dashboard/analytics')).body);
    has(
      main,
      /<a href="\/dashboard\/analytics\?period=month" hx-get="\/dashboard\/analytics\?period=month" hx-target="#analytics-panels" hx-swap="outerHTML" hx-push-url="true"/,
    );
    const frag = await alice.page('/dashboard/analytics?period=month', { htmx: true });
    assert.equal(frag.status, 200);
    has(frag.body, /^<div id="analytics-panels"[^>]*data-period="month"/);
    lacks(frag.body, /<html|<main|<h1/);
  });

  test('never-clicked: links in scope created over 7 days ago without clicks, newest first; labelled for retention', async () => {
    const main = mainOf((await alice.page('/dashboard/analytics')).body);
    const never = panel(main, 'never-clicked');
    has(never, /Created over 7 days ago, never clicked/);
    has(
      textOf(never),
      /^Never clicked Created over 7 days ago, never clicked (shared-idle|alice-idle) Created Jun 7, 2030 (shared-idle|alice-idle) Created Jun 7, 2030$/,
    );
    lacks(never, /alice-fresh|bob-idle|rising/);
    has(never, /<time datetime="2030-06-07T14:00:00Z" title="2030-06-07T14:00:00Z" data-local="date">Jun 7, 2030<\/time>/);
    has(textOf(panel(mainOf((await bob.page('/dashboard/analytics')).body), 'never-clicked')), /bob-idle/);

    const kept = await startWebServer({ env: { JOE_CLICK_RETENTION: '365' }, now: () => NOW });
    try {
      await kept.scheduler.stop();
      const olive = await signedIn(kept, 'olive@x.io', { name: 'Olive' });
      const html = mainOf((await olive.page('/dashboard/analytics')).body);
      has(panel(html, 'never-clicked'), /Created over 7 days ago, no clicks within retention/);
      has(panel(html, 'never-clicked'), /No links without clicks within retention\./);
    } finally {
      await kept.stop();
    }
  });

  test('no clicker identity anywhere, hostile referrers escaped, and dates as <time> elements', async () => {
    for (const c of [alice, admin]) {
      for (const q of ['', '?period=month', c === admin ? '?scope=all' : '']) {
        const body = (await c.page(`/dashboard/analytics${q}`)).body;
        lacks(body, /Zed|zed@x\.io/);
        lacks(body, new RegExp(zed.user!.id));
        lacks(mainOf(body), /<img|<script/);
      }
    }
    has(textOf(panel(mainOf((await alice.page('/dashboard/analytics')).body), 'busiest-referrers')), /intranet\.example 7/);
  });
});
