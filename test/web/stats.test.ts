import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DailyCounter, dayWindow, retentionHorizon } from '../../src/domain/timeseries.js';
import { STATIC_DIR } from '../../src/paths.js';
import type { Link } from '../../src/store/types.js';
import { ClickChart, labelledDays, niceStep } from '../../src/views/partials/clickChart.js';
import { renderFragment } from '../../src/views/render.js';
import { addClicks, DAY, HOUR, UA } from '../store/analyticsFixtures.js';
import { get, type TestServer } from '../helpers/server.js';
import { anonymous, has, lacks, mainOf, signedIn, startWebServer, textOf, type Client } from './support.js';
import { createLink } from '../helpers/links.js';

/**
 * The per-link stats page, its chart fragment and the web CSV export
 * (docs/web-ui.md#stats-page, docs/analytics.md) over real HTTP, with the
 * capability gates probed adversarially: strangers, share recipients,
 * anonymous visitors, unknown ids.
 */

const NOW = Date.UTC(2030, 5, 17, 14, 0, 0);
const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

/** Every `<time>` element of a body: its attributes and text. */
function times(html: string): Array<{ datetime: string; title: string; text: string }> {
  return [...html.matchAll(/<time datetime="([^"]*)" title="([^"]*)" data-local="(?:date|datetime)">([^<]*)<\/time>/g)].map((m) => ({
    datetime: m[1]!,
    title: m[2]!,
    text: m[3]!,
  }));
}

/** The days of the wide drawing; the compact one shown on a phone draws the same days (docs/web-ui.md#stats-page). */
const wideDrawing = (html: string) => {
  const m = /<svg[^>]*data-chart-layout="wide"[\s\S]*?<\/svg>/.exec(html);
  assert.ok(m, 'the wide drawing is present');
  const compact = /<svg[^>]*data-chart-layout="compact"[\s\S]*?<\/svg>/.exec(html);
  assert.ok(compact, 'so is the compact one');
  const days = (svg: string) => [...svg.matchAll(/<g data-day="([^"]+)"/g)].map((d) => d[1]).join();
  assert.equal(days(compact[0]), days(m[0]), 'both drawings show the same days');
  return m[0];
};
const dayGroups = (html: string) =>
  [...wideDrawing(html).matchAll(/<g data-day="(\d{4}-\d\d-\d\d)" data-kind="(bar|zero|nodata)"/g)].map((m) => ({
    day: m[1]!,
    kind: m[2]!,
  }));

