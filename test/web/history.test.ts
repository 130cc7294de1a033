import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { asSystem, asUser } from '../../src/links/index.js';
import { formatDateTimeSeconds } from '../../src/views/format.js';
import type { TestServer } from '../helpers/server.js';
import { anonymous, has, lacks, mainOf, signedIn, startWebServer, textOf, toastOf, type Client } from './support.js';

/**
 * Link history in the browser over real HTTP (docs/history.md#web-pages): the timeline on the
 * link page with its readable changes, who sees the people of member events, Restore and its
 * refusals, older pages, and the admin audit with its filters and deleted links.
 */

const MINUTE = 60_000;
const LONG_URL = `https://docs.example.com/${'very-long-path-segment/'.repeat(8)}index.html?query=${'x'.repeat(60)}`;

/** The History section of a full link page. */
function historyOf(html: string): string {
  const m = /<section id="history-section"[\s\S]*?<\/section>/.exec(html);
  assert.ok(m, 'the link page has a History section');
  return m[0];
}

/** The timeline items of some HTML, in order, as { id, kind, text }. */
function items(html: string): Array<{ id: string; kind: string; text: string; html: string }> {
  return [...html.matchAll(/<li id="event-([^"]+)" class="history-item" data-kind="([^"]+)">([\s\S]*?)<\/li>/g)].map((m) => ({
    id: m[1]!,
    kind: m[2]!,
    text: textOf(m[3]!),
    html: m[3]!,
  }));
}

