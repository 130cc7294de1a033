import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestServer } from '../helpers/server.js';
import { anonymous, flashOf, has, lacks, mainOf, signedIn, startWebServer, textOf, toastOf, triggers, type Client } from './support.js';
import { addShare, setLifecycle } from '../helpers/links.js';

const T0 = Date.parse('2030-06-01T12:00:00Z');

describe('link forms, detail, co-owners, shares, delete and lifecycle (docs/web-ui.md#link-forms, docs/web-ui.md#link-detail-page, docs/web-ui.md#confirm-delete-dialogs, docs/lifecycle.md#archive, docs/lifecycle.md#renewal)', () => {
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

  const create = (c: Client, slug: string, extra: Record<string, string> = {}) =>
    c.send('POST', '/dashboard/links', { slug, url: `https://example.com/${slug}`, ...extra }, { htmx: true });
  const linkId = async (slug: string) => (await s.store.links.getBySlug(slug))!.id;

  test('a valid create from the modal answers 200, empty, HX-Trigger linkCreated and a toast to copy the link; a plain form gets 303 /dashboard', async () => {
    const r = await create(alice, 'jira', {
      title: 'Jira',
      description: 'Tickets',
      visibility: 'private',
      tags: 'Engineering, tools , engineering',
      health_checks_disabled: 'true',
      expires_at: '2031-01-02T03:04:05',
    });
    assert.equal(r.status, 200);
    assert.equal(r.body, '');
    const link = (await s.store.links.view(await linkId('jira')))!;
    assert.deepEqual(triggers(r).linkCreated, { id: link.id }, 'the list marks the new row');
    assert.deepEqual(toastOf(r), { level: 'success', message: 'Created go/jira.', copy: `${s.url}/jira` });
    assert.equal(link.visibility, 'private');
    assert.deepEqual(
      link.tags.map((t) => t.name),
      ['Engineering', 'tools'],
    );
    assert.equal(link.healthChecksDisabled, true);
    assert.equal(link.expiresAt, Date.parse('2031-01-02T03:04:05Z'), 'the form value is read as UTC');
    assert.deepEqual(
      link.owners.map((o) => [o.email, o.isPrimary]),
      [['alice@x.io', true]],
    );

    const plain = await alice.send('POST', '/dashboard/links', { slug: 'wiki', url: 'https://wiki.example.com' });
    assert.equal(plain.status, 303);
    assert.equal(plain.header('location'), '/dashboard');
    assert.deepEqual(flashOf(plain), { level: 'success', message: 'Created go/wiki.' }, 'the next page says so');
    const next = await alice.page('/dashboard', {
      headers: { cookie: `${alice.cookie}; flash=${plain.header('set-cookie')!.split(';')[0]!.slice(6)}` },
    });
    has(
      next.body,
      /<div id="toast-area"[^>]*><div class="alert alert-success[^"]*" role="status" data-toast="true">[\s\S]*?<span>Created go\/wiki\.<\/span>/,
    );
    has(next.header('set-cookie') ?? '', /^flash=; Max-Age=0/, 'shown once');
    assert.equal((await s.store.links.getBySlug('wiki'))!.visibility, 'public', 'empty visibility means public');
  });

  test('checks run in order, the first failure shows beside its field, the input is kept and nothing is saved', async () => {
    const cases: Array<[Record<string, string>, string, string]> = [
      [
        { slug: 'Bad Slug!', url: 'ftp://x', title: 'x'.repeat(201) },
        'link-slug-error',
        'A short name uses lowercase letters, digits and hyphens, and starts and ends with a letter or digit.',
      ],
      [{ slug: 'admin', url: 'https://a.example' }, 'link-slug-error', "'admin' is used by the app. Choose another name."],
      [{ slug: 'ok-one', url: 'ftp://files.example', title: 'x'.repeat(201) }, 'link-url-error', 'url must start with http:// or https://'],
      [
        { slug: 'ok-one', url: 'https://x.example/$a/$a', title: 'x'.repeat(201) },
        'link-url-error',
        'duplicate variable name in URL template: $a',
      ],
      [
        { slug: 'ok-one', url: 'https://x.example', title: 'x'.repeat(201), tags: '<b>' },
        'link-title-error',
        'title must be at most 200 characters',
      ],
      [
        { slug: 'ok-one', url: 'https://x.example', description: 'd'.repeat(2001) },
        'link-description-error',
        'description must be at most 2000 characters',
      ],
      [
        { slug: 'ok-one', url: 'https://x.example', tags: 'fine, <script>', visibility: 'bogus' },
        'link-tags-error',
        'tag names must start with a letter or digit',
      ],
      [
        { slug: 'ok-one', url: 'https://x.example', visibility: 'bogus', expires_at: 'soon' },
        'link-visibility-error',
        'visibility must be one of: public, private, secure, internal',
      ],
      [
        { slug: 'ok-one', url: 'https://x.example', expires_at: 'tomorrow' },
        'link-expires-error',
        'expiration must be a date and time (UTC)',
      ],
      [
        { slug: 'ok-one', url: 'https://x.example', expires_at: '2030-06-01T12:00:00' },
        'link-expires-error',
        'expiration must be in the future',
      ],
    ];
    for (const [fields, errorId, message] of cases) {
      const r = await alice.send('POST', '/dashboard/links', { ...fields, title: fields.title ?? 'My title' }, { htmx: true });
      assert.equal(r.status, 200, `${message}: HTMX swaps the form in place`);
      has(r.body, /^<form /, 'only the form comes back');
      const error = new RegExp(`<p id="${errorId}"[^>]*role="alert"[^>]*>[\\s\\S]*?</p>`).exec(r.body);
      assert.ok(error, `${message}: shown beside its field (${errorId})`);
      assert.ok(textOf(error[0]).includes(message), `${message} in ${textOf(error[0])}`);
      assert.equal(r.body.match(/role="alert"/g)!.length, 1, 'one message only');
      has(r.body, new RegExp(`value="${fields.url!.replace(/[$/.?*+]/g, '\\$&')}"`), 'the URL is kept');
      assert.equal(await s.store.links.getBySlug('ok-one'), null, 'nothing saved');
    }
    const page = await alice.send('POST', '/dashboard/links', { slug: 'Nope', url: 'https://kept.example/page' });
    assert.equal(page.status, 400, 'a plain form gets the page again with 400');
    has(mainOf(page.body), /<h1[^>]*>New link<\/h1>/);
    has(page.body, /value="https:\/\/kept.example\/page"/);
    has(
      page.body,
      /<button type="button" class="[^"]*js-only" data-slug-suggestion="nope">Use nope<\/button>/,
      'the slug meant, one click away',
    );
    has(page.body, /<span class="no-js-only">Try <span class="font-mono">nope<\/span>\.<\/span>/, 'and in words without JavaScript');
    lacks(page.body, /reserved:|\[a-z0-9\]/, 'no rule syntax, no list of reserved names');
  });

  test('a taken slug keeps the modal open with the taken message and the URL', async () => {
    await create(alice, 'taken');
    const r = await alice.send('POST', '/dashboard/links', { slug: 'taken', url: 'https://another.example/x' }, { htmx: true });
    assert.equal(r.status, 200);
    has(r.body, /go\/taken is taken\. Choose another name\./);
    has(r.body, /<a class="link link-brand" href="\/taken"[^>]*>Open it<\/a>/);
    has(r.body, /value="https:\/\/another.example\/x"/);
    const archivedId = await linkId('taken');
    await setLifecycle(s.store, archivedId, { archived: true });
    const again = await alice.send('POST', '/dashboard/links', { slug: 'taken', url: 'https://another.example/x' }, { htmx: true });
    has(again.body, /go\/taken is taken/, 'an archived link keeps its slug');
  });

  test('the live slug check: empty, format with the slug meant, reserved, taken with a way to it, available', async () => {
    const check = async (slug: string) => (await alice.page(`/dashboard/links/validate-slug?slug=${encodeURIComponent(slug)}`)).body;
    assert.equal(await check(''), '');
    const bad = await check('Bad Slug!');
    has(bad, /class="error-text">A short name uses lowercase letters, digits and hyphens/);
    has(bad, /data-slug-suggestion="bad-slug">Use bad-slug<\/button>/);
    lacks(await check('!!!'), /data-slug-suggestion/, 'nothing usable to suggest');
    has(await check('links'), /'links' is used by the app\. Choose another name\./);
    lacks(await check('links'), /admin|dashboard/, 'the reserved list is not dumped');
    has(await check('jira'), /class="error-text">go\/jira is taken — <a class="link" href="\/jira"[^>]*>open it<\/a>/);
    has(await check('brand-new'), /class="success-text[^"]*"[\s\S]*Available!/);
    assert.equal((await anonymous(s).page('/dashboard/links/validate-slug?slug=x')).status, 302);
  });

  test('new-link page and modal: the modal for HTMX, the page with its help panel otherwise; ?slug pre-fills', async () => {
    const modal = await alice.page('/dashboard/links/new?slug=from-404', { htmx: true });
    has(modal.body, /^<dialog class="modal[^"]*" data-modal/);
    has(modal.body, /Create a new link/);
    has(modal.body, /name="slug"[^>]*value="from-404"|value="from-404"[^>]*name="slug"/);
    has(modal.body, /hx-post="\/dashboard\/links"/);
    has(modal.body, /<span class="text-base-content\/70 select-none">go\/<\/span>/, 'slug prefixed with the keyword');
    for (const label of [
      'Public — anyone can access',
      'Private — hidden from browsing',
      'Secure — requires login \\+ grant',
      'Skip destination health checks',
      'Destination URL',
    ])
      has(modal.body, new RegExp(label));
    has(modal.body, /type="datetime-local" step="1"/);
    const page = await alice.page('/dashboard/links/new');
    has(mainOf(page.body), /How it works/);
    has(mainOf(page.body), /<form method="post" action="\/dashboard\/links"/);
    lacks(mainOf(page.body), /hx-post=/, 'the page form is a plain form (303 on success)');
  });

  test('tag autocomplete: prefix matches the viewer may see, at most 10, a 0-byte body otherwise', async () => {
    await create(bob, 'bob-secret', { visibility: 'private', tags: 'engage-private' });
    await create(bob, 'bob-public', { tags: 'engine' });
    for (let i = 0; i < 12; i++) await create(alice, `many-${i}`, { tags: `en-${String(i).padStart(2, '0')}` });
    const r = await alice.page('/dashboard/tags/suggest?q=EN');
    const names = [...r.body.matchAll(/data-tag="([^"]*)"/g)].map((m) => m[1]);
    assert.equal(names.length, 10);
    assert.ok(!names.includes('engage-private'), "another user's private tag is never suggested");
    has((await alice.page('/dashboard/tags/suggest?q=engi')).body, /data-tag="engine"/, 'public links tags are');
    has((await bob.page('/dashboard/tags/suggest?q=engage')).body, /data-tag="engage-private"/);
    has((await admin.page('/dashboard/tags/suggest?q=engage')).body, /data-tag="engage-private"/, 'admins see every tag');
    assert.equal((await alice.page('/dashboard/tags/suggest?q=zzz')).body, '');
    assert.equal((await alice.page('/dashboard/tags/suggest?q=')).body, '');
  });

  test('edit form: pre-filled, tags joined, expiry with seconds, slug shown but never submitted; unknown → 404, no CanEdit → 403', async () => {
    const id = await linkId('jira');
    const modal = await alice.page(`/dashboard/links/${id}/edit`, { htmx: true });
    has(modal.body, /Edit jira/);
    has(modal.body, /value="Engineering, tools"/);
    has(modal.body, /name="expires_at" type="datetime-local" step="1" value="2031-01-02T03:04:05"/);
    has(modal.body, /<input id="link-slug" type="text" value="jira" disabled/);
    lacks(modal.body, /name="slug"/);
    has(modal.body, /hx-put="\/dashboard\/links\//);
    assert.equal((await alice.page('/dashboard/links/00000000-0000-4000-8000-000000000000/edit')).status, 404);
    assert.equal((await alice.page('/dashboard/links/not-an-id/edit')).status, 404);
    assert.equal((await bob.page(`/dashboard/links/${id}/edit`)).status, 403);
    const page = await alice.page(`/dashboard/links/${id}/edit`);
    has(page.body, /<input type="hidden" name="_method" value="PUT"\/>/, 'plain forms reach PUT through _method');
  });

  test('update: slug ignored, empty visibility keeps the stored one, HTMX gets linkUpdated, a form gets 303 to the detail page', async () => {
    const id = await linkId('jira');
    const r = await alice.send(
      'PUT',
      `/dashboard/links/${id}`,
      { slug: 'other', url: 'https://jira.example.com', title: 'Jira 2', visibility: '', tags: 'ops', expires_at: '2031-01-02T03:04:05' },
      { htmx: true },
    );
    assert.equal(r.status, 200);
    assert.deepEqual(triggers(r).linkUpdated, { id });
    assert.deepEqual(toastOf(r), { level: 'success', message: 'Saved go/jira.' });
    let link = (await s.store.links.view(id))!;
    assert.equal(link.slug, 'jira');
    assert.equal(link.title, 'Jira 2');
    assert.equal(link.visibility, 'private');
    assert.equal(link.healthChecksDisabled, false, 'an unchecked box turns the opt-out off');
    assert.deepEqual(
      link.tags.map((t) => t.name),
      ['ops'],
    );
    assert.equal(await s.store.links.getBySlug('other'), null);

    const form = await alice.send('POST', `/dashboard/links/${id}`, {
      _method: 'PUT',
      url: 'https://jira.example.com/new',
      visibility: 'public',
      expires_at: '',
    });
    assert.equal(form.status, 303);
    assert.equal(form.header('location'), `/dashboard/links/${id}`);
    assert.equal(flashOf(form)?.message, 'Saved go/jira.');
    link = (await s.store.links.view(id))!;
    assert.equal(link.url, 'https://jira.example.com/new');
    assert.equal(link.expiresAt, null, 'emptying the field clears the expiry');
  });

  test('a save from a form opened before someone else’s save is refused with the edits kept and a way to the current version', async () => {
    await create(alice, 'two-tabs', { url: 'https://example.com/first' });
    const id = await linkId('two-tabs');
    const versionIn = (body: string) => /name="version" value="([^"]+)"/.exec(body)?.[1];
    const tabA = versionIn((await alice.page(`/dashboard/links/${id}/edit`)).body);
    const tabB = versionIn((await alice.page(`/dashboard/links/${id}/edit`)).body);
    assert.ok(tabA && tabA === tabB, 'both tabs hold the same version');

    const saved = await alice.send('POST', `/dashboard/links/${id}`, { _method: 'PUT', url: 'https://example.com/from-a', version: tabA });
    assert.equal(saved.status, 303);

    const stale = await alice.send('POST', `/dashboard/links/${id}`, { _method: 'PUT', url: 'https://example.com/from-b', version: tabB });
    assert.equal(stale.status, 412);
    has(stale.body, /Someone changed this link after you opened this form, so your changes were not saved/);
    has(stale.body, new RegExp(`href="/dashboard/links/${id}/edit"[^>]*>Open the current version`));
    has(stale.body, /value="https:\/\/example.com\/from-b"/, 'the edits are kept in the form');
    assert.equal((await s.store.links.view(id))!.url, 'https://example.com/from-a', 'nothing saved over the first save');

    const fresh = versionIn((await alice.page(`/dashboard/links/${id}/edit`)).body);
    assert.notEqual(fresh, tabA);
    const again = await alice.send('POST', `/dashboard/links/${id}`, {
      _method: 'PUT',
      url: 'https://example.com/from-b',
      version: fresh!,
    });
    assert.equal(again.status, 303);
    assert.equal((await s.store.links.view(id))!.url, 'https://example.com/from-b');
  });

  test('an expired link stays editable when its stored expiry comes back unchanged; a new past expiry is refused', async () => {
    await create(alice, 'short-lived', { expires_at: '2030-06-01T12:00:30' });
    const id = await linkId('short-lived');
    now = T0 + 60_000;
    try {
      const ok = await alice.send(
        'PUT',
        `/dashboard/links/${id}`,
        { url: 'https://changed.example', expires_at: '2030-06-01T12:00:30' },
        { htmx: true },
      );
      assert.ok(triggers(ok).linkUpdated);
      assert.equal((await s.store.links.get(id))!.expiresAt, Date.parse('2030-06-01T12:00:30Z'));
      const bad = await alice.send(
        'PUT',
        `/dashboard/links/${id}`,
        { url: 'https://changed.example/2', expires_at: '2030-06-01T12:00:45' },
        { htmx: true },
      );
      has(bad.body, /expiration must be in the future/);
      assert.equal((await s.store.links.get(id))!.url, 'https://changed.example', 'nothing saved');
    } finally {
      now = T0;
    }
  });

  test('nobody but an owner or admin can edit: a share recipient and a stranger get 403 and nothing changes', async () => {
    await create(alice, 'vault', { visibility: 'secure' });
    const id = await linkId('vault');
    await addShare(s.store, id, bob.user!.id, alice.user!.id);
    for (const c of [bob, carol]) {
      const r = await c.send('PUT', `/dashboard/links/${id}`, { url: 'https://evil.example', expires_at: '' }, { htmx: true });
      assert.equal(r.status, 403);
      has(r.header('hx-trigger') ?? '', /showToast/);
      for (const path of ['archive', 'unarchive', 'renew'])
        assert.equal((await c.send('POST', `/dashboard/links/${id}/${path}`)).status, 403, path);
      assert.equal((await c.send('DELETE', `/dashboard/links/${id}`, {}, { htmx: true })).status, 403);
      assert.equal((await c.send('POST', `/dashboard/links/${id}/owners`, { email: 'carol@x.io' })).status, 403);
    }
    assert.equal((await s.store.links.get(id))!.url, 'https://example.com/vault');
    const edited = await admin.send('PUT', `/dashboard/links/${id}`, { url: 'https://admin.example', expires_at: '' }, { htmx: true });
    assert.equal(edited.status, 200, 'an admin may edit any link');
  });

  test('detail page: short link with keyword, copy button, QR code and its download; 404 for unknown, 403 for strangers', async () => {
    await create(alice, 'docs', { title: 'Docs', description: 'All the docs', tags: 'help' });
    const id = await linkId('docs');
    const r = await alice.page(`/dashboard/links/${id}`);
    const main = mainOf(r.body);
    has(main, /<span class="text-base-content\/70">go\/<\/span><span class="link-brand font-semibold">docs<\/span>/);
    const origin = s.url;
    has(main, new RegExp(`data-copy="${origin}/docs" data-copy-toast="Link copied!"`));
    has(main, /Copy go-link/);
    has(main, /role="img" aria-label="QR code for [^"]*\/docs"><svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    has(main, new RegExp(`href="/dashboard/links/${id}/qr.svg" download="docs-qr.svg"`));
    has(main, /href="\/dashboard\/tags\/help"/);
    has(textOf(main), /Created [A-Z][a-z]{2} \d{1,2}, \d{4} \d{1,2}:\d{2} [AP]M UTC · Updated/);
    has(main, /Created <time datetime="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"/, 'a docs/analytics.md#timestamps <time> element');
    const qr = await alice.page(`/dashboard/links/${id}/qr.svg`);
    assert.equal(qr.status, 200);
    has(qr.header('content-type') ?? '', /^image\/svg\+xml/);
    assert.equal(qr.header('content-disposition'), 'attachment; filename="docs-qr.svg"');
    has(qr.body, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    lacks(qr.body, /<text|docs/, 'the SVG holds geometry only');

    assert.equal((await alice.page('/dashboard/links/00000000-0000-4000-8000-000000000000')).status, 404);
    const stranger = await carol.page(`/dashboard/links/${id}`);
    assert.equal(stranger.status, 403, 'a public link still has a private detail page');
    lacks(mainOf(stranger.body), /docs/);
    assert.equal((await carol.page(`/dashboard/links/${id}/qr.svg`)).status, 403);
  });

  test('a secure link hides nothing from the 404/403 split: unknown ids are 404, existing ones 403, with identical pages otherwise', async () => {
    const id = await linkId('vault');
    const forbidden = await carol.page(`/dashboard/links/${id}`);
    assert.equal(forbidden.status, 403);
    lacks(forbidden.body, /vault|alice@x.io/);
    const missing = await carol.page('/dashboard/links/00000000-0000-4000-8000-000000000000');
    assert.equal(missing.status, 404);
  });

  test('owners and the share panel: shown with CanManageShares (shares only for secure); read-only for a share recipient', async () => {
    const vault = await linkId('vault');
    const owner = mainOf((await alice.page(`/dashboard/links/${vault}`)).body);
    has(owner, /id="owners-section"/);
    has(owner, /hx-post="\/dashboard\/links\/[^"]+\/owners"/);
    has(owner, /id="shares-panel"/);
    has(owner, /Bob/);
    for (const control of ['Edit', 'Archive', 'Delete']) has(owner, new RegExp(`>${control}<`));
    const docs = await linkId('docs');
    lacks(mainOf((await alice.page(`/dashboard/links/${docs}`)).body), /id="shares-panel"/, 'no panel on a public link');
    const recipient = await bob.page(`/dashboard/links/${vault}`);
    assert.equal(recipient.status, 200);
    const main = mainOf(recipient.body);
    has(main, /id="owners-section"/);
    lacks(main, /id="shares-panel"|\/owners"|Remove|>Edit<|>Archive<|>Delete</);
    has(main, />Stats</);
  });

  test('adding and removing co-owners: each message, co-owners may add more, the primary owner stays', async () => {
    const id = await linkId('docs');
    const add = (c: Client, email: string) => c.send('POST', `/dashboard/links/${id}/owners`, { email }, { htmx: true });
    // A refusal is said beside the email field, which keeps what was typed.
    has((await add(alice, '')).body, /<p id="owner-email-error"[^>]*>[\s\S]*Enter an email address\./);
    const unknown = await add(alice, 'nobody@x.test');
    has(unknown.body, /Nobody with that email has signed in yet\. They need to sign in once first\./);
    has(unknown.body, /value="nobody@x.test"/);
    const ok = await add(alice, 'bob@x.io');
    assert.equal(ok.status, 200);
    has(ok.body, /^<section id="owners-section"/);
    has(ok.body, /bob@x.io/);
    assert.deepEqual(toastOf(ok), { level: 'success', message: 'Bob is now a co-owner.' });
    // Adding someone again is no error: a calm note beside them, no toast, nothing changed.
    const again = await add(alice, 'BOB@x.io');
    assert.equal(again.status, 200);
    has(again.body, /<li class="[^"]*member-noticed">[\s\S]*?bob@x.io[\s\S]*?role="status"[^>]*>[\s\S]*?Bob is already an owner\./);
    lacks(again.body, /role="alert"/);
    assert.equal(toastOf(again), null);
    const byCoOwner = await add(bob, 'carol@x.io');
    has(byCoOwner.body, /carol@x.io/, 'a co-owner manages owners too');
    const primary = await bob.send('DELETE', `/dashboard/links/${id}/owners/${alice.user!.id}`, {}, { htmx: true });
    assert.equal(primary.status, 400);
    assert.equal(primary.body, 'Cannot remove primary owner');
    const removed = await alice.send('DELETE', `/dashboard/links/${id}/owners/${carol.user!.id}`, {}, { htmx: true });
    lacks(removed.body, /carol@x.io/);
    assert.equal(toastOf(removed)?.message, 'Carol is no longer a co-owner.');
    const form = await alice.send('POST', `/dashboard/links/${id}/owners/${bob.user!.id}`, { _method: 'DELETE' });
    assert.equal(form.status, 303, 'a plain form goes back to the detail page');
    assert.equal(flashOf(form)?.message, 'Bob is no longer a co-owner.');
    assert.deepEqual(
      (await s.store.owners.list(id)).map((o) => o.email),
      ['alice@x.io'],
    );
  });

  test('shares: add by email with the acting user as grantor, every message, remove', async () => {
    const id = await linkId('vault');
    const add = (email: string) => alice.send('POST', `/dashboard/links/${id}/shares`, { email }, { htmx: true });
    has((await add('')).body, /Enter an email address\./);
    has((await add('nobody@x.test')).body, /Nobody with that email has signed in yet\./);
    const dup = await add('bob@x.io');
    assert.equal(dup.status, 200, 'already shared is no error');
    has(dup.body, /<li class="[^"]*member-noticed">[\s\S]*?bob@x.io[\s\S]*?Bob already has access\./);
    lacks(dup.body, /role="alert"|alert-error/);
    const ok = await add('carol@x.io');
    has(ok.body, /^<section id="shares-panel"/);
    has(ok.body, /carol@x.io/);
    assert.equal(toastOf(ok)?.message, 'Shared with Carol.');
    const carolShare = (await s.store.shares.list(id)).find((x) => x.email === 'carol@x.io')!;
    assert.equal(carolShare.sharedBy, alice.user!.id);
    const removed = await alice.send('DELETE', `/dashboard/links/${id}/shares/${carol.user!.id}`, {}, { htmx: true });
    lacks(removed.body, /carol@x.io/);
    assert.equal(toastOf(removed)?.message, 'Carol no longer has access.');
    await alice.send('DELETE', `/dashboard/links/${id}/shares/${bob.user!.id}`, {}, { htmx: true });
    has((await alice.send('GET', `/dashboard/links/${id}`, {}, { htmx: true })).body, /No users with access yet\./);
  });

  test('confirm-delete: a dialog first, nothing deleted; DELETE answers nothing but the toast; a form gets 303 and the message', async () => {
    await create(alice, 'doomed');
    const id = await linkId('doomed');
    const confirm = await alice.page(`/dashboard/links/${id}/confirm-delete`, { htmx: true });
    has(confirm.body, /^<dialog/);
    has(confirm.body, /Delete &#39;doomed&#39;\?|Delete 'doomed'\?/);
    has(confirm.body, /This action cannot be undone\./);
    has(confirm.body, new RegExp(`hx-delete="/dashboard/links/${id}" hx-target="#link-${id}" hx-swap="outerHTML"`));
    assert.ok(await s.store.links.get(id), 'no DELETE yet');
    assert.equal((await bob.page(`/dashboard/links/${id}/confirm-delete`, { htmx: true })).status, 403);
    const del = await alice.send('DELETE', `/dashboard/links/${id}`, {}, { htmx: true });
    assert.equal(del.status, 200);
    assert.equal(del.body, '', 'the row becomes nothing');
    assert.deepEqual(toastOf(del), { level: 'success', message: 'Deleted go/doomed.' });
    assert.equal(await s.store.links.get(id), null);
    await create(alice, 'doomed-too');
    const id2 = await linkId('doomed-too');
    const form = await alice.send('POST', `/dashboard/links/${id2}`, { _method: 'DELETE' });
    assert.equal(form.status, 303);
    assert.equal(form.header('location'), '/dashboard');
    assert.equal(flashOf(form)?.message, 'Deleted go/doomed-too.');
    assert.equal((await alice.send('DELETE', `/dashboard/links/${id2}`, {}, { htmx: true })).status, 404);
  });

  test('a cross-site delete is refused and the link survives', async () => {
    const id = await linkId('docs');
    const r = await alice.send('DELETE', `/dashboard/links/${id}`, {}, { headers: { origin: 'https://evil.example' } });
    assert.equal(r.status, 403);
    assert.ok(await s.store.links.get(id));
  });

  test('archive and unarchive: HTMX re-renders the detail view, a form gets 303; the link stops and starts resolving', async () => {
    const id = await linkId('docs');
    const r = await alice.send('POST', `/dashboard/links/${id}/archive`, {}, { htmx: true });
    assert.equal(r.status, 200);
    has(r.body, /^<div id="link-detail"/);
    has(r.body, /badge[^"]*">archived</);
    has(r.body, />Unarchive</);
    assert.equal(toastOf(r)?.message, 'Archived go/docs. It no longer redirects.');
    assert.equal((await anonymous(s).page('/docs')).status, 404);
    const again = await alice.send('POST', `/dashboard/links/${id}/archive`);
    assert.equal(again.status, 303);
    assert.equal(again.header('location'), `/dashboard/links/${id}`);
    const back = await alice.send('POST', `/dashboard/links/${id}/unarchive`, {}, { htmx: true });
    has(back.body, />Archive</);
    assert.equal(toastOf(back)?.message, 'Unarchived go/docs. It redirects again.');
    assert.equal((await anonymous(s).page('/docs')).status, 302);
  });

  test('renew: the expired row re-renders in place without the badge, with the columns of the table it came from', async () => {
    await create(alice, 'promo', { expires_at: '2030-06-01T12:00:10', title: 'Promo' });
    const id = await linkId('promo');
    now = T0 + 60_000;
    try {
      const dash = await alice.page('/dashboard', { htmx: true });
      const row = new RegExp(`<tr id="link-${id}"[\\s\\S]*?</tr>`).exec(dash.body)![0];
      has(row, /badge-warning">expired</);
      has(row, /Renew/);
      has(row, /name="from" value="dashboard"/, 'the row names its table');
      assert.equal((await bob.send('POST', `/dashboard/links/${id}/renew`, {}, { htmx: true })).status, 403);
      const r = await alice.send('POST', `/dashboard/links/${id}/renew`, { from: 'tag' }, { htmx: true });
      assert.equal(r.status, 200);
      has(r.body, new RegExp(`^<tr id="link-${id}"`));
      lacks(r.body, />expired</);
      has(r.body, /<p class="truncate text-sm" title="Promo">Promo<\/p>/, 'the title under the slug');
      has(r.body, /Owner:/, 'tag-page rows carry the owner column');
      assert.equal((await s.store.links.get(id))!.expiresAt, null);
      const fromDash = await alice.send('POST', `/dashboard/links/${id}/renew`, { from: 'dashboard' }, { htmx: true });
      lacks(fromDash.body, /Owner:/, 'dashboard rows have no owner column');
      const plain = await alice.send('POST', `/dashboard/links/${id}/renew`);
      assert.equal(plain.status, 303);
      assert.equal(plain.header('location'), '/dashboard');
    } finally {
      now = T0;
    }
  });
});
