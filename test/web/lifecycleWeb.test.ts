import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestServer } from '../helpers/server.js';
import { anonymous, has, lacks, mainOf, signedIn, startWebServer, textOf, toastOf, type Client } from './support.js';
import { addShare, createLink, setLifecycle, updateLink } from '../helpers/links.js';

/**
 * Lifecycle and health on the web surfaces (docs/lifecycle.md#archive, docs/lifecycle.md#renewal, docs/lifecycle.md#health-status, docs/lifecycle.md#badges-and-the-admin-report):
 * the detail page's badges and health line, the opt-out on the edit form,
 * badges on shared and tag rows, and what the public surfaces never show.
 */

const T0 = Date.parse('2030-06-01T12:00:00Z');
const HOUR = 3_600_000;

describe('lifecycle and health on web pages (docs/lifecycle.md#archive, docs/lifecycle.md#renewal, docs/lifecycle.md#health-checks, docs/lifecycle.md#ssrf-guard, docs/lifecycle.md#badges-and-the-admin-report)', () => {
  let s: TestServer;
  let now = T0;
  let alice: Client;
  let bob: Client;
  let carol: Client;

  before(async () => {
    // Health checks on, as "not checked yet" is said only where a check will come; jobs never tick during the test.
    s = await startWebServer({ env: { JOE_SHORT_KEYWORD: 'go', JOE_HEALTH_CHECKS_ENABLED: 'true', JOE_JOB_TICK: '1h' }, now: () => now });
    alice = await signedIn(s, 'alice@x.io', { name: 'Alice' });
    bob = await signedIn(s, 'bob@x.io', { name: 'Bob' });
    carol = await signedIn(s, 'carol@x.io', { name: 'Carol' });
  });
  after(async () => s.stop());

  const make = async (slug: string, extra: { visibility?: 'public' | 'private' | 'secure'; tags?: string[]; expiresAt?: number } = {}) =>
    (await createLink(s.store, { slug, url: `https://${slug}.example.com/`, title: `${slug} title`, ...extra }, alice.user!.id)).id;
  const fail3 = async (id: string) => {
    for (let i = 0; i < 3; i++) await s.store.health.record(id, { kind: 'failure', status: 503, error: null }, HOUR, now);
  };
  const header = async (c: Client, id: string) => {
    const main = mainOf((await c.page(`/dashboard/links/${id}`)).body);
    return { main, header: /<header[\s\S]*?<\/header>/.exec(main)![0], text: textOf(main) };
  };
  const detailText = async (id: string) => textOf(mainOf((await alice.page(`/dashboard/links/${id}`)).body));
  const rowOf = (html: string, id: string) => {
    const m = new RegExp(`<tr id="link-${id}"[\\s\\S]*?</tr>`).exec(html);
    assert.ok(m, `row ${id} present`);
    return m[0];
  };

  test('detail health line: not checked yet, ok, broken, not checkable, opted out — each with status and time when checked', async () => {
    try {
      await healthLine();
    } finally {
      now = T0;
    }
  });

  async function healthLine(): Promise<void> {
    const id = await make('health-line');
    let d = await header(alice, id);
    has(d.text, /Destination not checked yet\./);
    lacks(d.header, />broken</);

    await s.store.health.record(id, { kind: 'success', status: 204 }, HOUR, now);
    d = await header(alice, id);
    has(d.text, /Health: OK · last status 204 · checked Jun 1, 2030 12:00 PM UTC/);

    now += 20 * 60_000;
    await fail3(id);
    d = await header(alice, id);
    has(d.header, /badge-error[^"]*"[^>]*>(<svg[\s\S]*?<\/svg>)?broken</, 'the header carries the broken badge');
    has(d.text, /Health: broken · last status 503 · checked Jun 1, 2030 12:20 PM UTC/);
    has(d.text, /Last error: the destination answered HTTP 503/);

    await s.store.health.record(id, { kind: 'skipped', reason: 'destination is not checkable under current server policy' }, HOUR, now);
    d = await header(alice, id);
    has(d.text, /Health: Not checkable under current server policy/);
    lacks(d.header, />broken</, 'a skipped link is not broken');

    await fail3(id);
    // The opt-out freezes the row: no badge, and the line says so.
    const r = await alice.send(
      'PUT',
      `/dashboard/links/${id}`,
      { url: 'https://health-line.example.com/', title: 'x', visibility: 'public', health_checks_disabled: 'true', expires_at: '' },
      { htmx: true },
    );
    assert.equal(r.status, 200);
    d = await header(alice, id);
    has(d.text, /Health checks: opted out/);
    lacks(d.header, />broken</);
    lacks(d.text, /last status/);
  }

  test('links the checker never visits say why instead of "not checked yet"', async () => {
    const template = (await createLink(s.store, { slug: 'tpl-line', url: 'https://t.example.com/$q' }, alice.user!.id)).id;
    has(await detailText(template), /Destination not checked: a template link’s destination depends on the values filled in\./);
    const archived = await make('archived-line');
    await setLifecycle(s.store, archived, { archived: true });
    has(await detailText(archived), /Destination not checked while the link is archived; unarchiving resumes the checks\./);
    const expired = await make('expired-line', { expiresAt: now + 60_000 });
    now += 120_000;
    try {
      has(await detailText(expired), /Destination not checked while the link is expired; renewing resumes the checks\./);
      for (const id of [template, archived, expired]) lacks(await detailText(id), /not checked yet/);
    } finally {
      now = T0;
    }
  });

  test('a broken link names the error its last probe recorded', async () => {
    const id = await make('broken-error');
    for (let i = 0; i < 3; i++) await s.store.health.record(id, { kind: 'failure', status: null, error: 'connection refused' }, HOUR, now);
    has(await detailText(id), /Last error: connection refused/);
  });

  test('the edit form shows the opt-out as stored, and unticking it turns checks back on', async () => {
    const id = await make('opt-toggle');
    await updateLink(s.store, id, { healthChecksDisabled: true });
    const form = (await alice.page(`/dashboard/links/${id}/edit`, { htmx: true })).body;
    has(form, /<input type="checkbox" name="health_checks_disabled" value="true" class="checkbox checkbox-sm" checked/);
    has(textOf(form), /Skip destination health checks/);
    // An unticked checkbox is simply absent from the form post.
    await alice.send(
      'PUT',
      `/dashboard/links/${id}`,
      { url: 'https://opt-toggle.example.com/', visibility: 'public', expires_at: '' },
      { htmx: true },
    );
    assert.equal((await s.store.links.view(id))!.healthChecksDisabled, false);
    lacks((await alice.page(`/dashboard/links/${id}/edit`, { htmx: true })).body, /name="health_checks_disabled"[^>]*checked/);
  });

  test('detail header: expired and archived badges (archived wins), archive buttons only for CanEdit', async () => {
    const id = await make('dead-end', { visibility: 'secure', expiresAt: T0 + 60_000 });
    await addShare(s.store, id, bob.user!.id, alice.user!.id);
    now = T0 + 120_000;
    try {
      let d = await header(alice, id);
      has(d.header, /badge-warning">expired</);
      has(d.header, />Archive</);
      has(d.text, /Expired 1 minute ago/);
      has(d.header, /\/renew"/, 'the owner may renew from the page');
      const recipient = await header(bob, id);
      has(recipient.header, /badge-warning">expired</, 'share recipients see the badge too');
      lacks(recipient.main, />Archive<|>Unarchive<|\/renew"/);

      await setLifecycle(s.store, id, { archived: true });
      d = await header(alice, id);
      has(d.header, />archived</);
      lacks(d.header, />expired</, 'archived wins');
      has(d.header, />Unarchive</);
      assert.equal((await carol.send('POST', `/dashboard/links/${id}/unarchive`, {}, { htmx: true })).status, 403);
      assert.equal((await s.store.links.get(id))!.archivedAt !== null, true);
    } finally {
      now = T0;
    }
  });

  test('a renewed link whose destination is broken re-renders with the broken badge', async () => {
    const id = await make('renew-broken', { expiresAt: T0 + 60_000 });
    await fail3(id);
    now = T0 + 120_000;
    try {
      const dash = (await alice.page('/dashboard', { htmx: true })).body;
      const row = rowOf(dash, id);
      has(row, />expired</);
      lacks(row, />broken</, 'health is not surfaced for an expired link');
      const r = await alice.send('POST', `/dashboard/links/${id}/renew`, { from: 'dashboard' }, { htmx: true });
      assert.equal(r.status, 200);
      has(r.body, /broken<\/span>/);
      lacks(r.body, />expired</);
      assert.match(toastOf(r)?.message ?? '', /^Renewed go\/[a-z0-9-]+\. It no longer expires\.$/);
    } finally {
      now = T0;
    }
  });

  test('rows shared with a recipient and tag pages carry the badges; Renew only where the viewer may edit', async () => {
    const shared = await make('shared-old', { visibility: 'secure', tags: ['lifecycle'], expiresAt: T0 + 60_000 });
    await addShare(s.store, shared, bob.user!.id, alice.user!.id);
    const mine = await make('tagged-archived', { tags: ['lifecycle'] });
    await setLifecycle(s.store, mine, { archived: true });
    const othersPublic = (
      await createLink(
        s.store,
        { slug: 'carols-old', url: 'https://c.example.com/', tags: ['lifecycle'], expiresAt: T0 + 60_000 },
        carol.user!.id,
      )
    ).id;
    await make('tagged-live', { tags: ['lifecycle'] });
    now = T0 + 120_000;
    try {
      const sharedRow = rowOf((await bob.page('/dashboard?filter=shared', { htmx: true })).body, shared);
      has(sharedRow, />expired</);
      lacks(sharedRow, /Renew/);

      const ownerTag = mainOf((await alice.page('/dashboard/tags/lifecycle')).body);
      has(rowOf(ownerTag, shared), /Renew/);
      has(rowOf(ownerTag, mine), />archived</);
      lacks(ownerTag, new RegExp(`link-${othersPublic}`), "someone else's expired public link is not discoverable");

      const bobTag = mainOf((await bob.page('/dashboard/tags/lifecycle')).body);
      has(rowOf(bobTag, shared), />expired</);
      lacks(rowOf(bobTag, shared), /Renew/);
      lacks(bobTag, new RegExp(`link-${mine}`), "another user's archived link stays hidden");
    } finally {
      now = T0;
    }
  });

  test('public browser and profiles: no health data and no expired or archived links, for anyone', async () => {
    const broken = await make('public-broken', { tags: ['pub'] });
    await fail3(broken);
    await make('public-expiring', { expiresAt: T0 + 60_000 });
    now = T0 + 120_000;
    try {
      for (const c of [anonymous(s), alice, carol]) {
        for (const path of ['/links', '/u/alice']) {
          const main = mainOf((await c.page(path)).body);
          has(main, /public-broken/, `${path}: the broken link itself is listed`);
          lacks(main, />broken<|badge-error|Renew|public-expiring|tagged-archived|shared-old/, path);
        }
      }
    } finally {
      now = T0;
    }
  });
});
