import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { TestServer } from '../helpers/server.js';
import { anonymous, has, lacks, mainOf, signedIn, startWebServer, type Client } from './support.js';
import { asUser } from '../../src/links/index.js';
import { addOwner, addShare, createLink, linkService, setLifecycle } from '../helpers/links.js';

const DAY = 86_400_000;
const T0 = Date.parse('2030-06-01T12:00:00Z');

/** Slugs of the rows in a link list, in order. */
function slugsOf(html: string): string[] {
  return [...html.matchAll(/<tr id="link-[^"]+"[\s\S]*?<span class="link-brand font-semibold">([^<]+)<\/span>/g)].map((m) => m[1]!);
}

function rowOf(html: string, slug: string): string {
  const rows = html.split('<tr id="link-').slice(1);
  const row = rows.find((r) => r.includes(`<span class="link-brand font-semibold">${slug}</span>`));
  assert.ok(row, `row ${slug}`);
  return row.slice(0, row.indexOf('</tr>'));
}

describe('dashboard (docs/web-ui.md#landing-and-dashboard, docs/web-ui.md#link-tables, docs/lifecycle.md#badges-and-the-admin-report, docs/lifecycle.md#staleness)', () => {
  let s: TestServer;
  let now = T0;
  let alice: Client;
  let bob: Client;
  let newcomer: Client;
  let admin: Client;

  /** A link made `ageDays` ago, with clicks at the given ages. */
  async function aged(
    owner: Client,
    slug: string,
    ageDays: number,
    clickAgesDays: number[] = [],
    extra: { visibility?: string; tags?: string[]; description?: string; title?: string } = {},
  ) {
    const t = now;
    now = T0 - ageDays * DAY;
    try {
      const l = await createLink(s.store, { slug, url: `https://example.com/${slug}`, ...extra }, owner.user!.id);
      if (clickAgesDays.length > 0) {
        await s.store.clicks.insertBatch(
          clickAgesDays.map((d) => ({
            id: randomUUID(),
            link_id: l.id,
            user_id: null,
            ip_hash: 'h',
            user_agent: null,
            referrer: null,
            clicked_at: T0 - d * DAY,
          })),
        );
      }
      return l;
    } finally {
      now = t;
    }
  }

  before(async () => {
    s = await startWebServer({ env: { JOE_SHORT_KEYWORD: 'go' }, now: () => now });
    alice = await signedIn(s, 'alice@x.io', { name: 'Alice' });
    bob = await signedIn(s, 'bob@x.io', { name: 'Bob' });
    newcomer = await signedIn(s, 'new@x.io', { name: 'New' });
    admin = await signedIn(s, 'root@x.io', { name: 'Root', admin: true });
    await aged(alice, 'old-unloved', 180, [120]);
    await aged(alice, 'old-loved', 180, [1]);
    await aged(alice, 'three-weeks', 21, []);
    await aged(alice, 'two-days', 2, []);
    await aged(alice, 'percent', 1, [], { description: 'grew 100% this year', tags: ['finance'] });
    await aged(alice, 'slack', 1, [], { title: 'Chat', description: 'team chat', tags: ['Tools'] });
    await aged(bob, 'bob-private', 200, [], { visibility: 'private', tags: ['Secret Stuff'], description: 'team chat for bob' });
    await aged(bob, 'bob-public', 200, [], { tags: ['Tools'], description: 'team chat public' });
    const shared = await aged(bob, 'bob-shared', 5, [], { visibility: 'secure' });
    await addShare(s.store, shared.id, alice.user!.id, bob.user!.id);
    const co = await aged(bob, 'bob-coowned', 5, []);
    await addOwner(s.store, co.id, alice.user!.id);
    const archived = await aged(alice, 'old-archived', 300, []);
    await setLifecycle(s.store, archived.id, { archived: true });
  });
  after(async () => s.stop());

  test('a user with no links sees "No links yet" and a create button', async () => {
    const main = mainOf((await newcomer.page('/dashboard')).body);
    has(main, /<h1[^>]*>My Links<\/h1>/);
    has(main, /No links yet/);
    has(main, /Create your first short link to get started\./);
    has(main, /href="\/dashboard\/links\/new"[^>]*>[\s\S]*?Create a link/);
  });

  test("own and co-owned links, by slug; never another user's; admins see every link", async () => {
    const slugs = slugsOf((await alice.page('/dashboard', { htmx: true })).body);
    assert.deepEqual(slugs, [...slugs].sort());
    for (const mine of ['old-unloved', 'slack', 'bob-coowned', 'old-archived']) assert.ok(slugs.includes(mine), mine);
    for (const other of ['bob-private', 'bob-public', 'bob-shared']) assert.ok(!slugs.includes(other), other);
    const all = slugsOf((await admin.page('/dashboard', { htmx: true })).body);
    for (const any of ['bob-private', 'bob-shared', 'slack']) assert.ok(all.includes(any), any);
  });

  test('search matches slug, URL and description within the scope, literally', async () => {
    const q = async (c: Client, text: string) => slugsOf((await c.page(`/dashboard?q=${encodeURIComponent(text)}`, { htmx: true })).body);
    assert.deepEqual(await q(alice, 'team chat'), ['slack'], "bob's links with the same description stay out");
    assert.deepEqual(await q(alice, 'SLACK'), ['slack'], 'case-insensitive');
    assert.deepEqual(await q(alice, 'example.com/percent'), ['percent']);
    assert.deepEqual(await q(alice, '100%'), ['percent'], '% matches literally');
    assert.deepEqual(await q(alice, 'chat'), ['slack'], 'the description matches');
    assert.deepEqual(await q(alice, 'bob-private'), []);
    assert.ok((await q(admin, 'team chat')).includes('bob-private'), 'admins search all links');
    const none = await alice.page('/dashboard?q=zzzz', { htmx: true });
    has(none.body, /No matching links/);
    has(none.body, /Try a different search or clear filters\./);
  });

  test('"Shared with me" lists only links shared with the viewer, each with only Details and Stats', async () => {
    const r = await alice.page('/dashboard?filter=shared', { htmx: true });
    assert.deepEqual(slugsOf(r.body), ['bob-shared']);
    const row = rowOf(r.body, 'bob-shared');
    has(row, /aria-label="Details"/);
    has(row, /aria-label="Stats"/);
    lacks(row, /aria-label="Edit"|aria-label="Delete"|Renew/);
    has(r.body, /<a href="\/dashboard\?filter=shared"[^>]*class="tab[^"]*tab-active"/);
  });

  test('tag chips name only tags on links the filter can show, and the tag filter stays in scope', async () => {
    const page = await alice.page('/dashboard', { htmx: true });
    const chips = /<nav aria-label="Tags"[\s\S]*?<\/nav>/.exec(page.body)![0];
    has(chips, />All</);
    has(chips, />Tools</);
    has(chips, />finance</);
    lacks(chips, /Secret Stuff/, "a tag only on another user's private link never shows");
    assert.deepEqual(
      slugsOf((await alice.page('/dashboard?tag=tools', { htmx: true })).body),
      ['slack'],
      "bob's public link with the tag stays out",
    );
    assert.deepEqual(slugsOf((await alice.page('/dashboard?tag=secret-stuff', { htmx: true })).body), []);
    const adminChips = /<nav aria-label="Tags"[\s\S]*?<\/nav>/.exec((await admin.page('/dashboard', { htmx: true })).body)![0];
    has(adminChips, /Secret Stuff/);
  });

  test('precedence: filter beats tag beats q', async () => {
    assert.deepEqual(slugsOf((await alice.page('/dashboard?filter=shared&tag=tools&q=slack', { htmx: true })).body), ['bob-shared']);
    assert.deepEqual(slugsOf((await alice.page('/dashboard?tag=finance&q=slack', { htmx: true })).body), ['percent']);
  });

  test('Stale and Never clicked: own links only, archived never, with their hints', async () => {
    const stale = await alice.page('/dashboard?filter=stale', { htmx: true });
    assert.deepEqual(slugsOf(stale.body), ['old-unloved']);
    has(stale.body, /Created over 90 days ago, no clicks in the last 90 days/);
    const never = await alice.page('/dashboard?filter=never-clicked', { htmx: true });
    assert.deepEqual(slugsOf(never.body), ['three-weeks']);
    has(never.body, /Created over 7 days ago, never clicked/);
    assert.deepEqual(slugsOf((await admin.page('/dashboard?filter=stale', { htmx: true })).body), [
      'bob-private',
      'bob-public',
      'old-unloved',
    ]);
  });

  test('the list refreshes itself on linkCreated, linkUpdated and linkDeleted, keeping its filter', async () => {
    const r = await alice.page('/dashboard?tag=tools', { htmx: true });
    has(
      r.body,
      /^<div id="link-list"[^>]* hx-get="\/dashboard\?tag=tools" hx-trigger="linkCreated from:body, linkUpdated from:body, linkDeleted from:body"/,
    );
  });

  test('rows: keyword-prefixed slug linking to /slug in a new tab, a copy button with the absolute URL, badges by state', async () => {
    const html = (await alice.page('/dashboard', { htmx: true })).body;
    const row = rowOf(html, 'slack');
    has(
      row,
      /<a href="\/slack" target="_blank" rel="noopener"[^>]*><span class="text-base-content\/70">go\/<\/span><span class="link-brand font-semibold">slack<\/span><\/a>/,
    );
    has(row, new RegExp(`data-tip="Copy link" data-copy="${s.url}/slack" aria-label="Copy link"`));
    has(row, /badge-neutral">public</);
    has(rowOf(html, 'old-archived'), />archived</);
    const link = (await s.store.links.getBySlug('slack'))!;
    for (let i = 0; i < 3; i++) await s.store.health.record(link.id, { kind: 'failure', status: 500, error: null }, DAY, now);
    const after = (await alice.page('/dashboard', { htmx: true })).body;
    has(rowOf(after, 'slack'), />broken</);
    await setLifecycle(s.store, link.id, { archived: true });
    const archivedRow = rowOf((await alice.page('/dashboard', { htmx: true })).body, 'slack');
    has(archivedRow, />archived</);
    lacks(archivedRow, />broken</, 'archived wins over broken');
    await setLifecycle(s.store, link.id, { archived: false });
  });
});

describe('links of my groups (docs/web-ui.md#landing-and-dashboard, docs/web-ui.md#link-tables)', () => {
  let s: TestServer;
  let ana: Client;
  let ben: Client;
  let cy: Client;
  before(async () => {
    s = await startWebServer({ env: { JOE_SHORT_KEYWORD: 'go' } });
    ana = await signedIn(s, 'ana@x.io', { name: 'Ana' });
    ben = await signedIn(s, 'ben@x.io', { name: 'Ben' });
    cy = await signedIn(s, 'cy@x.io', { name: 'Cy' });
    const svc = linkService(s.store);
    await svc.createGroup(asUser(ben.user!), { name: 'platform' });
    await svc.addGroupMember(asUser(ben.user!), 'platform', 'ana@x.io');
    await svc.createGroup(asUser(cy.user!), { name: 'design' });
    const deploy = await createLink(s.store, { slug: 'deploy', url: 'https://deploy.example' }, ben.user!.id);
    await svc.addGroup(asUser(ben.user!), deploy.id, 'owner', 'platform');
    await svc.addGroup(asUser(ben.user!), deploy.id, 'owner', 'design');
    const style = await createLink(s.store, { slug: 'style', url: 'https://style.example' }, cy.user!.id);
    await svc.addGroup(asUser(cy.user!), style.id, 'owner', 'design');
    await createLink(s.store, { slug: 'anas-own', url: 'https://ana.example' }, ana.user!.id);
  });
  after(async () => s.stop());

  test('the filter lists the links a group of mine owns, not my own links nor those of groups I am not in', async () => {
    const r = await ana.page('/dashboard?filter=groups', { htmx: true });
    assert.deepEqual(slugsOf(r.body), ['deploy']);
    has(r.body, /<a href="\/dashboard\?filter=groups"[^>]*class="tab[^"]*tab-active"[^>]*>My groups(&#39;|')s? links<\/a>/);
    const cys = await cy.page('/dashboard?filter=groups', { htmx: true });
    assert.deepEqual(slugsOf(cys.body), ['deploy', 'style'], 'Cy is in design, which owns both');
    const empty = mainOf((await (await signedIn(s, 'dee@x.io')).page('/dashboard?filter=groups')).body);
    has(empty, /No links of your groups/);
    has(empty, /href="\/dashboard\/groups"/);
  });

  test('rows name the groups that own them, each leading to its page; anonymous visitors see no groups', async () => {
    const row = rowOf((await ana.page('/dashboard', { htmx: true })).body, 'deploy');
    has(
      row,
      /<a href="\/dashboard\/groups\/design"[^>]*title="Owned by the group design"[\s\S]*?<span class="truncate">design<\/span><\/a>/,
    );
    has(row, /<a href="\/dashboard\/groups\/platform"/);
    lacks(rowOf((await ana.page('/dashboard', { htmx: true })).body, 'anas-own'), /Owned by the group/);
    has(
      rowOf(mainOf((await ana.page('/links')).body), 'deploy'),
      /Owned by the group platform/,
      'the public browser too, for a signed-in viewer',
    );
    lacks(mainOf((await anonymous(s).page('/links')).body), /Owned by the group/);
  });
});