describe('link stats page (docs/web-ui.md#stats-page, docs/analytics.md)', () => {
  let s: TestServer;
  let alice: Client;
  let bob: Client;
  let carol: Client;
  let admin: Client;
  let zed: Client;
  let docs: Link;
  let memo: Link;
  let vault: Link;
  let quiet: Link;

  before(async () => {
    s = await startWebServer({ env: { JOE_SHORT_KEYWORD: 'go' }, now: () => NOW });
    // The roll-up job summarises closed days at start; backdated rows written afterwards are
    // picked up by its next run, which this suite makes itself once the rows are in.
    await s.scheduler.stop();
    alice = await signedIn(s, 'alice@x.io', { name: 'Alice' });
    bob = await signedIn(s, 'bob@x.io', { name: 'Bob' });
    carol = await signedIn(s, 'carol@x.io', { name: 'Carol' });
    admin = await signedIn(s, 'root@x.io', { name: 'Root', admin: true });
    // The clicker whose identity only managers may see.
    zed = await signedIn(s, 'zed@x.io', { name: 'Zed Clicksworth' });
    docs = await createLink(s.store, { slug: 'docs', url: 'https://docs.example.com' }, alice.user!.id);
    memo = await createLink(s.store, { slug: 'memo', url: 'https://memo.example.com', visibility: 'private' }, alice.user!.id);
    vault = await createLink(s.store, { slug: 'vault', url: 'https://vault.example.com', visibility: 'secure' }, alice.user!.id, {
      shareWith: [bob.user!.id],
    });
    quiet = await createLink(s.store, { slug: 'quiet', url: 'https://quiet.example.com' }, alice.user!.id);

    // docs: 60 clicks over the last 60 hours plus older ones at the 7/30-day edges.
    await addClicks(
      s.store,
      docs.id,
      Array.from({ length: 60 }, (_, i) => ({
        at: NOW - i * HOUR,
        referrer: i % 2 === 0 ? `https://ref${i % 6}.example/page` : null,
        userId: i % 3 === 0 ? zed.user!.id : null,
      })),
    );
    await addClicks(s.store, docs.id, [
      { at: NOW - 7 * DAY - 1 },
      { at: NOW - 20 * DAY },
      { at: NOW - 30 * DAY - 1 },
      { at: NOW - 60 * DAY },
    ]);
    // vault: authenticated clicks by zed, with hostile referrers and user agents.
    await addClicks(s.store, vault.id, [
      {
        at: NOW - 2 * HOUR,
        userId: zed.user!.id,
        referrer: 'https://evil.example/"><img src=x onerror=alert(1)>',
        ua: '<script>alert("ua")</script> Firefox/1',
      },
      { at: NOW - 3 * HOUR, userId: zed.user!.id, referrer: '=HYPERLINK("http://x","y")', ua: UA.safariIphone },
      { at: NOW - 26 * HOUR, userId: zed.user!.id, referrer: 'javascript:alert(1)//<svg/onload=alert(2)>', ua: 'x'.repeat(600) },
    ]);
    await addClicks(s.store, memo.id, [{ at: NOW - HOUR, userId: zed.user!.id }]);
    await s.store.clickRollups.rollUp();
  });
  after(async () => s.stop());

  const statsOf = (l: Link, suffix = '') => `/dashboard/links/${l.id}/stats${suffix}`;

  test('anonymous visitors are sent to sign in and brought back, on the page, the chart and the export', async () => {
    for (const path of [
      statsOf(docs),
      statsOf(docs, '?days=90'),
      statsOf(docs, '/chart?days=90'),
      statsOf(docs, '/export?from=2030-01-01T00:00:00Z'),
    ]) {
      const r = await anonymous(s).page(path);
      assert.equal(r.status, 302, path);
      assert.equal(r.header('location'), `/auth/login?return_url=${encodeURIComponent(path)}`);
    }
    const hx = await anonymous(s).page(statsOf(docs, '/chart?days=30'), { htmx: true });
    assert.equal(hx.status, 204);
    assert.equal(hx.header('hx-redirect'), `/auth/login?return_url=${encodeURIComponent(statsOf(docs, '/chart?days=30'))}`);
  });

  test('unknown ids are 404; a signed-in stranger gets the same styled 403 for a public, private or secure link, naming nothing', async () => {
    for (const suffix of ['', '/chart', '/export']) {
      for (const id of [UNKNOWN, 'not-an-id']) {
        const r = await alice.page(`/dashboard/links/${id}/stats${suffix}`);
        assert.equal(r.status, 404, `${id}${suffix}`);
        has(r.body, /Page not found/);
      }
      const bodies = new Set<string>();
      for (const l of [docs, memo, vault]) {
        const r = await carol.page(statsOf(l, suffix));
        assert.equal(r.status, 403, `${l.slug}${suffix}`);
        has(r.body, /Access denied/);
        lacks(mainOf(r.body), new RegExp(`${l.slug}|Zed|alice@x.io`), 'a 403 says nothing about the link');
        assert.notEqual(r.header('content-type'), 'text/csv; charset=utf-8');
        bodies.add(mainOf(r.body));
      }
      assert.equal(bodies.size, 1, 'the 403 is identical whatever the link and its visibility');
      const hx = await carol.page(statsOf(vault, suffix), { htmx: true });
      assert.equal(hx.status, 403);
      lacks(hx.body, /vault|<html/);
    }
    // A share on one link grants nothing on another.
    assert.equal((await bob.page(statsOf(memo))).status, 403);
    assert.equal((await bob.page(statsOf(docs, '/chart?days=90'), { htmx: true })).status, 403);
  });

  test('owner: counters, the 50 latest clicks newest first, and the User column with names or "anonymous"', async () => {
    const r = await alice.page(statsOf(docs));
    assert.equal(r.status, 200);
    has(r.body, /<title>docs — Analytics — Joe Links<\/title>/);
    const main = mainOf(r.body);
    has(main, new RegExp(`href="/dashboard/links/${docs.id}"[^>]*>.*Back to link`));
    has(main, /<h1[^>]*>docs — Analytics<\/h1>/);
    has(main, new RegExp(`href="/dashboard/links/${docs.id}/stats/export"[^>]*>.*Export CSV`));
    const text = textOf(main);
    // 64 in all; since now − 7 d: the 60 recent (the one at now − 7 d − 1 ms is just outside);
    // since now − 30 d: 60 + the 20-day one + the 7-day edge one (the one at now − 30 d − 1 ms is outside).
    has(
      text,
      /All Time 64 total clicks Last 7 Days 60 clicks since this time 7 days ago Last 30 Days 62 clicks since this time 30 days ago/,
    );
    lacks(text, /retention/);

    const table = /<table class="table table-sm max-sm:stacked-table" id="recent-clicks">([\s\S]*?)<\/table>/.exec(main)![1]!;
    has(table, /<th scope="col">Time<\/th><th scope="col">Referrer<\/th><th scope="col">User<\/th>/);
    const rows = table.split('<tr>').slice(2);
    assert.equal(rows.length, 50, 'exactly 50 rows');
    const stamps = times(table).map((t) => Date.parse(t.datetime));
    assert.equal(stamps.length, 50);
    for (let i = 1; i < stamps.length; i++) assert.ok(stamps[i - 1]! >= stamps[i]!, 'newest first');
    assert.equal(stamps[0], NOW);
    has(rows[0]!, /Zed Clicksworth/, 'the newest click (i = 0) is zed’s');
    has(rows[1]!, /anonymous/);
    has(rows[1]!, /Direct \/ unknown/, 'an absent referrer shows a placeholder');
    has(rows[0]!, /https:\/\/ref0\.example\/page/);
  });

  test('share recipient: 200 with counters, chart and breakdowns, and no clicker identity anywhere', async () => {
    for (const path of [statsOf(vault), statsOf(vault, '?days=90'), statsOf(vault, '/chart?days=90')]) {
      const r = await bob.page(path, path.includes('/chart') ? { htmx: true } : {});
      assert.equal(r.status, 200, path);
      lacks(r.body, /Zed|zed@x\.io/, `no clicker name on ${path}`);
      lacks(r.body, new RegExp(zed.user!.id), `no clicker id on ${path}`);
      lacks(r.body, />User</, 'no User column');
    }
    const main = mainOf((await bob.page(statsOf(vault))).body);
    has(
      textOf(main),
      /All Time 3 total clicks Last 7 Days 3 clicks since this time 7 days ago Last 30 Days 3 clicks since this time 30 days ago/,
    );
    has(main, /<svg viewBox="0 0 720 240"[^>]*role="img" aria-label="Daily clicks over the last 30 days/);
    has(main, /data-breakdown="breakdown-referrers"/);
    has(textOf(main), /Authenticated 3 100% Anonymous 0 0%/);
    // The owner of the same link sees who clicked.
    has((await alice.page(statsOf(vault))).body, /Zed Clicksworth/);
    // Admins manage every link, so they see attribution too.
    has((await admin.page(statsOf(vault))).body, /Zed Clicksworth/);
  });

  test('hostile referrers and user agents are escaped in the table and the breakdowns', async () => {
    for (const c of [alice, bob]) {
      const main = mainOf((await c.page(statsOf(vault))).body);
      lacks(main, /<img|<script|<svg\/onload/);
      has(main, /&lt;img src=x onerror=alert\(1\)>/);
      has(main, /=HYPERLINK\(&quot;http:\/\/x&quot;,&quot;y&quot;\)|=HYPERLINK\("http:\/\/x","y"\)/);
      lacks(main, /href="javascript:/i);
    }
  });

  test('a never-clicked link: three zeros, the empty state, and 30 zero days in the chart', async () => {
    const main = mainOf((await alice.page(statsOf(quiet))).body);
    has(
      textOf(main),
      /All Time 0 total clicks Last 7 Days 0 clicks since this time 7 days ago Last 30 Days 0 clicks since this time 30 days ago/,
    );
    has(main, /No clicks recorded yet\./);
    lacks(main, /id="recent-clicks"/);
    const days = dayGroups(main);
    assert.equal(days.length, 30);
    assert.ok(days.every((d) => d.kind === 'zero'));
    has(main, /No clicks in this window\./);
  });

  test('chart: whole UTC days, 30 or 90 gap-filled, per-day <title> tooltips, axis labels; other days values mean 30', async () => {
    const thirty = mainOf((await alice.page(statsOf(docs))).body);
    const d30 = dayGroups(thirty);
    assert.equal(d30.length, 30);
    assert.equal(d30[29]!.day, '2030-06-17', 'today is the newest bucket');
    assert.equal(d30[0]!.day, '2030-05-19');
    // 60 hourly clicks back from 14:00 on Jun 17: 15 that day, 24 on the 16th, 21 on the 15th; then 1 on Jun 10 (7 d − 1 ms) and 1 on May 28.
    has(thirty, /<g data-day="2030-06-17" data-kind="bar" data-count="15"><title>Jun 17, 2030: 15 clicks<\/title>/);
    has(thirty, /<g data-day="2030-06-16" data-kind="bar" data-count="24">/);
    has(thirty, /<g data-day="2030-06-15" data-kind="bar" data-count="21">/);
    has(thirty, /<g data-day="2030-06-10" data-kind="bar" data-count="1"><title>Jun 10, 2030: 1 click<\/title>/);
    has(thirty, /<g data-day="2030-06-14" data-kind="zero" data-count="0"><title>Jun 14, 2030: 0 clicks<\/title>/);
    assert.equal(d30.filter((d) => d.kind === 'bar').length, 5);
    has(thirty, /<text[^>]*>Jun 17<\/text>/, 'x-axis labels');
    has(thirty, /<text x="38"[^>]*text-anchor="end"[^>]*>30<\/text>/, 'y-axis labels up to a round 30');
    has(thirty, /fill="currentColor"/, 'themed through currentColor');
    lacks(thirty, /style=/, 'no inline styles (CSP)');
    has(thirty, /aria-pressed="true"[^>]*>30 days</);

    for (const q of ['?days=7', '?days=abc', '?days=030', '?days=', '?days=90&days=30', '']) {
      const r = await alice.page(statsOf(docs, q));
      assert.equal(r.status, 200, q);
      if (q === '?days=90&days=30') continue;
      assert.equal(dayGroups(r.body).length, 30, `${q} → 30`);
    }
    const ninety = mainOf((await alice.page(statsOf(docs, '?days=90'))).body);
    const d90 = dayGroups(ninety);
    assert.equal(d90.length, 90);
    assert.equal(d90[0]!.day, '2030-03-20');
    has(ninety, /<g data-day="2030-04-18" data-kind="bar" data-count="1">/, 'the 60-day-old click is inside 90 days');
    has(ninety, /aria-pressed="true"[^>]*>90 days</);
  });

  test('the 30/90 toggle: plain links to the page, HTMX fetches the window fragment and pushes the page URL', async () => {
    const main = mainOf((await alice.page(statsOf(docs))).body);
    const chart = statsOf(docs, '/chart?days=90');
    has(
      main,
      new RegExp(
        `<a href="${statsOf(docs, '\\?days=90')}" hx-get="${chart.replace('?', '\\?')}" hx-target="#stats-window" hx-swap="outerHTML" hx-push-url="${statsOf(docs, '\\?days=90')}"`,
      ),
    );

    const frag = await alice.page(chart, { htmx: true });
    assert.equal(frag.status, 200);
    lacks(frag.body, /<html|<main|Recent Clicks/);
    has(frag.body, /^<section id="stats-window"[^>]*data-days="90"/);
    assert.equal(dayGroups(frag.body).length, 90);
    has(frag.body, /data-breakdown="breakdown-browsers"/);
    assert.equal(frag.header('vary'), 'HX-Request');
    const odd = await alice.page(statsOf(docs, '/chart?days=7'), { htmx: true });
    assert.equal(dayGroups(odd.body).length, 30);

    // Without HTMX the chart URL is a whole page, so a bookmarked or shared URL still works.
    const full = await alice.page(chart);
    has(full.body, /<html/);
    has(full.body, /Recent Clicks/);
    assert.equal(dayGroups(full.body).length, 90);

    const page = await alice.page(statsOf(docs), { htmx: true });
    lacks(page.body, /<html/);
    has(page.body, /Recent Clicks/);
  });

  test('breakdowns: referrer hosts with "Direct / unknown", browsers, OS and the authenticated split, over the window', async () => {
    const main = mainOf((await alice.page(statsOf(docs))).body);
    const section = (id: string) => textOf(new RegExp(`data-breakdown="${id}">([\\s\\S]*?)</section>`).exec(main)![1]!);
    // 62 clicks in 30 days: 30 with referrers ref0/2/4 (10 each), 32 without.
    assert.equal(
      section('breakdown-referrers'),
      'Referrers Host Clicks Share Direct / unknown 32 52% ref0.example 10 16% ref2.example 10 16% ref4.example 10 16%',
    );
    has(section('breakdown-browsers'), /Firefox 62 100%/);
    has(section('breakdown-os'), /Windows 62 100%/);
    has(section('breakdown-auth'), /Authenticated 20 32% Anonymous 42 68%/);
  });

  test('every timestamp is a <time> with an RFC 3339 UTC datetime and title and UTC text, here and on existing pages', async () => {
    const stats = times(mainOf((await alice.page(statsOf(docs))).body));
    assert.ok(stats.length >= 50);
    for (const t of stats) {
      assert.match(t.datetime, RFC3339);
      assert.equal(t.title, t.datetime);
      assert.match(t.text, /^[A-Z][a-z]{2} \d{1,2}, \d{4} \d{1,2}:\d{2} [AP]M UTC$/);
      const d = new Date(t.datetime);
      assert.ok(t.text.startsWith(['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][d.getUTCMonth()]!));
    }
    const detail = mainOf((await alice.page(`/dashboard/links/${docs.id}`)).body);
    assert.equal(times(detail).length, 2, 'created and updated');
    has(detail, new RegExp(`href="/dashboard/links/${docs.id}/stats"`), 'the detail page links to the stats page');
    const recipientDetail = mainOf((await bob.page(`/dashboard/links/${vault.id}`)).body);
    has(recipientDetail, new RegExp(`href="/dashboard/links/${vault.id}/stats"`));
    const list = mainOf((await alice.page('/dashboard')).body);
    const listTimes = times(list);
    const never = (list.match(/<span class="text-base-content\/70">never<\/span>/g) ?? []).length;
    assert.equal(listTimes.length + never, 4, 'each row says when it was last clicked, or never');
    assert.ok(listTimes.length > 0);
    for (const t of listTimes) assert.match(t.text, /^[A-Z][a-z]{2} \d{1,2}, \d{4}$/);
  });

  test('the localtime script: served from our origin by every page, no inline script, textContent/setAttribute only, no requests', async () => {
    const r = await alice.page(statsOf(docs));
    const src = /<script src="(\/static\/build\/localtime\.[0-9a-f]{10}\.js)" defer><\/script>/.exec(r.body);
    assert.ok(src, 'a hashed localtime.js in the layout');
    lacks(r.body, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
    has(r.header('content-security-policy') ?? '', /script-src 'self'/);
    const js = await anonymous(s).page(src[1]!);
    assert.equal(js.status, 200);
    has(js.header('content-type') ?? '', /javascript/);
    const source = readFileSync(join(STATIC_DIR, 'js', 'localtime.js'), 'utf8');
    assert.equal(js.body, source);
    const code = source.replace(/\/\/.*$/gm, '');
    lacks(code, /innerHTML|outerHTML|insertAdjacentHTML|document\.write|fetch\(|XMLHttpRequest|sendBeacon|eval\(|new Function/);
    has(code, /Intl\.DateTimeFormat/);
    has(code, /\.textContent = /);
    has(code, /setAttribute\('title'/);
    has(code, /htmx:afterSwap/);
    has(code, /htmx:afterSettle/);
  });

  test('CSV export (web): streamed attachment for managers; blank user and user_agent for a share recipient; bad input is a 400', async () => {
    const owner = await alice.page(statsOf(vault, '/export'));
    assert.equal(owner.status, 200);
    assert.equal(owner.header('content-type'), 'text/csv; charset=utf-8');
    assert.equal(owner.header('content-disposition'), 'attachment; filename="vault-clicks.csv"');
    assert.equal(owner.header('x-next-cursor'), null);
    const lines = owner.body.split('\r\n');
    assert.equal(lines[0], 'clicked_at,referrer,user_agent,browser,os,authenticated,user');
    assert.equal(lines.length, 5, 'header, three rows, trailing CRLF');
    assert.match(lines[1]!, /^2030-06-16T12:00:00\.000Z,/, 'oldest first');
    has(lines[2]!, /^2030-06-17T11:00:00\.000Z,"'=HYPERLINK\(""http:\/\/x"",""y""\)",.*,Safari,iOS,true,Zed Clicksworth$/);

    const recipient = await bob.page(statsOf(vault, '/export'));
    assert.equal(recipient.status, 200);
    const rows = recipient.body
      .split('\r\n')
      .slice(1, -1)
      .map((l) => l.split(','));
    assert.equal(rows.length, 3);
    lacks(recipient.body, /Zed|<script>/);
    for (const row of rows) {
      assert.equal(row.at(-1), '', 'user blank');
      assert.equal(row.at(-2), 'true');
    }
    has(recipient.body, /,,Safari,iOS,true,\r\n/, 'user_agent blank, browser and os kept');

    for (const q of [
      '?from=yesterday',
      '?to=2030-02-30T00:00:00Z',
      '?cursor=%%%',
      '?from=2030-01-01T00:00:00Z&from=2030-01-02T00:00:00Z',
    ]) {
      const bad = await alice.page(statsOf(vault, `/export${q}`));
      assert.equal(bad.status, 400, q);
      has(bad.header('content-type') ?? '', /^text\/html/);
      has(mainOf(bad.body), /invalid (from|to|cursor)/);
    }
    const windowed = await alice.page(statsOf(vault, '/export?from=2030-06-17T00:00:00Z&to=2030-06-17T11:00:00Z'));
    assert.equal(windowed.body.split('\r\n').length, 3, 'header and the one click inside the inclusive window');
  });

  test('the "Last 7 / 30 Days" cards count since now − 7 d / now − 30 d, the figures the REST API gives for the same link', async () => {
    const edge = await createLink(s.store, { slug: 'edge', url: 'https://edge.example' }, alice.user!.id);
    // Inside now − 7 d / now − 30 d but on the UTC day before the chart's 7th / 30th day, and just outside each.
    await addClicks(s.store, edge.id, [
      { at: NOW - 6 * DAY - 15 * HOUR },
      { at: NOW - 7 * DAY - HOUR },
      { at: NOW - 29 * DAY - 15 * HOUR },
      { at: NOW - 30 * DAY - HOUR },
    ]);
    const text = textOf(mainOf((await alice.page(statsOf(edge))).body));
    has(text, /Last 7 Days 1 clicks since this time 7 days ago Last 30 Days 3 clicks since this time 30 days ago/);
    has(text, /2 clicks in this window\. Days are UTC calendar days\./, 'the chart still draws whole UTC days');
    const ninety = textOf(mainOf((await alice.page(statsOf(edge, '?days=90'))).body));
    has(ninety, /Last 30 Days 3 clicks/, 'the card keeps its window whichever chart is shown');
    has(ninety, /4 clicks in this window/);

    const { plaintext } = await s.store.tokens.create(alice.user!.id, 'stats-token');
    const api = await get(`${s.url}/api/v1/links/${edge.id}/stats`, { authorization: `Bearer ${plaintext}` });
    assert.equal(api.status, 200);
    const body = JSON.parse(await api.text()) as { last_7d: number; last_30d: number };
    assert.deepEqual([body.last_7d, body.last_30d], [1, 3], 'the page and the API report the same counts');
  });

  test('retention on: the total is labelled "since {date}" for the retention window, never "All Time"', async () => {
    const r = await startWebServer({ env: { JOE_CLICK_RETENTION: '365' }, now: () => NOW });
    try {
      const owner = await signedIn(r, 'olive@x.io', { name: 'Olive' });
      const link = await createLink(r.store, { slug: 'kept', url: 'https://kept.example' }, owner.user!.id);
      const main = mainOf((await owner.page(`/dashboard/links/${link.id}/stats`)).body);
      const horizon = new Date(NOW - 365 * DAY).toISOString().replace(/\.000Z$/, 'Z');
      has(main, new RegExp(`Since <time datetime="${horizon}" title="${horizon}" data-local="date">Jun 17, 2029</time>`));
      has(textOf(main), /Since Jun 17, 2029 0 clicks within the 365-day retention window/);
      lacks(textOf(main), /All Time/);
    } finally {
      await r.stop();
    }
  });
});

describe('click chart partial (docs/analytics.md#daily-series)', () => {
  const series = (days: number, retentionDays: number | null, clicks: number[]) => {
    const counter = new DailyCounter(dayWindow(NOW, days));
    for (const at of clicks) counter.add(at);
    return counter.series(retentionHorizon(NOW, retentionDays));
  };

  test('days before the retention horizon are drawn as no-data, unlike zero days, with a legend', () => {
    // A 60-day horizon is below the configurable floor today; the chart still has to draw it honestly.
    const html = renderFragment(ClickChart({ series: series(90, 60, [NOW - HOUR, NOW - 10 * DAY]) }));
    const days = dayGroups(html);
    assert.equal(days.length, 90);
    const noData = days.filter((d) => d.kind === 'nodata');
    assert.equal(noData.length, 30, 'the oldest 30 positions');
    assert.ok(days.slice(0, 30).every((d) => d.kind === 'nodata'));
    assert.ok(days.slice(30).every((d) => d.kind !== 'nodata'));
    has(
      html,
      /<g data-day="[^"]+" data-kind="nodata"><title>[A-Z][a-z]{2} \d+, \d{4}: no data \(before the retention horizon\)<\/title>[^]*?fill="url\(#chart-nodata-wide\)"/,
    );
    has(html, /<g data-day="[^"]+" data-kind="zero" data-count="0"><title>[^<]*: 0 clicks<\/title>/);
    has(html, /<pattern id="chart-nodata-wide"/);
    has(html, /data-legend="nodata"/);
    has(textOf(html), /No data \(before the retention horizon; older clicks were pruned\)/);
    has(html, /aria-label="[^"]*The first 30 days fall before the retention horizon and have no data\."/);
    has(textOf(html), /no data/);
  });

  test('without retention there is no no-data legend; the summary names the total and the busiest day', () => {
    const html = renderFragment(ClickChart({ series: series(30, null, [NOW - HOUR, NOW - 2 * HOUR, NOW - 3 * DAY]) }));
    lacks(html, /data-kind="nodata"|data-legend="nodata"/);
    has(
      html,
      /role="img" aria-label="Daily clicks over the last 30 days, May 19, 2030 to Jun 17, 2030 \(UTC days\): 3 clicks in total, busiest day Jun 17, 2030 with 2 clicks\."/,
    );
  });

  test('axis helpers: nice integer steps and labels anchored on today', () => {
    assert.equal(niceStep(0), 1);
    assert.equal(niceStep(4), 1);
    assert.equal(niceStep(7), 2);
    assert.equal(niceStep(23), 10);
    assert.equal(niceStep(120), 50);
    assert.deepEqual(labelledDays(30), [1, 8, 15, 22, 29]);
    assert.ok(labelledDays(90).includes(89));
  });
});
