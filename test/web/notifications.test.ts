import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { asUser } from '../../src/links/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { has, mainOf, signedIn, textOf, type Client } from './support.js';

/**
 * The bell, /notifications and the notification settings page over real
 * HTTP (docs/web-ui.md#notifications): readable text, links to the link,
 * marking read with HTMX (rows and both bells swapped) or a plain form post,
 * the web layer's cross-site check, and no way to touch someone else's.
 */

describe('notification pages', () => {
  let s: TestServer;
  let ann: Client;
  let ben: Client;
  let n = 0;
  before(async () => {
    s = await startTestServer();
    ann = await signedIn(s, `ann-${process.pid}@example.test`, { name: 'Ann' });
    ben = await signedIn(s, `ben-${process.pid}@example.test`, { name: 'Ben', admin: true });
  });
  after(async () => s?.stop());

  const poke = async (owner: Client, times = 1) => {
    const link = await s.links.create(asUser(owner.user!), { slug: `w-${++n}-${process.pid}`, url: 'https://w.example.test/' });
    for (let i = 0; i < times; i++) await s.links.update(asUser(ben.user!), link.id, { title: `T${n}-${i}` });
    return link;
  };
  const ids = async (who: Client) => (await s.store.notifications.page(who.user!.id, { limit: 50 })).items.map((x) => x.id);

  test('every page shows the bell with the unread count, linking to /notifications', async () => {
    let page = await ann.page('/dashboard');
    assert.match(page.body, /id="notification-bell"[^>]*aria-label="Notifications"/);
    await poke(ann, 2);
    page = await ann.page('/dashboard');
    for (const id of ['notification-bell', 'notification-bell-mobile']) {
      const bell = new RegExp(`<a id="${id}" href="/notifications"[^>]*aria-label="Notifications, 2 unread"[^>]*>[\\s\\S]*?>2</span></a>`);
      assert.match(page.body, bell, id);
    }
    // A fragment has no layout, so it needs no count.
    const fragment = await ann.page('/dashboard', { htmx: true });
    assert.doesNotMatch(fragment.body, /notification-bell/);
  });

  test('the page lists readable sentences with a link to each link; mark one read with HTMX', async () => {
    const link = await poke(ann);
    const page = await ann.page('/notifications');
    assert.equal(page.status, 200);
    const main = mainOf(page.body);
    // The short-link prefix is the request's host here (docs/web-ui.md#link-tables).
    assert.ok(textOf(main).includes(`Ben changed the title of ${new URL(s.url).host}/${link.slug}`), textOf(main));
    assert.match(main, new RegExp(`href="/dashboard/links/${link.id}"`));
    const [id] = await ids(ann);
    const r = await ann.send('POST', `/notifications/${id}/read`, {}, { htmx: true, headers: { origin: s.url } });
    assert.equal(r.status, 200, r.body);
    assert.match(r.body, new RegExp(`<li id="notification-${id}"`));
    assert.doesNotMatch(r.body, /Mark read/);
    assert.match(r.body, /id="notification-bell" [^>]*hx-swap-oob="outerHTML"/);
    assert.match(r.body, /id="notification-bell-mobile" [^>]*hx-swap-oob="outerHTML"/);
    assert.equal((await s.store.notifications.get(id!))!.readAt !== null, true);
  });

  test('mark all read as a plain form post: 303 back to the page, nothing left unread', async () => {
    await poke(ann, 2);
    const r = await ann.send('POST', '/notifications/read-all', {}, { headers: { origin: s.url } });
    assert.equal(r.status, 303);
    assert.equal(r.header('location'), '/notifications');
    assert.equal(await s.store.notifications.unreadCount(ann.user!.id), 0);
    assert.match((await ann.page('/notifications')).body, /You are all caught up/);
  });

  test('a cross-site post is refused and changes nothing', async () => {
    await poke(ann);
    const [id] = await ids(ann);
    for (const path of [`/notifications/${id}/read`, '/notifications/read-all']) {
      const r = await ann.send('POST', path, {}, { headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } });
      assert.equal(r.status, 403, path);
    }
    assert.equal((await s.store.notifications.get(id!))!.readAt, null);
  });

  test('someone else’s notification: 404 and it stays unread', async () => {
    await poke(ann);
    const [id] = await ids(ann);
    const r = await ben.send('POST', `/notifications/${id}/read`, {}, { htmx: true, headers: { origin: s.url } });
    assert.equal(r.status, 404);
    assert.equal((await s.store.notifications.get(id!))!.readAt, null);
    assert.ok(!textOf(mainOf((await ben.page('/notifications')).body)).includes(id!));
  });

  test('the settings page turns mail off per kind and says when the server sends none', async () => {
    const page = await ann.page('/dashboard/settings/notifications');
    assert.equal(page.status, 200);
    assert.match(page.body, /This server does not send mail/);
    assert.match(page.body, /href="\/dashboard\/settings\/notifications"/, 'the user menu links the page');
    assert.equal((page.body.match(/type="checkbox" name="email"[^>]* checked/g) ?? []).length, 4);
    const r = await ann.send(
      'POST',
      '/dashboard/settings/notifications',
      { email: ['link_shared', 'link_broken'], submitted: '1' },
      { headers: { origin: s.url } },
    );
    assert.equal(r.status, 303);
    const prefs = (await s.store.notifications.emailPreferences([ann.user!.id])).get(ann.user!.id);
    assert.deepEqual(prefs, { link_changed: false, link_shared: true, link_broken: true, link_expiring: false });
    assert.match((await ann.page(r.header('location')!)).body, /Saved\./);
  });

  test('pages of 30 newest first through the one pager: "1–30 of 40 notifications", Older, and Newer back', async () => {
    const cat = await signedIn(s, `cat-${process.pid}@example.test`, { name: 'Cat' });
    await poke(cat, 40);
    const listed = (main: string) => [...main.matchAll(/<li id="notification-([^"]+)"/g)].map((m) => m[1]);
    const target = (main: string, rel: string, label: string) =>
      new RegExp(`<a class="btn btn-sm" href="([^"]+)" rel="${rel}">${label}</a>`).exec(main)?.[1]?.replace(/&amp;/g, '&');

    const first = mainOf((await cat.page('/notifications')).body);
    has(first, />1–30 of 40 notifications</);
    has(first, /btn-disabled" aria-disabled="true">Newer</, 'the newest page has nowhere newer to go');
    assert.equal(listed(first).length, 30);
    const older = target(first, 'next', 'Older');
    assert.match(older ?? '', /^\/notifications\?older=/);

    const second = mainOf((await cat.page(older!)).body);
    has(second, />31–40 of 40 notifications</);
    has(second, /btn-disabled" aria-disabled="true">Older</, 'the oldest page has nowhere older to go');
    assert.equal(listed(second).length, 10);
    assert.equal(new Set([...listed(first), ...listed(second)]).size, 40, 'every notification once');

    const newer = target(second, 'prev', 'Newer');
    assert.match(newer ?? '', /^\/notifications\?newer=/);
    const back = mainOf((await cat.page(newer!)).body);
    assert.deepEqual(listed(back), listed(first), 'Newer returns to the page before');
    has(back, />1–30 of 40 notifications</);

    // A cursor this server did not issue is the newest page.
    has(mainOf((await cat.page('/notifications?older=bogus')).body), />1–30 of 40 notifications</);
  });

  test('signed out, the pages send you to sign in', async () => {
    const { get } = await import('../helpers/server.js');
    for (const path of ['/notifications', '/dashboard/settings/notifications']) {
      const r = await get(`${s.url}${path}`);
      assert.equal(r.status, 302, path);
    }
  });
});
