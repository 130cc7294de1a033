import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestServer } from '../helpers/server.js';
import { anonymous, has, lacks, mainOf, signedIn, startWebServer, type Client } from './support.js';
import { createLink } from '../helpers/links.js';

describe('layout, rendering conventions and route priority (docs/web-ui.md#rendering-conventions, docs/web-ui.md#routes, docs/web-ui.md#theme, docs/web-ui.md#layout, docs/web-ui.md#landing-and-dashboard)', () => {
  let s: TestServer;
  let alice: Client;
  let admin: Client;
  before(async () => {
    s = await startWebServer();
    alice = await signedIn(s, 'alice@x.io', { name: 'Alice' });
    admin = await signedIn(s, 'root@x.io', { name: 'Root', admin: true });
  });
  after(async () => s.stop());

  test('GET /dashboard with HX-Request answers only the link list; without it the whole page', async () => {
    const fragment = await alice.page('/dashboard', { htmx: true });
    assert.equal(fragment.status, 200);
    lacks(fragment.body, /<html|<body|<main/);
    has(fragment.body, /^<div id="link-list"/);
    has(fragment.header('vary') ?? '', /HX-Request/i);
    const page = await alice.page('/dashboard');
    has(page.body, /^<!doctype html><html lang="en"/);
    has(page.body, /<title>My Links — Joe Links<\/title>/);
    has(page.body, /id="toast-area"/);
    has(page.body, /<div id="modal"><\/div>/);
  });

  test('a history-restore request gets the full page, not a fragment', async () => {
    const r = await alice.page('/dashboard?filter=shared', { htmx: true, headers: { 'hx-history-restore-request': 'true' } });
    has(r.body, /^<!doctype html>/);
  });

  test('literal segments beat parameters: new, validate-slug and suggest are not ids or tags', async () => {
    const form = await alice.page('/dashboard/links/new');
    assert.equal(form.status, 200);
    has(mainOf(form.body), /<h1[^>]*>New link<\/h1>/);
    const check = await alice.page('/dashboard/links/validate-slug?slug=fresh');
    assert.equal(check.status, 200);
    has(check.body, /Available!/);
    const suggest = await alice.page('/dashboard/tags/suggest?q=zz');
    assert.equal(suggest.status, 200);
    assert.equal(suggest.body, '');
  });

  test('anonymous visitors are sent to sign in from every /dashboard page, with their way back', async () => {
    const anon = anonymous(s);
    for (const path of ['/dashboard', '/dashboard/links/new', '/dashboard/tags', '/dashboard/settings/tokens', '/admin', '/admin/links']) {
      const r = await anon.page(path);
      assert.equal(r.status, 302, path);
      assert.equal(r.header('location'), `/auth/login?return_url=${encodeURIComponent(path)}`);
    }
  });

  test('a user gets the styled 403 on every admin page; an admin gets in', async () => {
    for (const path of ['/admin', '/admin/users', '/admin/links', '/admin/keywords', '/admin/link-health']) {
      const denied = await alice.page(path);
      assert.equal(denied.status, 403, path);
      has(mainOf(denied.body), /Access denied/);
      has(mainOf(denied.body), /href="\/dashboard"/);
      assert.equal((await admin.page(path)).status, 200, path);
    }
  });

  test('the landing page: anonymous hero and sign-in button; signed-in visitors go to the dashboard', async () => {
    const r = await anonymous(s).page('/');
    assert.equal(r.status, 200);
    has(mainOf(r.body), /<h1[^>]*>Joe Links<\/h1>/);
    has(mainOf(r.body), /<a class="btn btn-primary btn-lg" href="\/auth\/login">Sign in to get started<\/a>/);
    const signed = await alice.page('/');
    assert.equal(signed.status, 302);
    assert.equal(signed.header('location'), '/dashboard');
  });

  test('anonymous layout: navbar with brand, Browse, theme menu and Sign in; no sidebar', async () => {
    const r = await anonymous(s).page('/links');
    has(r.body, /<header class="navbar/);
    has(r.body, /href="\/links"[^>]*>Browse</);
    has(r.body, /<summary[^>]*aria-label="Theme"/);
    for (const [value, pressed] of [
      ['system', 'true'],
      ['joe-light', 'false'],
      ['joe-dark', 'false'],
    ])
      has(r.body, new RegExp(`name="theme" value="${value}"[^>]*aria-pressed="${pressed}"`));
    has(r.body, /href="\/auth\/login"[^>]*>Sign in</);
    lacks(r.body, /<aside/);
  });

  test('signed-in sidebar: nav items, exact-match highlight, user menu holding API Tokens and Sign out', async () => {
    const r = await alice.page('/dashboard');
    const aside = /<aside[\s\S]*<\/aside>/.exec(r.body)![0];
    for (const href of ['/dashboard', '/dashboard/analytics', '/dashboard/tags', '/links']) has(aside, new RegExp(`href="${href}"`));
    has(aside, /<a href="\/dashboard" class="menu-active" aria-current="page">/);
    lacks(aside, /href="\/dashboard\/tags" class="menu-active"/);
    lacks(aside, /Admin/, 'no Admin section for a user');
    const menu = /<details class="user-menu">[\s\S]*?<\/details>/.exec(aside)![0];
    has(menu, /href="\/dashboard\/settings\/tokens"/, 'API Tokens sits in the user menu');
    has(menu, /<form method="post" action="\/auth\/logout"/);
    lacks(menu, /theme/i, 'the theme switch is not hidden in the user menu');
    has(aside, /<form method="post" action="\/dashboard\/theme"[\s\S]*?role="group" aria-label="Theme"/);
    assert.equal(aside.match(/\/dashboard\/settings\/tokens/g)!.length, 1, 'and nowhere else in the nav');
    has(aside, /href="\/api\/docs\/"/);
    const tags = await alice.page('/dashboard/tags/missing');
    has(tags.body, /<a href="\/dashboard\/tags" class="menu-active"/, 'non-exact items highlight below their path');
  });

  test('admins get the Admin section: open with the item highlighted under /admin, collapsed elsewhere', async () => {
    const kw = await admin.page('/admin/keywords');
    has(kw.body, /<details open><summary>[\s\S]*?Admin<\/summary>/);
    has(kw.body, /<a href="\/admin\/keywords" class="menu-active"/);
    lacks(kw.body, /<a href="\/admin" class="menu-active"/, 'Overview is exact-match only');
    const dash = await admin.page('/dashboard');
    has(dash.body, /<details><summary>[\s\S]*?Admin<\/summary>/);
    for (const href of ['/admin', '/admin/users', '/admin/links', '/admin/link-health', '/admin/keywords'])
      has(dash.body, new RegExp(`href="${href}"`));
  });

  test('the theme cookie sets data-theme on every page; an invalid one leaves it to the system', async () => {
    for (const path of ['/', '/links', '/dashboard', '/nope-nope']) {
      const c = path === '/dashboard' ? alice.cookie + '; ' : '';
      const dark = await anonymous(s).page(path, { headers: { cookie: `${c}theme=joe-dark` } });
      has(dark.body, /<html lang="en" data-theme="joe-dark">/, path);
      const bad = await anonymous(s).page(path, { headers: { cookie: `${c}theme=hacker` } });
      has(bad.body, /<html lang="en">/, path);
    }
  });

  test('the theme script is the first script, loads from /static before the stylesheet, and HTMX runs without eval', async () => {
    const r = await alice.page('/dashboard');
    const head = /<head>([\s\S]*)<\/head>/.exec(r.body)![1]!;
    const themeAt = head.search(/<script src="\/static\/build\/theme\.[0-9a-f]{10}\.js"><\/script>/);
    const cssAt = head.search(/<link rel="stylesheet" href="\/static\/build\/app\.[0-9a-f]{10}\.css"\/>/);
    assert.ok(themeAt > 0 && cssAt > themeAt, 'theme.js before the stylesheet, both hashed');
    has(head, /<script src="\/static\/build\/htmx\.[0-9a-f]{10}\.js" defer><\/script>/);
    const config = JSON.parse(/<meta name="htmx-config" content="([^"]*)"/.exec(head)![1]!.replace(/&quot;/g, '"'));
    assert.equal(config.allowEval, false);
    assert.equal(config.includeIndicatorStyles, false);
    assert.equal(config.allowScriptTags, false);
    for (const m of r.body.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)) {
      has(m[1]!, /\bsrc="\/static\//, 'every script is ours');
      assert.equal(m[2]!.trim(), '', 'no inline script');
    }
    lacks(r.body, /\shx-on[:-]/, 'no hx-on attributes (they need eval)');
    lacks(r.body, /\sstyle="/, 'no inline styles (the CSP refuses them)');
    lacks(r.body, /\son[a-z]+="/, 'no inline event handlers');
  });

  test('hashed assets are served immutable from our origin', async () => {
    const r = await alice.page('/dashboard');
    for (const m of r.body.matchAll(/(?:src|href)="(\/static\/build\/[^"]+)"/g)) {
      const a = await anonymous(s).page(m[1]!);
      assert.equal(a.status, 200, m[1]);
      has(a.header('cache-control') ?? '', /immutable/);
    }
  });

  test('every response carries the security headers: strict CSP, no framing, a referrer policy', async () => {
    for (const path of ['/', '/dashboard', '/links', '/some-missing-slug', '/static/js/app.js']) {
      const r = await alice.page(path);
      const csp = r.header('content-security-policy') ?? '';
      const directives = new Map(
        csp
          .split(';')
          .map((d) => d.trim())
          .filter(Boolean)
          .map((d) => [d.split(/\s+/)[0]!, d.split(/\s+/).slice(1)]),
      );
      assert.deepEqual(directives.get('script-src'), ["'self'"], path);
      assert.deepEqual(directives.get('style-src'), ["'self'"], path);
      assert.deepEqual(directives.get('frame-ancestors'), ["'none'"], path);
      assert.deepEqual(directives.get('object-src'), ["'none'"], path);
      lacks(csp, /unsafe-inline|unsafe-eval|\*/, path);
      assert.equal(r.header('x-frame-options'), 'DENY', path);
      assert.equal(r.header('referrer-policy'), 'strict-origin-when-cross-origin', path);
      assert.equal(r.header('x-content-type-options'), 'nosniff', path);
    }
  });

  test('only the API docs relax style-src, and only for styles', async (t) => {
    const docs = await anonymous(s).page('/api/docs/');
    if (docs.status !== 200) return t.skip('the API documentation is not mounted');
    const csp = docs.header('content-security-policy') ?? '';
    has(csp, /style-src 'self' 'unsafe-inline'/);
    has(csp, /script-src 'self';/);
    lacks(csp, /unsafe-eval/);
    lacks((await anonymous(s).page('/links')).header('content-security-policy') ?? '', /unsafe-inline/);
  });

  test('resolver pages carry every helmet header; its bodiless redirects only the referrer policy', async () => {
    await createLink(s.store, { slug: 'hot', url: 'https://hot.example' }, alice.user!.id);
    const names = [
      'content-security-policy',
      'cross-origin-resource-policy',
      'origin-agent-cluster',
      'referrer-policy',
      'strict-transport-security',
      'x-content-type-options',
      'x-dns-prefetch-control',
      'x-download-options',
      'x-frame-options',
      'x-permitted-cross-domain-policies',
      'x-xss-protection',
    ];
    const page = await alice.page('/links');
    const missing = await alice.page('/no-such-hot-link');
    const redirect = await alice.page('/hot');
    assert.equal(missing.status, 404);
    assert.equal(redirect.status, 302);
    assert.equal(redirect.header('location'), 'https://hot.example');
    assert.equal(redirect.header('referrer-policy'), 'strict-origin-when-cross-origin', 'the destination learns only our origin');
    for (const n of names) {
      assert.ok(page.header(n) !== null, `${n} is sent`);
      assert.equal(missing.header(n), page.header(n), `the resolver 404 page sends ${n} like every page`);
      if (n !== 'referrer-policy') assert.equal(redirect.header(n), null, `a redirect has no body for ${n} to protect`);
    }
  });

  test('Cross-Origin-Opener-Policy only when the base URL is https (browsers reject it over plain http)', async () => {
    assert.equal((await alice.page('/links')).header('cross-origin-opener-policy'), null);
    const https = await startWebServer({ env: { JOE_BASE_URL: 'https://go.example.com' } });
    try {
      assert.equal((await anonymous(https).page('/links')).header('cross-origin-opener-policy'), 'same-origin');
    } finally {
      await https.stop();
    }
  });

  test('the local sign-in page keeps its token out of cross-site Referer headers but lets its own form post carry an Origin', async () => {
    const token = await s.store.loginTokens.create(alice.user!.id);
    const r = await anonymous(s).page(`/auth/local?token=${token}`);
    assert.equal(r.header('referrer-policy'), 'same-origin');
  });

  test('unknown paths under reserved prefixes fall to the resolver 404, which offers no create link for them', async () => {
    for (const path of ['/links/x', '/u', '/dashboardx']) assert.equal((await alice.page(path)).status, 404, path);
  });
});
