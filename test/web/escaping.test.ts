import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { TestServer } from '../helpers/server.js';
import { has, lacks, signedIn, startWebServer, type Client } from './support.js';
import { createLink } from '../helpers/links.js';

/**
 * Hostile text in every field a user controls — titles, descriptions, URLs,
 * display names, tag names, keyword templates, token names, health errors —
 * must come back as text on every page and fragment, never as markup.
 */

const XSS = `x"><img src=x onerror=alert(1)>`;
const SCRIPT = `</script><script>alert(2)</script>`;

/**
 * What would only be there if escaping failed: a raw `<` opening the planted
 * element, or a raw quote closing the attribute it sat in. (A bare `>` in
 * text is harmless and the renderer leaves it.)
 */
const INJECTED = /<img src=x|<script>alert|x">(?:&lt;)?img/i;

describe('everything user-controlled is escaped (docs/web-ui.md#rendering-conventions)', () => {
  let s: TestServer;
  let owner: Client;
  let admin: Client;
  let linkId = '';
  let keywordId = '';
  before(async () => {
    s = await startWebServer();
    owner = await signedIn(s, 'owner@x.io', { name: `Mallory ${XSS}` });
    admin = await signedIn(s, 'root@x.io', { name: 'Root', admin: true });
    const link = await createLink(
      s.store,
      { slug: 'evil', url: `https://e.example/${XSS}`, title: `T ${XSS}`, description: `D ${XSS} ${SCRIPT}`, tags: ['safe'] },
      owner.user!.id,
    );
    linkId = link.id;
    // Tag names are validated on write; a hostile one can only come from old data, so it is planted directly.
    const tagId = randomUUID();
    await s.store.db.kysely.insertInto('tags').values({ id: tagId, name: XSS, slug: 'hostile', created_at: Date.now() }).execute();
    await s.store.db.kysely.insertInto('link_tags').values({ link_id: link.id, tag_id: tagId }).execute();
    const k = await s.store.keywords.create({ keyword: 'kw', urlTemplate: `https://k.example/{slug}/${XSS}`, description: XSS });
    keywordId = k.id;
    await s.store.tokens.create(owner.user!.id, `tok ${XSS}`);
    for (let i = 0; i < 3; i++) await s.store.health.record(link.id, { kind: 'failure', status: null, error: XSS }, 3_600_000);
  });
  after(async () => s.stop());

  const pages = (): Array<[Client, string, boolean]> => [
    [owner, '/dashboard', false],
    [owner, '/dashboard', true],
    [owner, '/dashboard?q=evil', true],
    [owner, `/dashboard/links/${linkId}`, false],
    [owner, `/dashboard/links/${linkId}/edit`, true],
    [owner, `/dashboard/links/${linkId}/edit`, false],
    [owner, `/dashboard/links/${linkId}/confirm-delete`, true],
    [owner, '/dashboard/tags', false],
    [owner, '/dashboard/tags/hostile', false],
    [owner, '/dashboard/tags/suggest?q=x', true],
    [owner, '/links', false],
    [owner, '/links?q=evil', true],
    [owner, '/u/mallory-ximg-srcx-onerroralert1', false],
    [owner, '/dashboard/settings/tokens', false],
    [admin, '/admin/users', false],
    [admin, `/admin/users/${'OWNER'}/confirm-delete`, true],
    [admin, '/admin/links', false],
    [admin, `/admin/links/${linkId}/edit`, true],
    [admin, '/admin/keywords', false],
    [admin, `/admin/keywords/${keywordId}/confirm-delete`, true],
    [admin, '/admin/link-health', false],
    [owner, '/evil-typo', false],
  ];

  test('no page or fragment lets hostile text become markup, and the text itself is shown', async () => {
    for (const [c, rawPath, htmx] of pages()) {
      const path = rawPath.replace('OWNER', owner.user!.id);
      const r = await c.page(path, { htmx });
      assert.ok(r.status === 200 || r.status === 404, `${path}: ${r.status}`);
      lacks(r.body, INJECTED, `${path}${htmx ? ' (HTMX)' : ''}`);
    }
    // Each hostile value does reach the page, escaped.
    const escaped = /x&quot;(?:>|&gt;)&lt;img src=x onerror=alert\(1\)(?:>|&gt;)/;
    has((await owner.page(`/dashboard/links/${linkId}`)).body, escaped, 'title/description/name on the detail page');
    has((await owner.page('/dashboard/tags')).body, escaped, 'tag name');
    has((await admin.page('/admin/keywords')).body, escaped, 'keyword template');
    has((await admin.page('/admin/link-health')).body, escaped, 'health error');
    has((await owner.page('/dashboard/settings/tokens')).body, escaped, 'token name');
  });

  test('hostile input sent through the forms comes back escaped in the re-rendered form', async () => {
    const r = await owner.send(
      'POST',
      '/dashboard/links',
      { slug: 'Bad Slug', url: `https://e.example/${XSS}`, title: XSS, description: SCRIPT, tags: XSS },
      { htmx: true },
    );
    lacks(r.body, INJECTED);
    const kw = await admin.send('POST', '/admin/keywords', { keyword: 'k2', url_template: XSS, description: XSS }, { htmx: true });
    lacks(kw.body, INJECTED);
    const edit = await admin.send('PUT', `/admin/links/${linkId}`, { url: `ftp://${XSS}`, title: XSS }, { htmx: true });
    lacks(edit.body, INJECTED);
    const owners = await owner.send('POST', `/dashboard/links/${linkId}/owners`, { email: XSS }, { htmx: true });
    lacks(owners.body, INJECTED);
  });

  test('a hostile destination is escaped inside href, and a non-http one is never linked', async () => {
    const detail = (await owner.page(`/dashboard/links/${linkId}`)).body;
    has(detail, /href="https:\/\/e\.example\/x&quot;(?:>|&gt;)&lt;img src=x onerror=alert\(1\)(?:>|&gt;)"/);
    await s.store.db.kysely.updateTable('links').set({ url: 'javascript:alert(3)' }).where('id', '=', linkId).execute();
    for (const path of [`/dashboard/links/${linkId}`, '/dashboard', '/admin/links']) {
      const c = path.startsWith('/admin') ? admin : owner;
      lacks((await c.page(path)).body, /href="javascript:/i, path);
    }
  });
});
