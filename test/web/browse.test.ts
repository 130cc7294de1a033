import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestServer } from '../helpers/server.js';
import { anonymous, has, lacks, mainOf, signedIn, startWebServer, type Client } from './support.js';
import { addOwner, createLink, setLifecycle } from '../helpers/links.js';

const T0 = Date.parse('2030-06-01T12:00:00Z');

function slugsOf(html: string): string[] {
  return [...html.matchAll(/<span class="link-brand font-semibold">([^<]+)<\/span>/g)].map((m) => m[1]!);
}

describe('public browser, profiles and the tag browser (docs/web-ui.md#public-browser-and-profiles, docs/web-ui.md#tag-browser)', () => {
  let s: TestServer;
  let now = T0;
  let alice: Client;
  let bob: Client;
  let admin: Client;
  before(async () => {
    s = await startWebServer({ env: { JOE_SHORT_KEYWORD: 'go' }, now: () => now });
    alice = await signedIn(s, 'alice@x.io', { name: 'Alice Smith' });
    bob = await signedIn(s, 'bob@x.io', { name: "Joe O'Brien III" });
    admin = await signedIn(s, 'root@x.io', { name: 'Root', admin: true });
    // 30 public links, one minute apart: pub-00 is the oldest.
    for (let i = 0; i < 30; i++) {
      now = T0 + i * 60_000;
      await createLink(
        s.store,
        {
          slug: `pub-${String(i).padStart(2, '0')}`,
          url: `https://e.test/${i}`,
          title: i === 7 ? 'Quarterly Budget' : '',
          description: i === 3 ? 'd'.repeat(200) : '',
          tags: i < 2 ? ['Team Tools'] : [],
        },
        alice.user!.id,
      );
    }
    now = T0 + 31 * 60_000;
    await createLink(s.store, { slug: 'priv', url: 'https://e.test/p', visibility: 'private', tags: ['Hidden Tag'] }, alice.user!.id);
    await createLink(s.store, { slug: 'sec', url: 'https://e.test/s', visibility: 'secure' }, alice.user!.id);
    const arch = await createLink(s.store, { slug: 'arch', url: 'https://e.test/a' }, alice.user!.id);
    await setLifecycle(s.store, arch.id, { archived: true });
    await createLink(s.store, { slug: 'exp', url: 'https://e.test/e', expiresAt: now + 1000 }, alice.user!.id);
    const bobs = await createLink(s.store, { slug: 'bobs-link', url: 'https://e.test/b', tags: ['Team Tools'] }, bob.user!.id);
    await addOwner(s.store, bobs.id, alice.user!.id);
    now = T0 + 40 * 60_000;
  });
  after(async () => s.stop());

  test('30 public links: page 1 holds the 25 newest and a Next link; page 2 the other 5 and so on', async () => {
    const p1 = await anonymous(s).page('/links');
    assert.equal(p1.status, 200);
    const main = mainOf(p1.body);
    has(main, /<h1[^>]*>Browse Links<\/h1>/);
    has(main, />31 links</);
    has(main, />1–25 of 31 links</);
    const slugs = slugsOf(main);
    assert.equal(slugs.length, 25);
    assert.deepEqual(slugs.slice(0, 2), ['bobs-link', 'pub-29'], 'newest first');
    has(main, /href="\/links\?page=2"[^>]*>Next</);
    has(main, /btn-disabled" aria-disabled="true">Previous</, 'no page before the first');
    const p2 = mainOf((await anonymous(s).page('/links?page=2')).body);
    assert.deepEqual(slugsOf(p2), ['pub-05', 'pub-04', 'pub-03', 'pub-02', 'pub-01', 'pub-00'].slice(0, 6));
    has(p2, /href="\/links"[^>]*>Previous</);
    has(p2, />26–31 of 31 links</);
    for (const bad of ['0', '-1', 'abc', '1.5'])
      assert.deepEqual(slugsOf(mainOf((await anonymous(s).page(`/links?page=${bad}`)).body)), slugs, bad);
  });

  test('private, secure, archived and expired links never appear, for anyone', async () => {
    for (const c of [anonymous(s), alice, admin]) {
      let all: string[] = [];
      for (const page of [1, 2]) all = all.concat(slugsOf(mainOf((await c.page(`/links?page=${page}`)).body)));
      for (const hidden of ['priv', 'sec', 'arch', 'exp']) assert.ok(!all.includes(hidden), hidden);
    }
  });

  test('search over slug, URL, title and description; HTMX swaps only the list; no match says so', async () => {
    const r = await anonymous(s).page('/links?q=QUARTERLY', { htmx: true });
    has(r.body, /^<div id="public-link-list"/);
    assert.deepEqual(slugsOf(r.body), ['pub-07']);
    has(r.body, />1 link</);
    has(r.body, />1–1 of 1 link</);
    const none = await anonymous(s).page('/links?q=nothing-like-this', { htmx: true });
    has(none.body, /No links found/);
    has(none.body, /No public links match your search. Try different keywords./);
    assert.deepEqual(slugsOf((await anonymous(s).page('/links?q=bobs')).body), ['bobs-link']);
  });

  test('public rows: primary owner linked to the profile with a "you" badge for owners; actions and click figures by the viewer\'s own capabilities', async () => {
    const main = mainOf((await alice.page('/links?q=bobs')).body);
    has(main, /<a class="[^"]*link link-hover" href="\/u\/joe-obrien-iii">Joe O(?:&#39;|')Brien III<\/a>/);
    has(main, /<span class="badge badge-xs badge-accent shrink-0">you<\/span>/);
    has(main, /aria-label="Details"/, 'a co-owner has the actions of a co-owner');
    has(main, /Last clicked <\/span><span class="text-base-content\/70">never</);
    const anon = mainOf((await anonymous(s).page('/links?q=bobs')).body);
    lacks(anon, />you</, 'anonymous visitors own nothing');
    lacks(anon, /aria-label="Details"|aria-label="Edit"|Open the page of/, 'and have no actions');
    has(anon, /Clicks not shown/, 'nor see click figures (docs/analytics.md#who-sees-what)');
  });

  test('profiles: heading, avatar initial, public links of which the user is primary owner, paginated', async () => {
    const r = await anonymous(s).page('/u/alice-smith');
    assert.equal(r.status, 200);
    const main = mainOf(r.body);
    has(main, /<h1[^>]*>Alice Smith<\/h1>/);
    has(main, /aria-hidden="true">A<\/span>/);
    has(main, />30 public links</);
    const slugs = slugsOf(main);
    assert.equal(slugs.length, 25);
    assert.ok(!slugs.includes('bobs-link'), 'co-owned is not primary');
    for (const hidden of ['priv', 'sec', 'arch', 'exp']) assert.ok(!slugs.includes(hidden));
    has(main, />1–25 of 30 links</);
    has(main, /btn-disabled" aria-disabled="true">Previous</, 'disabled at the ends');
    assert.equal(slugsOf(mainOf((await anonymous(s).page('/u/alice-smith?page=2')).body)).length, 5);
    const none = await anonymous(s).page('/u/root');
    has(mainOf(none.body), /No public links yet\./);
    lacks(mainOf(none.body), / of 0|Previous/);
  });

  test('an unknown profile is a 404 naming u/<slug> with no create offer', async () => {
    const r = await anonymous(s).page('/u/nobody');
    assert.equal(r.status, 404);
    has(mainOf(r.body), /u\/nobody/);
    lacks(mainOf(r.body), /create this link|\/dashboard\/links\/new/i);
  });

  test('tag browser: only tags with links the viewer may see, counting only those; admins see all', async () => {
    const mine = mainOf((await bob.page('/dashboard/tags')).body);
    has(mine, /href="\/dashboard\/tags\/team-tools"[\s\S]*?Team Tools[\s\S]*?3 links/);
    lacks(mine, /Hidden Tag/, "a tag only on another user's private link is absent");
    assert.equal((await bob.page('/dashboard/tags/hidden-tag')).status, 404);
    assert.equal((await bob.page('/dashboard/tags/no-such-tag')).status, 404);
    const adminView = mainOf((await admin.page('/dashboard/tags')).body);
    has(adminView, /Hidden Tag[\s\S]*?1 link</);
    assert.equal((await admin.page('/dashboard/tags/hidden-tag')).status, 200);
    const detail = await alice.page('/dashboard/tags/team-tools');
    const main = mainOf(detail.body);
    has(main, /<h1[^>]*>Team Tools<\/h1>/);
    has(main, /href="\/dashboard\/tags"[^>]*>[\s\S]*?Tags<\/a>/);
    assert.deepEqual(slugsOf(main), ['bobs-link', 'pub-00', 'pub-01']);
    has(main, /<th scope="col"[^>]*>Owner<\/th>/, 'a tag page names the owners');
  });

  test('an empty tag browser says how to get tags', async () => {
    const fresh = await signedIn(s, 'fresh@x.io');
    await s.store.db.kysely
      .deleteFrom('link_tags')
      .execute()
      .catch(() => undefined);
    const main = mainOf((await fresh.page('/dashboard/tags')).body);
    has(main, /No tags yet. Add tags when creating or editing a link./);
    has(main, /Create a link/);
  });
});