describe('link history pages (docs/history.md#web-pages)', () => {
  let s: TestServer;
  let clock = Date.UTC(2030, 0, 2, 15, 4);
  const tick = () => (clock += MINUTE);
  let alice: Client;
  let bob: Client;
  let carol: Client;
  let admin: Client;
  let handbookId = '';
  let createdAt = 0;

  before(async () => {
    s = await startWebServer({ env: { JOE_SHORT_KEYWORD: 'go' }, now: () => clock });
    alice = await signedIn(s, 'alice@x.io', { name: 'Alice' });
    bob = await signedIn(s, 'bob@x.io', { name: 'Bob' });
    carol = await signedIn(s, 'carol@x.io', { name: 'Carol' });
    admin = await signedIn(s, 'root@x.io', { name: 'Root', admin: true });
    const a = asUser(alice.user!, 'web');
    createdAt = tick();
    const link = await s.links.create(a, { slug: 'handbook', url: 'https://wiki.example.com/handbook', title: 'Handbook', tags: ['docs'] });
    handbookId = link.id;
    tick();
    await s.links.update(a, link.id, {
      url: LONG_URL,
      title: 'Team handbook',
      tags: ['docs', 'onboarding'],
      visibility: 'secure',
      expiresAt: clock + 30 * 24 * 60 * MINUTE,
    });
    tick();
    await s.links.addOwner(a, link.id, bob.user!.email);
    tick();
    await s.links.addShare(a, link.id, carol.user!.email);
    tick();
    await s.links.update(asSystem('cli', bob.user!), link.id, { description: 'How we work' });
    tick();
    await s.links.update(asSystem('cli'), link.id, { healthChecksDisabled: true });
    tick();
  });
  after(async () => s.stop());

  test('the timeline lists every change newest first, in words: fields, from → to, tags as chips, actors', async () => {
    const r = await alice.page(`/dashboard/links/${handbookId}`);
    assert.equal(r.status, 200);
    const section = historyOf(r.body);
    has(section, /<h2 id="history-title"[^>]*>History<\/h2>/);
    const list = items(section);
    assert.deepEqual(
      list.map((i) => i.kind),
      ['updated', 'updated', 'share_added', 'owner_added', 'updated', 'created'],
    );
    const [system, cli, share, owner, edit, created] = list;
    assert.match(system!.text, /^Edited current version .* by System · via CLI Health checks on → off/);
    assert.match(cli!.text, /by CLI \(bob@x\.io\) Description none → How we work/);
    assert.match(share!.text, /^Shared with Carol \(carol@x\.io\) .* by Alice \(alice@x\.io\) · via web$/);
    assert.match(owner!.text, /^Added co-owner Bob \(bob@x\.io\)/);
    assert.match(edit!.text, /Destination https:\/\/wiki\.example\.com\/handbook → https:\/\/docs\.example\.com\/very-long-path-segment/);
    assert.match(edit!.text, /Title Handbook → Team handbook/);
    assert.match(edit!.text, /Tags docs → docs onboarding/);
    assert.match(edit!.text, /Visibility Public \(listed\) → Secure \(owners and shares only\)/);
    assert.match(edit!.text, /Expiry never expires → Feb 1, 2030 3:06 PM UTC/);
    // Long URLs wrap instead of widening the page; tags are chips; times are <time> the browser localises.
    has(edit!.html, /<span class="font-mono text-xs wrap-anywhere">https:\/\/docs\.example\.com/);
    has(edit!.html, /<span class="badge badge-sm badge-outline[^"]*">onboarding<\/span>/);
    has(edit!.html, /<time datetime="2030-02-01T15:06:00Z"[^>]*data-local="datetime"/);
    has(created!.html, /<time datetime="2030-01-02T15:05:00Z"[^>]*data-local="datetime"[^>]*>Jan 2, 2030 3:05 PM UTC<\/time>/);
    // A new link lists the values it was made with, not the empty ones.
    assert.match(
      created!.text,
      /^Created .* Destination https:\/\/wiki\.example\.com\/handbook Title Handbook Tags docs Visibility Public/,
    );
    assert.doesNotMatch(created!.text, /Description|Aliases|none/);
    // Every version but the current one can be restored by an owner; member events cannot.
    assert.equal(section.match(/>\s*(?:<span[^>]*><\/span>)?Restore<\/button>/g)?.length, 3);
    lacks(share!.html, /restore/);
    lacks(system!.html, /\/restore"/);
  });

  test('member events show their people only to those who may manage shares', async () => {
    const owner = items(historyOf((await bob.page(`/dashboard/links/${handbookId}`)).body));
    assert.match(owner.find((i) => i.kind === 'share_added')!.text, /Shared with Carol \(carol@x\.io\)/);
    const asRecipient = historyOf((await carol.page(`/dashboard/links/${handbookId}`)).body);
    const seen = items(asRecipient);
    assert.equal(seen.length, 6, 'a share recipient sees that member events happened');
    assert.match(seen.find((i) => i.kind === 'share_added')!.text, /^Shared with someone Jan 2, 2030 3:08 PM UTC$/);
    assert.match(seen.find((i) => i.kind === 'owner_added')!.text, /^A co-owner was added Jan 2, 2030 3:07 PM UTC$/);
    lacks(asRecipient, /carol@x\.io|bob@x\.io \)|Added co-owner|Bob \(bob/);
    // Field events keep their actor for everyone who may view the link.
    assert.match(seen.find((i) => i.kind === 'created')!.text, /by Alice \(alice@x\.io\)/);
    // Without CanEdit there is nothing to restore.
    lacks(asRecipient, /Restore|\/restore/);
  });

  test('Restore puts a version back (HTMX and plain form); the new restored event shows; others are refused', async () => {
    const before = items(historyOf((await alice.page(`/dashboard/links/${handbookId}`)).body));
    const created = before.at(-1)!;
    const path = `/dashboard/links/${handbookId}/history/${created.id}/restore`;

    // A share recipient's forged post, and a post from another site, change nothing.
    const forged = await carol.send('POST', path, {}, { htmx: true });
    assert.equal(forged.status, 403);
    const crossSite = await alice.send('POST', path, {}, { headers: { origin: 'https://evil.example' } });
    assert.equal(crossSite.status, 403);
    assert.equal((await s.store.links.get(handbookId))!.url, LONG_URL);
    assert.equal(items(historyOf((await alice.page(`/dashboard/links/${handbookId}`)).body)).length, before.length);

    tick();
    const r = await alice.send('POST', path, {}, { htmx: true });
    assert.equal(r.status, 200);
    assert.equal(r.header('hx-retarget'), '#link-detail');
    assert.equal(r.header('hx-reswap'), 'outerHTML');
    assert.deepEqual(toastOf(r), { level: 'success', message: `Restored the version of ${formatDateTimeSeconds(createdAt)} (created).` });
    has(r.body, /^<div id="link-detail"/);
    const now = items(historyOf(r.body));
    assert.equal(now[0]!.kind, 'restored');
    assert.match(now[0]!.text, /^Restored the version of Jan 2, 2030 3:05 PM UTC current version .* by Alice \(alice@x\.io\) · via web/);
    assert.match(now[0]!.text, /Destination https:\/\/docs\.example\.com\/\S+ → https:\/\/wiki\.example\.com\/handbook/);
    const restored = (await s.store.links.view(handbookId))!;
    assert.equal(restored.url, 'https://wiki.example.com/handbook');
    assert.equal(restored.title, 'Handbook');
    assert.deepEqual(
      restored.tags.map((t) => t.name),
      ['docs'],
    );

    // Without JavaScript: 303 back to the link page, which shows the message once.
    const edit = now.find((i) => i.kind === 'updated' && /Team handbook/.test(i.text))!;
    tick();
    const plain = await alice.send('POST', `/dashboard/links/${handbookId}/history/${edit.id}/restore`);
    assert.equal(plain.status, 303);
    assert.equal(plain.header('location'), `/dashboard/links/${handbookId}`);
    const flash = /flash=([^;]+)/.exec(plain.header('set-cookie') ?? '')![1]!;
    const page = await alice.page(`/dashboard/links/${handbookId}`, { headers: { cookie: `${alice.cookie}; flash=${flash}` } });
    has(page.body, /Restored the version of Jan 2, 2030 3:06:00 PM UTC \(edited [^)]*title[^)]*\)\./);
    assert.equal((await s.store.links.get(handbookId))!.title, 'Team handbook');

    // An event of another link is not a version of this one.
    const other = await s.links.create(asUser(alice.user!), { slug: 'other-link', url: 'https://other.example/' });
    const [otherCreated] = (await s.links.history(asUser(alice.user!), other.id, {})).events;
    const foreign = await alice.send('POST', `/dashboard/links/${handbookId}/history/${otherCreated!.id}/restore`, {}, { htmx: true });
    assert.equal(foreign.status, 404);
  });

  test('a version today’s rules refuse is not restored: a calm note names the reason, nothing changes', async () => {
    const a = asUser(alice.user!, 'web');
    const link = await s.links.create(a, { slug: 'launch', url: 'https://launch.example/', expiresAt: clock + 10 * MINUTE });
    tick();
    await s.links.update(a, link.id, { url: 'https://launch.example/v2', expiresAt: null });
    clock += 20 * MINUTE;
    const list = items(historyOf((await alice.page(`/dashboard/links/${link.id}`)).body));
    const created = list.find((i) => i.kind === 'created')!;
    const path = `/dashboard/links/${link.id}/history/${created.id}/restore`;
    const reason = 'This version can’t be restored: its expiry date has passed since. Nothing was changed.';

    const r = await alice.send('POST', path, {}, { htmx: true });
    assert.equal(r.status, 200, 'HTMX swaps the note beside the version');
    assert.equal(r.header('hx-retarget'), null);
    assert.equal(textOf(r.body), reason);
    has(r.body, /role="status"/);

    const plain = await alice.send('POST', path);
    assert.equal(plain.status, 409);
    const section = historyOf(plain.body);
    has(section, /alert-warning/);
    assert.ok(textOf(section).includes(reason), 'the reason above the list');
    assert.ok(
      items(section)
        .find((i) => i.id === created.id)!
        .text.includes(reason),
      'the note sits beside the version too',
    );

    const after = (await s.store.links.get(link.id))!;
    assert.equal(after.url, 'https://launch.example/v2');
    assert.equal(after.expiresAt, null);
    assert.equal(items(historyOf((await alice.page(`/dashboard/links/${link.id}`)).body)).length, list.length);
  });

  test('older events come a page at a time: Show older with HTMX, or a page of its own', async () => {
    const a = asUser(alice.user!, 'web');
    const link = await s.links.create(a, { slug: 'busy', url: 'https://busy.example/0' });
    for (let i = 1; i <= 24; i++) {
      tick();
      await s.links.update(a, link.id, { url: `https://busy.example/${i}` });
    }
    const section = historyOf((await alice.page(`/dashboard/links/${link.id}`)).body);
    const first = items(section);
    assert.equal(first.length, 20);
    assert.match(first[0]!.text, /busy\.example\/23 → https:\/\/busy\.example\/24/);
    const more =
      /<li id="history-more"[^>]*><a class="btn btn-sm" href="([^"]+)" hx-get="([^"]+)" hx-target="#history-more" hx-swap="outerHTML">/.exec(
        section,
      );
    assert.ok(more, 'a Show older control follows the first page');
    const href = more[1]!.replace(/&amp;/g, '&');
    assert.equal(more[1], more[2]);
    assert.match(href, new RegExp(`^/dashboard/links/${link.id}/history\\?cursor=`));

    const fragment = await alice.page(href, { htmx: true });
    assert.equal(fragment.status, 200);
    has(fragment.body, /^<li id="event-/);
    const rest = items(fragment.body);
    assert.deepEqual(
      rest.map((i) => i.kind),
      ['updated', 'updated', 'updated', 'updated', 'created'],
    );
    assert.match(rest[0]!.text, /busy\.example\/3 → https:\/\/busy\.example\/4/);
    lacks(fragment.body, /history-more/, 'the oldest page has no further control');
    assert.equal(new Set([...first, ...rest].map((i) => i.id)).size, 25);

    const page = await alice.page(href);
    assert.equal(page.status, 200);
    const main = mainOf(page.body);
    has(main, /<h1[^>]*>History of go\/busy<\/h1>/);
    assert.deepEqual(
      items(main).map((i) => i.id),
      rest.map((i) => i.id),
    );
    assert.equal((await alice.page(`/dashboard/links/${link.id}/history?cursor=bogus`)).status, 400);
    assert.equal((await carol.page(`/dashboard/links/${link.id}/history`)).status, 403);
  });

  test('/admin/audit: every event, filters in the address, deleted links marked, Older/Newer pages, admins only', async () => {
    const a = asUser(alice.user!, 'web');
    // More than a page of events in all.
    const notes = await s.links.create(a, { slug: 'notes', url: 'https://notes.example/0' });
    for (let i = 1; i <= 15; i++) await s.links.update(a, notes.id, { url: `https://notes.example/${i}` });
    const gone = await s.links.create(a, { slug: 'gone-soon', url: 'https://gone.example/' });
    tick();
    await s.links.delete(a, gone.id);
    tick();

    const all = await admin.page('/admin/audit');
    assert.equal(all.status, 200);
    const main = mainOf(all.body);
    has(main, /<h1[^>]*>Audit<\/h1>/);
    has(all.body, /<a href="\/admin\/audit" class="menu-active" aria-current="page">/, 'the admin navigation links to it');
    const first = items(main);
    assert.equal(first.length, 50);
    assert.equal(first[0]!.kind, 'deleted');
    assert.match(
      first[0]!.text,
      /^Deleted .* go\/gone-soon deleted by Alice \(alice@x\.io\) · via web Destination https:\/\/gone\.example\//,
    );
    lacks(first[0]!.html, /href="\/dashboard\/links\//, 'a deleted link is plain text');
    has(main, /<form method="get" action="\/admin\/audit" role="search"/);

    const bySlug = items(mainOf((await admin.page('/admin/audit?slug=HANDBOOK')).body));
    assert.ok(bySlug.length >= 8, 'every event of the link');
    for (const i of bySlug) has(i.html, new RegExp(`<a class="[^"]*" href="/dashboard/links/${handbookId}">go/handbook</a>`));
    assert.ok(
      bySlug.some((i) => /Shared with Carol \(carol@x\.io\)/.test(i.text)),
      'nothing is redacted for admins',
    );

    const byActor = items(mainOf((await admin.page('/admin/audit?actor=%20BOB@x.io%20')).body));
    assert.deepEqual(
      byActor.map((i) => i.kind),
      ['updated'],
    );
    assert.match(byActor[0]!.text, /by CLI \(bob@x\.io\)/);

    const deleted = await admin.page('/admin/audit?kind=deleted&slug=gone-soon');
    const del = items(mainOf(deleted.body));
    assert.deepEqual(
      del.map((i) => i.kind),
      ['deleted'],
    );
    has(deleted.body, /<option value="deleted" selected>Deleted<\/option>/);
    has(deleted.body, /<input id="audit-slug" name="slug" type="text" value="gone-soon"/);
    const unknown = await admin.page('/admin/audit?kind=exploded');
    assert.equal(unknown.status, 400);
    has(unknown.body, /There is no kind of event called “exploded”\./);

    // Older, then Newer back to the same first page; filters ride along.
    const older = /<a class="btn btn-sm" href="([^"]+)" rel="next">/.exec(main);
    assert.ok(older, 'Older follows a full page');
    lacks(main, /rel="prev"/, 'the newest page has no Newer');
    has(main, /btn-disabled" aria-disabled="true">Newer</, 'the one pager, its Newer end disabled');
    const second = await admin.page(older[1]!.replace(/&amp;/g, '&'));
    const secondItems = items(mainOf(second.body));
    assert.ok(secondItems.length > 0, 'the second page has events');
    // Each page says where it sits among all the events, as the link lists do.
    const total = await s.store.linkEvents.count({});
    has(main, new RegExp(`>1–${first.length} of ${total} events<`), 'the first page counts from 1');
    has(
      mainOf(second.body),
      new RegExp(`>${first.length + 1}–${first.length + secondItems.length} of ${total} events<`),
      'the second page continues the count',
    );
    assert.equal(new Set([...first, ...secondItems].map((i) => i.id)).size, first.length + secondItems.length);
    const newer = /<a class="btn btn-sm" href="([^"]+)" rel="prev">/.exec(mainOf(second.body));
    assert.ok(newer, 'Newer leads back');
    const back = items(mainOf((await admin.page(newer[1]!.replace(/&amp;/g, '&'))).body));
    assert.deepEqual(
      back.map((i) => i.id),
      first.map((i) => i.id),
    );
    const filteredOlder = await admin.page('/admin/audit?actor=alice@x.io');
    const link = /<a class="btn btn-sm" href="([^"]+)" rel="next">/.exec(mainOf(filteredOlder.body));
    assert.match(link?.[1] ?? '', /^\/admin\/audit\?actor=alice%40x\.io&amp;older=/, 'the filter rides along');

    assert.equal((await alice.page('/admin/audit')).status, 403);
    const anon = await anonymous(s).page('/admin/audit');
    assert.equal(anon.status, 302);
    assert.match(anon.header('location')!, /^\/auth\/login\?return_url=/);
    lacks((await alice.page('/dashboard')).body, /\/admin\/audit/, 'only admins see the link');
  });
});
