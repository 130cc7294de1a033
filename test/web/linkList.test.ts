import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { TestServer } from '../helpers/server.js';
import { anonymous, has, lacks, mainOf, signedIn, startWebServer, type Client } from './support.js';
import { createLink } from '../helpers/links.js';

const DAY = 86_400_000;
const T0 = Date.parse('2030-06-10T12:00:00Z');

/** Slugs of the rows of a link list, in order. */
function slugsOf(html: string): string[] {
  return [...html.matchAll(/<tr id="link-[^"]+"[\s\S]*?<span class="link-brand font-semibold">([^<]+)<\/span>/g)].map((m) => m[1]!);
}

function rowOf(html: string, slug: string): string {
  const row = html
    .split('<tr id="link-')
    .slice(1)
    .find((r) => r.includes(`<span class="link-brand font-semibold">${slug}</span>`));
  assert.ok(row, `row ${slug}`);
  return row.slice(0, row.indexOf('</tr>'));
}

describe('the one link list (docs/web-ui.md#link-tables)', () => {
  let s: TestServer;
  const now = T0;
  let alice: Client;
  let bob: Client;
  let admin: Client;

  before(async () => {
    s = await startWebServer({ env: { JOE_SHORT_KEYWORD: 'go' }, now: () => now });
    alice = await signedIn(s, 'alice@x.io', { name: 'Alice Smith' });
    bob = await signedIn(s, 'bob@x.io', { name: 'Bob' });
    admin = await signedIn(s, 'root@x.io', { name: 'Root', admin: true });
    const pto = await createLink(
      s.store,
      { slug: 'pto', url: 'https://hr.example.com/leave', title: 'Time off requests', tags: ['HR'] },
      alice.user!.id,
    );
    const old = await createLink(
      s.store,
      { slug: 'old-news', url: 'https://news.example.com', title: 'Old news', tags: ['HR'] },
      alice.user!.id,
    );
    await createLink(s.store, { slug: 'fresh', url: 'https://fresh.example.com' }, alice.user!.id);
    const click = (linkId: string, at: number) => ({
      id: randomUUID(),
      link_id: linkId,
      user_id: null,
      ip_hash: 'h',
      user_agent: null,
      referrer: null,
      clicked_at: at,
    });
    await s.store.clicks.insertBatch([
      click(pto.id, T0 - 2 * 3_600_000),
      click(pto.id, T0 - DAY),
      click(pto.id, T0 - DAY - 60_000),
      click(old.id, T0 - 45 * DAY),
    ]);
    // 56 links for the pager.
    for (let i = 0; i < 56; i++)
      await createLink(s.store, { slug: `bulk-${String(i).padStart(2, '0')}`, url: 'https://bulk.example.com' }, bob.user!.id);
  });
  after(async () => s.stop());

  test('a row: the title under the slug, the 30-day clicks with their sparkline, the last click in local time or "never"', async () => {
    const main = mainOf((await alice.page('/dashboard')).body);
    const pto = rowOf(main, 'pto');
    has(
      pto,
      /<span class="link-brand font-semibold">pto<\/span><\/a>[\s\S]*?<p class="truncate text-sm" title="Time off requests">Time off requests<\/p>/,
    );
    has(pto, /<span class="tabular-nums">3<span class="lg:sr-only"> clicks<\/span><\/span><svg[^>]*data-sparkline/);
    has(pto, /<polyline points="[\d.,\s]+"/);
    lacks(pto, /style=/, 'no inline style: the CSP refuses it');
    has(pto, new RegExp(`<time datetime="${new Date(T0 - 2 * 3_600_000).toISOString().replace('.000', '')}"[^>]*data-local="date"`));
    const old = rowOf(main, 'old-news');
    has(old, /<span class="tabular-nums">0<span class="lg:sr-only"> clicks<\/span>/, 'a click 45 days ago is outside the window');
    has(old, new RegExp(`<time datetime="${new Date(T0 - 45 * DAY).toISOString().replace('.000', '')}"`), 'but it is the last click');
    has(rowOf(main, 'fresh'), /Last clicked <\/span><span class="text-base-content\/70">never<\/span>/);
    has(main, /<th scope="col"[^>]*>\s*Clicks \(30 days\)\s*<\/th>/);
    has(main, /<th scope="col"[^>]*>\s*Last clicked\s*<\/th>/);
    lacks(main, /<th scope="col"[^>]*>\s*Owner\s*<\/th>/, 'not on the own dashboard');
    // A tap on the card opens the link's page (static/js/app.js), with no link laid over the card's own links.
    has(rowOf(main, 'pto'), /data-card-href="\/dashboard\/links\/[^"]+"/);
    lacks(rowOf(main, 'pto'), /class="absolute inset-0/);
  });

  test('the owner column on browse, tag pages, profiles and /admin/links; every list has the same columns otherwise', async () => {
    const columns = (html: string) => [...html.matchAll(/<th scope="col"[^>]*>\s*([^<]*?)\s*</g)].map((m) => m[1]);
    const dashboard = columns(mainOf((await alice.page('/dashboard')).body));
    assert.deepEqual(dashboard, ['Link', 'Status', 'Clicks (30 days)', 'Last clicked', '']);
    for (const [who, path] of [
      [alice, '/links?q=pto'],
      [alice, '/dashboard/tags/hr'],
      [alice, '/u/alice-smith'],
      [admin, '/admin/links'],
    ] as const) {
      const main = mainOf((await who.page(path)).body);
      assert.deepEqual(columns(main), ['Link', 'Status', 'Owner', 'Clicks (30 days)', 'Last clicked', ''], path);
      if (path !== '/admin/links') has(rowOf(main, 'pto'), /Owner:<\/span><a class="[^"]*" href="\/u\/alice-smith">Alice Smith<\/a>/, path);
    }
    // Someone else's public link: no actions, no click figures (docs/analytics.md#who-sees-what).
    const asBob = rowOf(mainOf((await bob.page('/links?q=pto')).body), 'pto');
    has(asBob, /Clicks not shown/);
    lacks(asBob, /aria-label="Details"|Open the page of|data-card-href/);
  });

  test('search matches the title on the dashboard and on /links alike: "time off" finds pto', async () => {
    assert.deepEqual(slugsOf((await alice.page('/dashboard?q=time%20off', { htmx: true })).body), ['pto']);
    assert.deepEqual(slugsOf((await anonymous(s).page('/links?q=time%20off', { htmx: true })).body), ['pto']);
    assert.deepEqual(slugsOf((await admin.page('/admin/links?q=time%20off', { htmx: true })).body), ['pto']);
    has((await alice.page('/dashboard?q=time%20off', { htmx: true })).body, />1 link</);
  });

  test('one pager everywhere: Previous / "51–56 of 56 links" / Next, and real plurals', async () => {
    const p1 = mainOf((await bob.page('/dashboard')).body);
    has(p1, />56 links</);
    has(p1, />1–50 of 56 links</);
    has(p1, /href="\/dashboard\?page=2"[^>]*>Next</);
    has(p1, /btn-disabled" aria-disabled="true">Previous</);
    lacks(p1, /\(s\)/);
    const p2 = await bob.page('/dashboard?page=2', { htmx: true });
    has(p2.body, /^<div id="link-list"/);
    has(p2.body, />51–56 of 56 links</);
    has(p2.body, /href="\/dashboard" rel="prev" hx-get="\/dashboard" hx-target="#link-list"[^>]*>Previous</);
    has(p2.body, /btn-disabled" aria-disabled="true">Next</);
    assert.deepEqual(slugsOf(p2.body), ['bulk-50', 'bulk-51', 'bulk-52', 'bulk-53', 'bulk-54', 'bulk-55']);
    const admin2 = mainOf((await admin.page('/admin/links?page=2')).body);
    has(admin2, />59 links</);
    has(admin2, />51–59 of 59 links</);
    has(admin2, /href="\/admin\/links" rel="prev"[^>]*>Previous</);
    const browse = mainOf((await anonymous(s).page('/links?page=3')).body);
    has(browse, />51–59 of 59 links</);
    has(browse, /href="\/links\?page=2" rel="prev"[^>]*>Previous</);
    has(mainOf((await alice.page('/dashboard/tags/hr')).body), />2 links</);
    has(mainOf((await anonymous(s).page('/u/alice-smith')).body), />3 public links</);
  });

  test('tag chips fold into "Tags (n)" on a phone and stay open while a tag is chosen', async () => {
    const main = mainOf((await alice.page('/dashboard')).body);
    has(main, /<details class="sm:hidden"><summary[^>]*>Tags \(1\)<\/summary>/);
    has(mainOf((await alice.page('/dashboard?tag=hr')).body), /<details class="sm:hidden" open(?:="")?><summary/);
  });
});
