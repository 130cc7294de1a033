import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestServer } from '../helpers/server.js';
import { anonymous, has, lacks, mainOf, signedIn, startWebServer, textOf, toastOf, type Client } from './support.js';
import { addShare, createLink } from '../helpers/links.js';
import { formatDate, relativeTime } from '../../src/views/format.js';

/**
 * Renew wherever an editor sees an expired link, and expiry said relatively
 * (docs/lifecycle.md#renewal, docs/web-ui.md#rendering-conventions): the link's own page and the
 * admin table offer Renew to CanEdit viewers only, the one endpoint refuses everyone else,
 * and the detail page says "Expired 3 days ago" with the exact time in its title.
 */

const T0 = Date.parse('2030-06-01T12:00:00Z');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

describe('renew on the link page and the admin table, relative expiry (docs/lifecycle.md#renewal)', () => {
  let s: TestServer;
  let now = T0;
  let alice: Client;
  let bob: Client;
  let carol: Client;
  let admin: Client;

  before(async () => {
    s = await startWebServer({ env: { JOE_SHORT_KEYWORD: 'go' }, now: () => now });
    alice = await signedIn(s, 'alice@x.io', { name: 'Alice' });
    bob = await signedIn(s, 'bob@x.io', { name: 'Bob' });
    carol = await signedIn(s, 'carol@x.io', { name: 'Carol' });
    admin = await signedIn(s, 'root@x.io', { name: 'Root', admin: true });
  });
  after(async () => s.stop());

  /** A link of Alice's, made four days ago, that expired three days and an hour before T0 (sessions stay valid at T0). */
  const expired = async (slug: string, visibility: 'public' | 'secure' = 'public') => {
    now = T0 - 4 * DAY;
    const expiresAt = T0 - 3 * DAY - HOUR;
    const id = (await createLink(s.store, { slug, url: `https://${slug}.example.com/`, visibility, expiresAt }, alice.user!.id)).id;
    now = T0;
    return id;
  };
  const headerOf = async (c: Client, id: string) => {
    const r = await c.page(`/dashboard/links/${id}`);
    assert.equal(r.status, 200);
    return /<header[\s\S]*?<\/header>/.exec(mainOf(r.body))![0];
  };
  const rowOf = (html: string, id: string) => {
    const m = new RegExp(`<tr id="link-${id}"[\\s\\S]*?</tr>`).exec(html);
    assert.ok(m, `row ${id} present`);
    return m[0];
  };
  const RENEW_FORM = (id: string, from: string) =>
    new RegExp(`<form method="post" action="/dashboard/links/${id}/renew"[^>]*>\\s*<input type="hidden" name="from" value="${from}"/>`);

  test('the link page offers Renew beside "expired" to an owner and an admin, never to a share recipient', async () => {
    const id = await expired('page-renew', 'secure');
    await addShare(s.store, id, bob.user!.id, alice.user!.id);
    try {
      const owner = await headerOf(alice, id);
      has(owner, /badge-warning">expired</);
      has(owner, RENEW_FORM(id, 'detail'));
      has(owner, /hx-target="#link-detail"/, 'the page re-renders in place');
      has(await headerOf(admin, id), RENEW_FORM(id, 'detail'));
      const recipient = (await bob.page(`/dashboard/links/${id}`)).body;
      has(recipient, /badge-warning">expired</, 'the recipient still sees the badge');
      lacks(recipient, /\/renew"|>\s*Renew\s*</);
    } finally {
      now = T0;
    }
  });

  test('the admin links table offers Renew on expired rows; the table stays closed to non-admins', async () => {
    const id = await expired('admin-renew');
    try {
      const row = rowOf((await admin.page('/admin/links?q=admin-renew')).body, id);
      has(row, /badge-warning">expired</);
      has(row, RENEW_FORM(id, 'admin'));
      has(row, new RegExp(`hx-target="#link-${id}"`));
      assert.equal((await alice.page('/admin/links')).status, 403, 'owners renew from their own surfaces');
    } finally {
      now = T0;
    }
  });

  test('renewing from the link page re-renders the page without the badge, and the link resolves again', async () => {
    const id = await expired('come-back');
    try {
      assert.equal((await anonymous(s).page('/come-back')).status, 404, 'expired before');
      const r = await alice.send('POST', `/dashboard/links/${id}/renew`, { from: 'detail' }, { htmx: true });
      assert.equal(r.status, 200);
      has(r.body, /^<div id="link-detail"/);
      lacks(r.body, />expired<|\/renew"|>Expired |>Expires /);
      assert.deepEqual(toastOf(r), { level: 'success', message: 'Renewed go/come-back. It no longer expires.' });
      assert.equal((await s.store.links.get(id))!.expiresAt, null);
      const go = await anonymous(s).page('/come-back');
      assert.equal(go.status, 302);
      assert.equal(go.header('location'), 'https://come-back.example.com/');
    } finally {
      now = T0;
    }
  });

  test('without JavaScript the form post lands back where it came from', async () => {
    const id = await expired('no-js');
    try {
      const fromPage = await alice.send('POST', `/dashboard/links/${id}/renew`, { from: 'detail' });
      assert.equal(fromPage.status, 303);
      assert.equal(fromPage.header('location'), `/dashboard/links/${id}`);
      assert.equal((await s.store.links.get(id))!.expiresAt, null);
      const id2 = await expired('no-js-admin');
      const fromAdmin = await admin.send('POST', `/dashboard/links/${id2}/renew`, { from: 'admin' });
      assert.equal(fromAdmin.status, 303);
      assert.equal(fromAdmin.header('location'), '/admin/links');
      assert.equal((await s.store.links.get(id2))!.expiresAt, null);
    } finally {
      now = T0;
    }
  });

  test('renewing from the admin table answers the row with the admin columns and actions', async () => {
    const id = await expired('admin-row');
    try {
      const r = await admin.send('POST', `/dashboard/links/${id}/renew`, { from: 'admin' }, { htmx: true });
      assert.equal(r.status, 200);
      const row = rowOf(r.body, id);
      has(r.body, new RegExp(`^<tr id="link-${id}"`));
      lacks(row, />expired<|Renew/);
      has(row, new RegExp(`hx-get="/admin/links/${id}/edit"`), 'the admin inline edit stays available');
      has(row, />Alice</, 'the owners column');
    } finally {
      now = T0;
    }
  });

  test('adversarial: a share recipient, a stranger and an anonymous visitor cannot renew, whatever the form names', async () => {
    const id = await expired('not-yours', 'secure');
    await addShare(s.store, id, bob.user!.id, alice.user!.id);
    try {
      const before = (await s.store.links.get(id))!.expiresAt;
      for (const c of [bob, carol]) {
        for (const from of ['detail', 'admin', 'dashboard', '']) {
          const htmx = await c.send('POST', `/dashboard/links/${id}/renew`, { from }, { htmx: true });
          assert.equal(htmx.status, 403, `${c.user!.email} ${from}`);
          lacks(htmx.body, /link-detail|<tr id=/);
          assert.equal((await c.send('POST', `/dashboard/links/${id}/renew`, { from })).status, 403);
        }
      }
      const anon = await anonymous(s).send('POST', `/dashboard/links/${id}/renew`, { from: 'detail' });
      assert.equal(anon.status, 302, 'an anonymous visitor is sent to sign in');
      has(anon.header('location') ?? '', /^\/auth\/login\?return_url=/);
      assert.equal((await s.store.links.get(id))!.expiresAt, before, 'nothing changed');
      assert.equal((await bob.page('/not-yours')).status, 404, 'still expired for the recipient');
    } finally {
      now = T0;
    }
  });

  test('adversarial: an owner who names the admin table gets a plain dashboard row, never the admin one', async () => {
    const id = await expired('owner-admin');
    try {
      const r = await alice.send('POST', `/dashboard/links/${id}/renew`, { from: 'admin' }, { htmx: true });
      assert.equal(r.status, 200);
      const row = rowOf(r.body, id);
      lacks(row, /\/admin\/links/);
      has(row, new RegExp(`href="/dashboard/links/${id}/edit"`));
      const plain = await alice.send('POST', `/dashboard/links/${id}/renew`, { from: 'admin' });
      assert.equal(plain.header('location'), '/dashboard');
    } finally {
      now = T0;
    }
  });

  test('the link page says expiry relatively, with the exact time on hover', async () => {
    const id = await expired('said-relatively');
    try {
      let main = mainOf((await alice.page(`/dashboard/links/${id}`)).body);
      has(textOf(main), /Expired 3 days ago/);
      has(main, /<time datetime="2030-05-29T11:00:00Z" title="May 29, 2030 11:00 AM UTC" data-local="relative">3 days ago<\/time>/);

      now = T0;
      const soon = (
        await createLink(
          s.store,
          { slug: 'soon', url: 'https://soon.example.com/', expiresAt: T0 + 5 * HOUR + 30 * MINUTE },
          alice.user!.id,
        )
      ).id;
      main = mainOf((await alice.page(`/dashboard/links/${soon}`)).body);
      has(textOf(main), /Expires in 5 hours/);
      has(main, /title="Jun 1, 2030 5:30 PM UTC" data-local="relative">in 5 hours</);
      lacks(main, /\/renew"/, 'an active link has nothing to renew');
    } finally {
      now = T0;
    }
  });

  test('relative wording: whole units counted down, singular and plural, both directions', () => {
    const cases: Array<[number, string]> = [
      [30_000, 'in less than a minute'],
      [-30_000, 'less than a minute ago'],
      [MINUTE, 'in 1 minute'],
      [-59 * MINUTE, '59 minutes ago'],
      [5 * HOUR + 59 * MINUTE, 'in 5 hours'],
      [-DAY, '1 day ago'],
      [-(3 * DAY + 23 * HOUR), '3 days ago'],
      [45 * DAY, 'in 1 month'],
      [-400 * DAY, '1 year ago'],
      [800 * DAY, 'in 2 years'],
    ];
    for (const [offset, text] of cases) assert.equal(relativeTime(T0 + offset, T0), text, String(offset));
  });

  test("the expired link's own 404 page offers Renew to an editor only, as a plain post back to the link page", async () => {
    const id = await expired('dead-end');
    const plainRenew = new RegExp(`<form method="post" action="/dashboard/links/${id}/renew" class="[^"]*" aria-label="Renew">`);
    const ownerPage = await alice.page('/dead-end');
    assert.equal(ownerPage.status, 404);
    has(ownerPage.body, /Link expired: dead-end/);
    has(ownerPage.body, plainRenew, 'no swap target on this page: a plain form');
    for (const label of [/Renew \+30 days/, /Renew \+90 days/, /Renew without expiry/]) has(textOf(mainOf(ownerPage.body)), label);
    for (const [who, c] of [
      ['a stranger', carol],
      ['nobody', anonymous(s)],
    ] as const) {
      const other = await c.page('/dead-end');
      assert.equal(other.status, 404, who);
      lacks(other.body, /\/renew"/, `${who} gets no Renew`);
    }
    const renewed = await alice.send('POST', `/dashboard/links/${id}/renew`, { from: 'detail' });
    assert.equal(renewed.status, 303);
    assert.equal(renewed.header('location'), `/dashboard/links/${id}`);
    const hop = await anonymous(s).page('/dead-end');
    assert.equal(hop.status, 302);
    assert.equal(hop.header('location'), 'https://dead-end.example.com/');
  });

  test('Renew +30 / +90 days sets the expiry that many days from now; the link redirects again until then', async () => {
    for (const days of [30, 90]) {
      const id = await expired(`renew-${days}`);
      const detail = await alice.page(`/dashboard/links/${id}`);
      has(textOf(mainOf(detail.body)), new RegExp(`Renew \\+${days} days`), 'the link page offers the choice too');
      const r = await alice.send('POST', `/dashboard/links/${id}/renew`, { from: 'detail', days: String(days) }, { htmx: true });
      assert.equal(r.status, 200);
      has(r.body, /^<div id="link-detail"/);
      const until = T0 + days * DAY;
      assert.equal((await s.store.links.get(id))!.expiresAt, until);
      assert.deepEqual(toastOf(r), {
        level: 'success',
        message: `Renewed go/renew-${days} for ${days} days, until ${formatDate(until)}.`,
      });
      assert.equal((await anonymous(s).page(`/renew-${days}`)).status, 302);
    }
    // Any other length is no length: the link never expires again.
    const id = await expired('renew-odd');
    await alice.send('POST', `/dashboard/links/${id}/renew`, { from: 'detail', days: '7' });
    assert.equal((await s.store.links.get(id))!.expiresAt, null);
  });
});
