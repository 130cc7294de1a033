import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { DbDriver } from '../../src/config.js';
import { ALL_DRIVERS } from '../helpers/databases.js';
import { sessionCookie, startTestServer, type TestServer } from '../helpers/server.js';
import { clientFor, has, lacks, mainOf, textOf, type Client, type Res } from './support.js';
import { createLink } from '../helpers/links.js';

/**
 * NUL characters in web input (PostgreSQL refuses them in text; SQLite and
 * MySQL would store them): every form reports them as a 400 form error with
 * the input kept, every query string or path parameter gets a plain 400, and
 * nothing is written — on every database, never a 500.
 */

const NUL = '\u0000';

function skipFor(driver: DbDriver): string | false {
  if (driver === 'postgres' && !process.env.JOE_TEST_PG_DSN) return 'JOE_TEST_PG_DSN not set';
  if (driver === 'mysql' && !process.env.JOE_TEST_MYSQL_DSN) return 'JOE_TEST_MYSQL_DSN not set';
  return false;
}

for (const driver of ALL_DRIVERS) {
  describe(`NUL characters in web input [${driver}]`, { skip: skipFor(driver) }, () => {
    let s: TestServer;
    let owner: Client;
    let admin: Client;
    let linkId = '';
    let keywordCount = 0;

    const client = async (email: string, name: string, role: 'user' | 'admin' = 'user') => {
      const user = await s.store.users.create({ email, displayName: name, role });
      return clientFor(s, user, await sessionCookie(s.store, user));
    };

    /** Everything a web write could change, to prove a refused request changed nothing. */
    const snapshot = async () => {
      const link = await s.store.links.view(linkId);
      return JSON.stringify({
        link,
        links: (await s.store.links.list({ scope: 'all', viewer: { id: admin.user!.id, isAdmin: true }, limit: 500 })).links.map(
          (l) => l.slug,
        ),
        users: (await s.store.users.listAll()).map((u) => [u.email, u.displayName, u.role]),
        keywords: (await s.store.keywords.list()).map((k) => k.keyword),
        tokens: (await s.store.tokens.listForUser(owner.user!.id)).map((t) => t.name),
        shares: await s.store.shares.list(linkId),
      });
    };

    const noServerError = (r: Res, what: string) => assert.ok(r.status < 500, `${what}: ${r.status} ${r.body.slice(0, 200)}`);

    before(async () => {
      s = await startTestServer({ driver, env: { JOE_SHORT_KEYWORD: 'go' } });
      owner = await client('owner@x.io', 'Owner');
      admin = await client('root@x.io', 'Root', 'admin');
      await client('friend@x.io', 'Friend');
      linkId = (
        await createLink(
          s.store,
          { slug: 'jira', url: 'https://jira.example.com', title: 'Jira', visibility: 'secure', tags: ['tools'] },
          owner.user!.id,
        )
      ).id;
      await s.store.keywords.create({ keyword: 'gh', urlTemplate: 'https://github.com/{slug}', description: 'GitHub' });
      keywordCount = 1;
    });
    after(async () => s?.stop());

    test('the link form names the field holding a NUL, keeps the input, saves nothing; a plain form gets 400', async () => {
      const before = await snapshot();
      const valid = {
        slug: 'new-link',
        url: 'https://example.com/page',
        title: 'A title',
        description: 'Words',
        tags: 'one, two',
        visibility: 'public',
        expires_at: '',
      };
      for (const fieldName of ['slug', 'url', 'title', 'description', 'tags', 'visibility', 'expires_at'] as const) {
        const fields = { ...valid, [fieldName]: `${valid[fieldName]}x${NUL}y` };
        const id = fieldName === 'expires_at' ? 'link-expires' : `link-${fieldName}`;
        const modal = await owner.send('POST', '/dashboard/links', fields, { htmx: true });
        noServerError(modal, `create ${fieldName}`);
        has(modal.body, /^<form /, `${fieldName}: the form comes back in the modal`);
        const error = new RegExp(`<p id="${id}-error"[^>]*role="alert"[^>]*>[\\s\\S]*?</p>`).exec(modal.body);
        assert.ok(error, `${fieldName}: the message sits beside its field`);
        assert.equal(textOf(error[0]), `${fieldName} must not contain NUL characters`);
        lacks(modal.body, /\u0000/, 'no NUL byte is echoed into the page');
        has(modal.body, /value="https:\/\/example.com\/page(x\uFFFDy)?"/, 'the URL is kept');

        const page = await owner.send('POST', '/dashboard/links', fields);
        assert.equal(page.status, 400, `create ${fieldName} as a plain form`);
        has(mainOf(page.body), /<h1[^>]*>New link<\/h1>/);
        has(page.body, new RegExp(`id="${id}-error"`));

        // The slug is never submitted on edit (a NUL there would just be ignored).
        if (fieldName !== 'slug') {
          const edit = await owner.send('PUT', `/dashboard/links/${linkId}`, fields, { htmx: true });
          noServerError(edit, `update ${fieldName}`);
          assert.ok(new RegExp(`<p id="${id}-error"[^>]*>`).test(edit.body), `update ${fieldName}: error beside the field`);
          const plainEdit = await owner.send('POST', `/dashboard/links/${linkId}`, { ...fields, _method: 'PUT' });
          assert.equal(plainEdit.status, 400, `update ${fieldName} as a plain form`);
        }
      }
      assert.equal(await snapshot(), before, 'nothing was written');
    });

    test('co-owner and share forms: the alert names the email field and keeps what was typed', async () => {
      const before = await snapshot();
      for (const part of ['owners', 'shares'] as const) {
        const r = await owner.send('POST', `/dashboard/links/${linkId}/${part}`, { email: `friend${NUL}@x.io` }, { htmx: true });
        noServerError(r, part);
        has(r.body, part === 'owners' ? /^<section id="owners-section"/ : /^<section id="shares-panel"/);
        has(r.body, /Email must not contain NUL characters\./);
        has(r.body, /value="friend\uFFFD@x.io"/);
        const plain = await owner.send('POST', `/dashboard/links/${linkId}/${part}`, { email: `friend${NUL}@x.io` });
        assert.equal(plain.status, 400);
        has(plain.body, /Email must not contain NUL characters\./);
      }
      assert.equal(await snapshot(), before);
    });

    test('admin forms: inline link edit, keywords and local users report the NUL and change nothing', async () => {
      const before = await snapshot();
      const inline = await admin.send(
        'PUT',
        `/admin/links/${linkId}`,
        { url: 'https://ok.example', title: `T${NUL}`, description: '', visibility: 'public' },
        { htmx: true },
      );
      noServerError(inline, 'inline edit');
      has(inline.body, new RegExp(`^<tr id="link-${linkId}"`), 'the row stays in edit mode');
      assert.match(inline.header('hx-trigger') ?? '', /showToast.*title must not contain NUL characters/, 'the reason as an error toast');
      has(inline.body, /value="T\uFFFD"/);

      for (const [fields, message] of [
        [
          { keyword: 'wiki', url_template: `https://wiki.example/{slug}${NUL}`, description: '' },
          'URL template must not contain NUL characters.',
        ],
        [
          { keyword: 'wiki', url_template: 'https://wiki.example/{slug}', description: `d${NUL}` },
          'Description must not contain NUL characters.',
        ],
      ] as const) {
        const r = await admin.send('POST', '/admin/keywords', fields, { htmx: true });
        noServerError(r, 'keywords');
        has(r.body, new RegExp(message.replace(/\./g, '\\.')));
        assert.equal((await admin.send('POST', '/admin/keywords', fields)).status, 400);
      }

      const user = await admin.send('POST', '/admin/users', { email: 'new@x.io', name: `New${NUL}`, role: 'user' }, { htmx: true });
      noServerError(user, 'add user');
      has(user.body, /Name must not contain NUL characters\./);
      has(user.body, /value="New\uFFFD"/);
      assert.equal((await s.store.keywords.list()).length, keywordCount);
      assert.equal(await snapshot(), before);
    });

    test('the API token form reports the NUL and creates nothing', async () => {
      const before = await snapshot();
      const r = await owner.send('POST', '/dashboard/settings/tokens', { name: `laptop${NUL}`, expires_in: '' }, { htmx: true });
      noServerError(r, 'tokens');
      has(r.body, /Name must not contain NUL characters\./);
      assert.equal((await owner.send('POST', '/dashboard/settings/tokens', { name: `laptop${NUL}` })).status, 400);
      assert.equal(await snapshot(), before);
    });

    test('any other web request carrying a NUL gets a plain 400: a page, or an error toast for HTMX', async () => {
      const before = await snapshot();
      const user = admin.user!.id;
      const gets = [
        '/dashboard?q=%00',
        '/dashboard?tag=a%00',
        '/dashboard?filter=shared&after=%00',
        '/dashboard?filter=stale&after=x%00',
        '/dashboard/links/validate-slug?slug=a%00',
        '/dashboard/links/new?slug=a%00',
        `/dashboard/links/${linkId}?x=%00`,
        '/dashboard/links/%00',
        '/dashboard/tags/a%00',
        '/dashboard/tags/suggest?q=t%00',
        '/links?q=%00',
        '/links?page=1%00',
        '/u/owner%00',
        '/admin/links?q=%00',
        '/admin/links?filter=stale&after=%00',
      ];
      for (const path of gets) {
        const page = await admin.page(path);
        assert.equal(page.status, 400, `${path}: ${page.status} ${page.body.slice(0, 120)}`);
        has(mainOf(page.body), /<h1[^>]*>Bad request<\/h1>/, path);
        has(page.body, /must not contain NUL characters/, path);
        const fragment = await admin.page(path, { htmx: true });
        assert.equal(fragment.status, 400, `${path} (HTMX)`);
        assert.match(fragment.header('hx-trigger') ?? '', /showToast.*must not contain NUL characters/, `${path}: error toast`);
      }
      for (const [method, path, fields] of [
        ['PUT', `/admin/users/${user}/role`, { role: `admin${NUL}` }],
        ['DELETE', `/admin/users/${owner.user!.id}`, { link_action: `delete${NUL}` }],
        ['POST', `/dashboard/links/${linkId}/archive`, { note: `x${NUL}` }],
        ['DELETE', `/dashboard/links/${linkId}`, { reason: `x${NUL}` }],
        ['POST', `/dashboard/links/${linkId}`, { _method: 'DELETE', reason: `x${NUL}` }],
      ] as const) {
        const r = await admin.send(method, path, fields, { htmx: true });
        assert.equal(r.status, 400, `${method} ${path}: ${r.status} ${r.body.slice(0, 120)}`);
        assert.match(r.body, /form field \w+ must not contain NUL characters/);
      }
      assert.equal(await snapshot(), before);
      assert.ok(await s.store.links.get(linkId), 'the link survived');
    });

    test('sign-in still comes first: an anonymous request with a NUL is sent to sign in', async () => {
      const anon = clientFor(s, null, '');
      const r = await anon.page('/dashboard?q=%00');
      assert.equal(r.status, 302);
      assert.match(r.header('location') ?? '', /^\/auth\/login\?return_url=/);
      const forbidden = await owner.page('/admin/links?q=%00');
      assert.equal(forbidden.status, 403, 'role checks answer before the input is looked at');
    });

    test('the resolver and the public pages never fail on a NUL', async () => {
      const anon = clientFor(s, null, '');
      for (const path of [
        '/%00',
        '/jira%00',
        '/a%00/b',
        '/gh/x%00',
        '/?x=%00',
        '/auth/login?return_url=%00',
        '/auth/local?token=%00',
        '/auth/callback?code=%00&state=%00',
      ]) {
        noServerError(await anon.page(path), path);
        noServerError(await owner.page(path), path);
      }
      noServerError(await anon.send('POST', '/auth/local', { token: `abc${NUL}` }), 'local sign-in with a NUL token');
      noServerError(await anon.send('POST', '/dashboard/theme', { theme: `joe-dark${NUL}` }), 'theme');
    });
  });
}
