import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestServer } from '../helpers/server.js';
import { anonymous, has, lacks, mainOf, signedIn, startWebServer, textOf, type Client, toastOf } from './support.js';
import { createLink, linkService, setLifecycle } from '../helpers/links.js';
import { asUser } from '../../src/links/index.js';

describe('admin screens (docs/web-ui.md#admin-screens, docs/lifecycle.md#badges-and-the-admin-report, docs/auth.md#local-mode-and-forward-auth)', () => {
  let s: TestServer;
  let admin: Client;
  let alice: Client;
  let bob: Client;
  before(async () => {
    s = await startWebServer({ env: { JOE_SHORT_KEYWORD: 'go', JOE_BASE_URL: 'https://go.example.com' } });
    admin = await signedIn(s, 'root@x.io', { name: 'Root', admin: true });
    alice = await signedIn(s, 'alice@x.io', { name: 'Alice' });
    bob = await signedIn(s, 'bob@x.io', { name: 'Bob' });
    await createLink(s.store, { slug: 'alpha', url: 'https://alpha.example', title: 'Alpha', tags: ['One'] }, alice.user!.id);
    await createLink(s.store, { slug: 'beta', url: 'https://beta.example', title: 'Beta', visibility: 'secure' }, bob.user!.id);
  });
  after(async () => s.stop());

  test('overview: three cards with counts and links', async () => {
    const main = mainOf((await admin.page('/admin')).body);
    has(main, /<h1[^>]*>Admin Dashboard<\/h1>/);
    const text = textOf(main);
    assert.match(text, /Total Users 3 Manage →/);
    assert.match(text, /Total Links 2 View →/);
    assert.match(text, /Keywords 0 Manage →/);
    for (const href of ['/admin/users', '/admin/links', '/admin/keywords']) has(main, new RegExp(`href="${href}"`));
  });

  test('users: rows by name with role select, no Delete on the own row; a role change re-renders the row and sets role_source manual', async () => {
    const main = mainOf((await admin.page('/admin/users')).body);
    const rows = [...main.matchAll(/<tr id="user-([^"]+)"[\s\S]*?<\/tr>/g)];
    assert.deepEqual(
      rows.map((r) => textOf(r[0]).split(' ')[1]),
      ['Alice', 'Bob', 'Root'],
    );
    const own = rows.find((r) => r[1] === admin.user!.id)![0];
    lacks(own, /confirm-delete/);
    has(rows.find((r) => r[1] === alice.user!.id)![0], /confirm-delete/);
    has(own, /New sign-in link/, 'local mode offers sign-in links');

    const r = await admin.send('PUT', `/admin/users/${alice.user!.id}/role`, { role: 'admin' }, { htmx: true });
    assert.equal(r.status, 200);
    has(r.body, new RegExp(`^<tr id="user-${alice.user!.id}"`));
    has(r.body, /<option value="admin" selected>admin<\/option>/);
    const stored = (await s.store.users.findById(alice.user!.id))!;
    assert.equal(stored.role, 'admin');
    assert.equal(stored.roleSource, 'manual');
    const bad = await admin.send('PUT', `/admin/users/${alice.user!.id}/role`, { role: 'owner' }, { htmx: true });
    assert.equal(bad.status, 400);
    assert.equal(bad.body, 'invalid role');
    const form = await admin.send('POST', `/admin/users/${alice.user!.id}/role`, { _method: 'PUT', role: 'user' });
    assert.equal(form.status, 303);
    assert.equal((await s.store.users.findById(alice.user!.id))!.role, 'user');
    assert.equal((await alice.send('PUT', `/admin/users/${bob.user!.id}/role`, { role: 'admin' }, { htmx: true })).status, 403);
  });

  test('delete user: the dialog counts primary links and offers reassign/delete; self and missing link_action are refused', async () => {
    const self = await admin.page(`/admin/users/${admin.user!.id}/confirm-delete`, { htmx: true });
    assert.equal(self.status, 400);
    assert.equal(self.body, 'cannot delete yourself');
    assert.equal((await admin.send('DELETE', `/admin/users/${admin.user!.id}`, {}, { htmx: true })).status, 400);
    const dialog = await admin.page(`/admin/users/${bob.user!.id}/confirm-delete`, { htmx: true });
    has(dialog.body, /Delete user\?/);
    has(dialog.body, /Bob \(bob@x.io\)/);
    has(dialog.body, /This user owns 1 link\./);
    has(dialog.body, /name="link_action" value="reassign" class="radio radio-sm" checked/);
    has(dialog.body, /Hand their links on[\s\S]*name="successor"[\s\S]*Delete all links/);
    has(dialog.body, /This action cannot be undone\./);
    has(dialog.body, />Delete User</);
    const missing = await admin.send('DELETE', `/admin/users/${bob.user!.id}`, {}, { htmx: true });
    assert.equal(missing.status, 400);
    assert.equal(missing.body, 'link_action required (reassign or delete)');
    assert.ok(await s.store.users.findById(bob.user!.id));
    const ok = await admin.send('DELETE', `/admin/users/${bob.user!.id}`, { link_action: 'reassign' }, { htmx: true });
    assert.equal(ok.status, 200);
    assert.equal(ok.body, '');
    assert.deepEqual(toastOf(ok), { level: 'success', message: 'Deleted the account of Bob. 1 link went to Root.' });
    assert.equal(await s.store.users.findById(bob.user!.id), null);
    const beta = (await s.store.links.getBySlug('beta'))!;
    assert.deepEqual(
      (await s.store.owners.list(beta.id)).map((o) => [o.email, o.isPrimary]),
      [['root@x.io', true]],
    );
  });

  test('delete user with a successor: the named person takes the links nobody else owns, the toast says where they went; an unknown successor changes nothing', async () => {
    const carol = await signedIn(s, 'carol@x.io', { name: 'Carol' });
    const dave = await signedIn(s, 'dave@x.io', { name: 'Dave' });
    await createLink(s.store, { slug: 'gamma', url: 'https://gamma.example' }, carol.user!.id);
    await createLink(s.store, { slug: 'delta', url: 'https://delta.example' }, carol.user!.id);
    const unknown = await admin.send(
      'DELETE',
      `/admin/users/${carol.user!.id}`,
      { link_action: 'reassign', successor: 'nobody@x.io' },
      { htmx: true },
    );
    assert.equal(unknown.status, 404);
    assert.match(toastOf(unknown)!.message, /Nobody with that successor email has signed in yet/);
    assert.ok(await s.store.users.findById(carol.user!.id), 'nothing changed');
    const ok = await admin.send(
      'DELETE',
      `/admin/users/${carol.user!.id}`,
      { link_action: 'reassign', successor: 'DAVE@x.io ' },
      { htmx: true },
    );
    assert.equal(ok.status, 200);
    assert.deepEqual(toastOf(ok), { level: 'success', message: 'Deleted the account of Carol. 2 links went to Dave.' });
    for (const slug of ['gamma', 'delta']) {
      const l = (await s.store.links.getBySlug(slug))!;
      assert.deepEqual(
        (await s.store.owners.list(l.id)).map((o) => o.email),
        ['dave@x.io'],
      );
    }
    // "Delete all links" ignores a successor typed before the choice changed.
    await createLink(s.store, { slug: 'epsilon', url: 'https://epsilon.example' }, dave.user!.id);
    const del = await admin.send(
      'DELETE',
      `/admin/users/${dave.user!.id}`,
      { link_action: 'delete', successor: 'root@x.io' },
      { htmx: true },
    );
    assert.equal(del.status, 200);
    assert.deepEqual(toastOf(del), { level: 'success', message: 'Deleted the account of Dave. 3 links deleted.' });
    assert.equal(await s.store.links.getBySlug('gamma'), null);
  });

  test('delete user who owns no links but manages a group alone: the dialog offers a successor, who takes the group over', async () => {
    const eve = await signedIn(s, 'eve@x.io', { name: 'Eve' });
    await linkService(s.store).createGroup(asUser(eve.user!), { name: 'evening' });
    const dialog = await admin.page(`/admin/users/${eve.user!.id}/confirm-delete`, { htmx: true });
    has(dialog.body, /This user owns 0 links\./);
    lacks(dialog.body, /name="link_action"/);
    has(dialog.body, /They are the only manager of 1 group\. A successor named here takes it over; without one, only admins manage it\./);
    has(dialog.body, /name="successor"/);
    const ok = await admin.send('DELETE', `/admin/users/${eve.user!.id}`, { successor: 'alice@x.io' }, { htmx: true });
    assert.equal(ok.status, 200);
    assert.deepEqual(toastOf(ok), { level: 'success', message: 'Deleted the account of Eve. Alice now manages 1 group.' });
    const group = (await s.store.groups.byName('evening'))!;
    assert.equal(await s.store.groups.role(group.id, alice.user!.id), 'manager');
  });

  test('local mode: "Add user" creates the account and shows its one-time sign-in link once; every row can issue a new one', async () => {
    const r = await admin.send('POST', '/admin/users', { email: 'dana@x.io', name: 'Dana', role: 'user' }, { htmx: true });
    assert.equal(r.status, 200);
    has(r.body, /^<div id="users-section"/);
    const url = /value="(https:\/\/go\.example\.com\/auth\/local\?token=[A-Za-z0-9_-]{43})"/.exec(r.body)?.[1];
    assert.ok(url, 'the sign-in URL is shown');
    has(r.body, /Copy it now — it will not be shown again/);
    has(r.body, new RegExp(`data-copy="${url!.replace(/[?.]/g, '\\$&')}"`));
    const dana = (await s.store.users.findByEmail('dana@x.io'))!;
    assert.equal(dana.provider, 'local');
    assert.equal((await s.store.loginTokens.peek(new URL(url!).searchParams.get('token')!))!.id, dana.id);
    lacks((await admin.page('/admin/users')).body, /auth\/local\?token=/, 'a reload never shows it again');
    const dup = await admin.send('POST', '/admin/users', { email: 'dana@x.io' }, { htmx: true });
    has(dup.body, /already exists/);
    has((await admin.send('POST', '/admin/users', { email: '' }, { htmx: true })).body, /Email is required\./);

    const fresh = await admin.send('POST', `/admin/users/${dana.id}/sign-in-link`, {}, { htmx: true });
    has(fresh.body, /^<dialog/);
    has(fresh.body, /https:\/\/go\.example\.com\/auth\/local\?token=/);
    assert.equal((await alice.send('POST', `/admin/users/${dana.id}/sign-in-link`, {}, { htmx: true })).status, 403);
  });

  test('links: all links in the one link list with the owner column and a count; the one search rule', async () => {
    const r = await admin.page('/admin/links');
    const main = mainOf(r.body);
    has(main, /<h1[^>]*>All Links<\/h1>/);
    has(main, />2 links</);
    has(main, />1–2 of 2 links</);
    for (const col of ['Link', 'Status', 'Owner', 'Clicks \\(30 days\\)', 'Last clicked'])
      has(main, new RegExp(`<th scope="col"[^>]*>\\s*${col}\\s*</th>`));
    has(main, /placeholder="Search by slug, URL, title, description or owner..."/);
    const byOwner = await admin.page('/admin/links?q=alic', { htmx: true });
    has(byOwner.body, /^<div id="admin-link-list"/);
    has(byOwner.body, />1 link</);
    has(byOwner.body, />alpha</);
    has((await admin.page('/admin/links?q=beta.example', { htmx: true })).body, />beta</);
  });

  test('inline edit: edit row, a bad URL keeps the row with an error toast and changes nothing, Save returns the read-only row', async () => {
    const alpha = (await s.store.links.getBySlug('alpha'))!;
    const edit = await admin.page(`/admin/links/${alpha.id}/edit`, { htmx: true });
    has(edit.body, new RegExp(`^<tr id="link-${alpha.id}"`));
    has(edit.body, /name="url"[^>]*value="https:\/\/alpha.example"|value="https:\/\/alpha.example"[^>]*name="url"/);
    has(edit.body, /go\/<\/span><span class="link-brand font-semibold">alpha/);
    lacks(edit.body, /name="expires_at"|name="slug"/);
    const cases: Array<[string, string]> = [
      ['ftp://x', 'url must start with http:// or https://'],
      ['', 'URL is required.'],
      ['https://x.example/$a/$a', 'duplicate variable name'],
    ];
    for (const [url, message] of cases) {
      const bad = await admin.send(
        'PUT',
        `/admin/links/${alpha.id}`,
        { url: url!, title: 'Changed', visibility: 'private' },
        { htmx: true },
      );
      assert.equal(bad.status, 200);
      has(bad.body, new RegExp(`^<tr id="link-${alpha.id}"`), 'still the edit row');
      has(
        bad.body,
        url === '' ? /name="url" type="text" inputmode="url" value(?:="")? / : new RegExp(`value="${url!.replace(/[$/.]/g, '\\$&')}"`),
        'with what was typed',
      );
      assert.equal(toastOf(bad)?.level, 'error');
      assert.ok(toastOf(bad)?.message.startsWith(message), 'the reason as an error toast');
      const unchanged = (await s.store.links.get(alpha.id))!;
      assert.equal(unchanged.url, 'https://alpha.example');
      assert.equal(unchanged.title, 'Alpha');
    }
    const ok = await admin.send(
      'PUT',
      `/admin/links/${alpha.id}`,
      { url: 'https://alpha2.example', title: 'Alpha 2', description: 'd', visibility: 'nonsense' },
      { htmx: true },
    );
    has(ok.body, new RegExp(`^<tr id="link-${alpha.id}" class="[^"]*" data-link-row`));
    lacks(ok.body, /<input/);
    const saved = (await s.store.links.get(alpha.id))!;
    assert.equal(saved.url, 'https://alpha2.example');
    assert.equal(saved.visibility, 'public', 'an invalid visibility leaves the stored one');
    assert.ok(saved.updatedAt >= alpha.updatedAt);
    const row = await admin.page(`/admin/links/${alpha.id}/row`, { htmx: true });
    has(row.body, new RegExp(`^<tr id="link-${alpha.id}"`));
    assert.equal((await alice.page(`/admin/links/${alpha.id}/edit`, { htmx: true })).status, 403);
  });

  test('admin link delete goes through the confirm dialog and answers only the toast', async () => {
    const l = await createLink(s.store, { slug: 'gamma', url: 'https://g.example' }, alice.user!.id);
    const confirm = await admin.page(`/admin/links/${l.id}/confirm-delete`, { htmx: true });
    has(confirm.body, new RegExp(`hx-delete="/admin/links/${l.id}" hx-target="#link-${l.id}"`));
    const del = await admin.send('DELETE', `/admin/links/${l.id}`, {}, { htmx: true });
    assert.equal(del.body, '');
    assert.deepEqual(toastOf(del), { level: 'success', message: 'Deleted go/gamma.' });
    assert.equal(await s.store.links.get(l.id), null);
  });

  test('keywords: every error message, nothing created on error; create and delete through the dialog', async () => {
    const post = (fields: Record<string, string>) => admin.send('POST', '/admin/keywords', fields, { htmx: true });
    const cases: Array<[Record<string, string>, string]> = [
      [{ keyword: ' ', url_template: 'https://x/{slug}' }, 'Keyword and URL template are required.'],
      [
        { keyword: 'Jira', url_template: 'https://x/{slug}' },
        'Keyword must be lowercase letters, digits, and hyphens (e.g. jira, my-tool).',
      ],
      [{ keyword: 'jira', url_template: 'https://x/' }, 'URL template must contain {slug} placeholder.'],
    ];
    for (const [fields, message] of cases) {
      const r = await post(fields);
      has(r.body, /^<div id="keywords-section"/);
      assert.ok(textOf(r.body).includes(message), message);
    }
    assert.deepEqual(await s.store.keywords.list(), []);
    const ok = await post({ keyword: '  jira ', url_template: ' https://jira.example/browse/{slug} ', description: 'Tickets' });
    has(ok.body, /<td class="font-mono font-semibold">jira<\/td>/, 'inputs are trimmed');
    assert.ok(textOf(ok.body).includes('https://jira.example/browse/{slug}'), 'the trimmed template is listed');
    assert.ok(
      textOf((await post({ keyword: 'jira', url_template: 'https://j/{slug}' })).body).includes('A keyword with that name already exists.'),
    );
    assert.equal((await s.store.keywords.list()).length, 1);
    const k = (await s.store.keywords.list())[0]!;
    const confirm = await admin.page(`/admin/keywords/${k.id}/confirm-delete`, { htmx: true });
    has(confirm.body, /Delete &#39;jira&#39;\?|Delete 'jira'\?/);
    has(confirm.body, new RegExp(`hx-target="#keyword-${k.id}"`));
    const del = await admin.send('DELETE', `/admin/keywords/${k.id}`, {}, { htmx: true });
    assert.equal(del.status, 200);
    assert.equal(del.body, '');
    has(mainOf((await admin.page('/admin/keywords')).body), /No keywords configured\./);
    assert.equal((await admin.page(`/admin/keywords/${k.id}/confirm-delete`, { htmx: true })).status, 404);
  });

  test('link health: broken, surfaced links only, most failures first, with status, owner and time; an empty report says so', async () => {
    const empty = mainOf((await admin.page('/admin/link-health')).body);
    has(empty, /0 broken links/);
    has(empty, /No broken links/);
    const mk = async (slug: string, failures: number, opts: { optOut?: boolean; archived?: boolean; url?: string } = {}) => {
      const l = await createLink(s.store, { slug, url: opts.url ?? `https://${slug}.example` }, alice.user!.id, {
        healthChecksDisabled: opts.optOut,
      });
      for (let i = 0; i < failures; i++)
        await s.store.health.record(
          l.id,
          { kind: 'failure', status: i === failures - 1 ? 503 : null, error: 'connect ECONNREFUSED' },
          3_600_000,
        );
      if (opts.archived) await setLifecycle(s.store, l.id, { archived: true });
      return l;
    };
    await mk('dead-one', 3);
    await mk('dead-two', 5);
    await mk('flaky', 2);
    await mk('muted', 4, { optOut: true });
    await mk('retired', 4, { archived: true });
    const main = mainOf((await admin.page('/admin/link-health')).body);
    has(main, /2 broken links/);
    const order = [...main.matchAll(/<a class="font-mono[^"]*" href="\/dashboard\/links\/[^"]+">([^<]+)<\/a>/g)].map((m) => m[1]);
    assert.deepEqual(order, ['dead-two', 'dead-one']);
    has(main, />503</);
    has(main, />Alice</);
    has(main, /\d{1,2}:\d{2} [AP]M UTC/);
    assert.equal((await alice.page('/admin/link-health')).status, 403);
    assert.equal((await anonymous(s).page('/admin/link-health')).status, 302);
  });
});
