import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { ALL_DRIVERS, skipReason } from '../helpers/databases.js';
import { addShare, createLink, updateLink } from '../helpers/links.js';
import { eventually, get, sessionCookie, startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Every kind of go link, asked for by every kind of visitor, over real HTTP:
 * the one resolver (src/resolve/resolver.ts) answers each with the status,
 * Location and cache headers the rules give (docs/links.md#resolution), and
 * stores exactly one click per redirect of a link, naming the signed-in user.
 */

type Who = 'anonymous' | 'owner' | 'stranger' | 'recipient' | 'admin';
const EVERYONE: readonly Who[] = ['anonymous', 'owner', 'stranger', 'recipient', 'admin'];

interface Expect {
  status: number;
  /** Location of a redirect; `login` is the sign-in page with the request as return URL. */
  location?: string;
  /** Whether the answer stores a click. */
  click: boolean;
}

const redirect = (location: string): Expect => ({ status: 302, location, click: true });
const LOGIN: Expect = { status: 302, location: 'login', click: false };
const NOT_FOUND: Expect = { status: 404, click: false };
/** A template without its values: the page asking for them (docs/links.md#fill-in-page). */
const FILL_IN: Expect = { status: 200, click: false };

/** Request path → expectation per visitor. */
const CASES: Record<string, (who: Who) => Expect> = {
  '/plain': () => redirect('https://plain.test/'),
  '/hidden': () => redirect('https://hidden.test/'),
  '/vault': (who) => (who === 'anonymous' ? LOGIN : who === 'stranger' ? { status: 403, click: false } : redirect('https://vault.test/')),
  '/jira/ABC-123': () => redirect('https://jira.test/browse/ABC-123'),
  '/jira': () => FILL_IN,
  '/jira?ticket=ABC-123': () => redirect('https://jira.test/browse/ABC-123'),
  '/gh2/joe': () => FILL_IN,
  '/gh2/joe?repo=links': () => redirect('https://github.com/joe/links'),
  '/docs/guide/intro': () => redirect('https://docs.test/'),
  '/PLAIN': () => redirect('https://plain.test/'),
  '/gone': () => NOT_FOUND,
  '/stale': () => NOT_FOUND,
  '/gh/joe/links': () => ({ status: 302, location: 'https://github.com/joe/links', click: false }),
  '/no-such-link': () => NOT_FOUND,
  // Aliases resolve exactly like the slug, and count their clicks on the link (docs/links.md#aliases).
  '/safe': (who) => (who === 'anonymous' ? LOGIN : who === 'stranger' ? { status: 403, click: false } : redirect('https://vault.test/')),
  '/Secret-Hideout': (who) =>
    who === 'anonymous' ? LOGIN : who === 'stranger' ? { status: 403, click: false } : redirect('https://vault.test/'),
  '/tickets/ABC-123': () => redirect('https://jira.test/browse/ABC-123'),
  '/retired': () => NOT_FOUND,
  // Forwarding (docs/links.md#path-and-query-forwarding), hostile values included: never another host.
  '/fwd/guides/setup?lang=en': () => redirect('https://fwd.test/base/guides/setup?src=go&lang=en'),
  '/manual/guides': () => redirect('https://fwd.test/base/guides?src=go'),
  '/fwd/..%2F..%2Fevil.com': () => redirect('https://fwd.test/base/..%2F..%2Fevil.com?src=go'),
  '/fwd//evil.com': () => redirect('https://fwd.test/base//evil.com?src=go'),
  '/fwd/@evil.com': () => redirect('https://fwd.test/base/@evil.com?src=go'),
  '/fwd/%5Cevil.com': () => redirect('https://fwd.test/base/%5Cevil.com?src=go'),
  '/fwd/a%2Fb': () => redirect('https://fwd.test/base/a%2Fb?src=go'),
  '/fwd?next=//evil.com&at=@evil.com': () => redirect('https://fwd.test/base?src=go&next=%2F%2Fevil.com&at=%40evil.com'),
  '/docs/guide/intro?lang=en': () => redirect('https://docs.test/'),
  // A template's default destination (docs/links.md#default-destination): no value goes there, with a click like any redirect.
  '/drive': () => redirect('https://drive.test/'),
  '/drive/roadmap': () => redirect('https://drive.test/search?q=roadmap'),
  '/repo': () => redirect('https://git.test/'),
  '/repo/acme': () => FILL_IN,
};

/** The slug whose clicks a request path's first segment counts on: an alias counts on its link. */
const CLICK_SLUG: Record<string, string> = { safe: 'vault', 'secret-hideout': 'vault', tickets: 'jira', manual: 'fwd' };

for (const driver of ALL_DRIVERS) {
  describe(`every outcome of the resolver [${driver}]`, { skip: skipReason(driver) }, () => {
    let s: TestServer;
    const cookies = new Map<Who, Record<string, string>>();
    const userIds = new Map<Who, string | null>();

    before(async () => {
      s = await startTestServer({ driver });
      const st = s.store;
      const make = async (who: Exclude<Who, 'anonymous'>) => {
        const user = await st.users.create({ email: `${who}@example.test`, displayName: who, role: who === 'admin' ? 'admin' : 'user' });
        cookies.set(who, { cookie: await sessionCookie(st, user) });
        userIds.set(who, user.id);
        return user;
      };
      cookies.set('anonymous', {});
      userIds.set('anonymous', null);
      const owner = await make('owner');
      await make('stranger');
      const recipient = await make('recipient');
      await make('admin');
      await createLink(st, { slug: 'plain', url: 'https://plain.test/' }, owner.id);
      await createLink(st, { slug: 'hidden', url: 'https://hidden.test/', visibility: 'private' }, owner.id);
      const vault = await createLink(st, { slug: 'vault', url: 'https://vault.test/', visibility: 'secure' }, owner.id);
      await addShare(st, vault.id, recipient.id, owner.id);
      await createLink(st, { slug: 'jira', url: 'https://jira.test/browse/$ticket', aliases: ['tickets'] }, owner.id);
      await createLink(st, { slug: 'docs', url: 'https://docs.test/' }, owner.id);
      await createLink(st, { slug: 'gh2', url: 'https://github.com/$org/$repo' }, owner.id);
      await createLink(st, { slug: 'locker', url: 'https://locker.test/$box', visibility: 'secure' }, owner.id);
      await createLink(st, { slug: 'drive', url: 'https://drive.test/search?q=$q', defaultUrl: 'https://drive.test/' }, owner.id);
      await createLink(st, { slug: 'repo', url: 'https://git.test/$org/$repo', defaultUrl: 'https://git.test/' }, owner.id);
      await updateLink(st, vault.id, { aliases: ['safe', 'secret-hideout'] });
      await createLink(st, { slug: 'fwd', url: 'https://fwd.test/base?src=go', aliases: ['manual'], forwardPathAndQuery: true }, owner.id);
      const gone = await createLink(st, { slug: 'gone', url: 'https://gone.test/', aliases: ['retired'] }, owner.id);
      await updateLink(st, gone.id, { archived: true });
      const stale = await createLink(st, { slug: 'stale', url: 'https://stale.test/', expiresAt: Date.now() + 60_000 }, owner.id);
      await st.db.kysely
        .updateTable('links')
        .set({ expires_at: Date.now() - 60_000 })
        .where('id', '=', stale.id)
        .execute();
      await st.keywords.create({ keyword: 'gh', urlTemplate: 'https://github.com/{slug}' });
    });
    after(async () => s.stop());

    test('each link for each visitor: status, Location, no-store, and one click naming the user', async () => {
      const expectedClicks = new Map<string, (string | null)[]>();
      for (const [path, rule] of Object.entries(CASES)) {
        for (const who of EVERYONE) {
          const want = rule(who);
          const r = await get(`${s.url}${path}`, cookies.get(who));
          const label = `${path} as ${who}`;
          assert.equal(r.status, want.status, label);
          assert.equal(r.headers.get('cache-control'), 'private, no-store', label);
          if (want.location === 'login') {
            assert.equal(r.headers.get('location'), `/auth/login?return_url=${encodeURIComponent(path)}`, label);
          } else if (want.location) {
            assert.equal(r.headers.get('location'), want.location, label);
          } else {
            assert.match(r.headers.get('content-type') ?? '', /^text\/html/, label);
            assert.match(r.headers.get('content-security-policy') ?? '', /default-src 'self'/, label);
          }
          if (want.click) {
            const first = path.slice(1).split(/[/?]/)[0]!.toLowerCase();
            const slug = CLICK_SLUG[first] ?? first;
            expectedClicks.set(slug, [...(expectedClicks.get(slug) ?? []), userIds.get(who)!]);
          }
        }
      }
      const sorted = (xs: (string | null)[]) => xs.map((x) => x ?? '').sort();
      const stored = async (slug: string) => {
        const link = await s.store.links.getBySlug(slug);
        const rows = await s.store.db.kysely.selectFrom('link_clicks').select('user_id').where('link_id', '=', link!.id).execute();
        return sorted(rows.map((r) => r.user_id));
      };
      for (const [slug, users] of expectedClicks) {
        await eventually(async () => (await stored(slug)).length >= users.length);
        assert.deepEqual(await stored(slug), sorted(users), `clicks of ${slug}`);
      }
      for (const slug of ['gone', 'stale']) assert.deepEqual(await stored(slug), [], `no click on ${slug}`);
    });

    test('HEAD redirects like GET without a click; HTMX gets 204 with HX-Redirect for links, a plain 302 for keywords', async () => {
      const before = (await s.store.analytics.totals((await s.store.links.getBySlug('docs'))!.id)).total;
      const head = await get(`${s.url}/docs`, {}, 'HEAD');
      assert.equal(head.status, 302);
      assert.equal(head.headers.get('location'), 'https://docs.test/');
      const htmx = await get(`${s.url}/docs`, { 'hx-request': 'true', ...cookies.get('owner') });
      assert.equal(htmx.status, 204);
      assert.equal(htmx.headers.get('hx-redirect'), 'https://docs.test/');
      const keyword = await get(`${s.url}/gh/x`, { 'hx-request': 'true' });
      assert.equal(keyword.status, 302);
      const docs = (await s.store.links.getBySlug('docs'))!.id;
      await eventually(async () => (await s.store.analytics.totals(docs)).total === before + 1);
      assert.equal((await s.store.analytics.totals(docs)).total, before + 1, 'only the HTMX GET counted');
    });

    test('sign-out, demotion and deletion apply on the very next request', async () => {
      const st = s.store;
      const user = await st.users.create({ email: `temp-admin-${driver}@example.test`, displayName: 'Temp', role: 'admin' });
      const cookie = { cookie: await sessionCookie(st, user) };
      assert.equal((await get(`${s.url}/vault`, cookie)).status, 302, 'an admin may follow any secure link');
      await st.users.setRole(user.id, 'user', 'manual');
      assert.equal((await get(`${s.url}/vault`, cookie)).status, 403, 'demoted: now a stranger');
      await st.sessions.delete(cookie.cookie.slice('session='.length));
      const signedOut = await get(`${s.url}/vault`, cookie);
      assert.equal(signedOut.status, 302);
      assert.match(signedOut.headers.get('location') ?? '', /^\/auth\/login/, 'signed out: asked to sign in');
      const again = { cookie: await sessionCookie(st, user) };
      await st.db.kysely.deleteFrom('users').where('id', '=', user.id).execute();
      const orphan = await get(`${s.url}/plain`, again);
      assert.equal(orphan.status, 302);
      assert.match(orphan.headers.get('location') ?? '', /^\/auth\/login/, "a deleted user's session is ended, not followed");
      assert.match(orphan.headers.get('set-cookie') ?? '', /session=;/);
    });

    test('`name+` leads to the link page under its own access rule, as a redirect or as the REST link body', async () => {
      const ids = new Map<string, string>();
      for (const slug of ['plain', 'hidden', 'vault', 'jira']) ids.set(slug, (await s.store.links.getBySlug(slug))!.id);
      type Want = 'page' | 'summary' | 'login' | 403 | 404;
      const rule = (slug: string, who: Who): Want => {
        if (slug === 'nothing') return 404;
        if (who === 'anonymous') return 'login';
        if (who === 'owner' || who === 'admin' || (who === 'recipient' && slug === 'vault')) return 'page';
        // A colleague who may open the link learns where it goes and who owns it; a secure link
        // stays a secret to whoever may not open it.
        return slug === 'vault' ? 404 : 'summary';
      };
      const paths: Record<string, string> = {
        plain: '/plain+',
        hidden: '/hidden+',
        vault: '/vault+',
        safe: '/Safe+',
        nothing: '/nothing+',
      };
      const target = (name: string) => (name === 'safe' ? 'vault' : name);
      for (const [name, path] of Object.entries(paths)) {
        for (const who of EVERYONE) {
          const want = rule(target(name), who);
          const label = `${path} as ${who}`;
          const page = await get(`${s.url}${path}`, cookies.get(who));
          assert.equal(page.headers.get('cache-control'), 'private, no-store', label);
          if (want === 'page') {
            assert.equal(page.status, 302, label);
            assert.equal(page.headers.get('location'), `/dashboard/links/${ids.get(target(name))}`, label);
          } else if (want === 'summary') {
            assert.equal(page.status, 200, label);
            const html = await page.text();
            assert.match(
              html,
              new RegExp(`<code[^>]*data-link-url="true">${(await s.store.links.getBySlug(name))!.url.replace(/[.?]/g, '\\$&')}</code>`),
              label,
            );
            assert.match(html, /data-link-owners="true"><li>[^<]+\(owner@example\.test\)<\/li>/, `${label}: who owns it`);
            assert.ok(!html.includes(ids.get(name)!), `${label}: no link id, no way to its page`);
          } else if (want === 'login') {
            assert.equal(page.status, 302, label);
            assert.equal(page.headers.get('location'), `/auth/login?return_url=${encodeURIComponent(path)}`, label);
          } else {
            assert.equal(page.status, want, label);
            const html = await page.text();
            assert.match(page.headers.get('content-type') ?? '', /^text\/html/, label);
            for (const id of ids.values()) assert.ok(!html.includes(id), `${label}: no link id on the page`);
            assert.ok(!html.includes('vault.test') && !html.includes('hidden.test'), `${label}: no destination`);
          }
          const json = await get(`${s.url}${path}`, { ...cookies.get(who), accept: 'application/json' });
          assert.match(json.headers.get('content-type') ?? '', /^application\/json/, label);
          const body = JSON.parse(await json.text()) as Record<string, unknown>;
          if (want === 'page') {
            assert.equal(json.status, 200, label);
            assert.equal(body.id, ids.get(target(name)), label);
            assert.equal(body.slug, target(name), label);
            assert.ok(Array.isArray(body.aliases) && 'health' in body && 'owners' in body, `${label}: the REST link body`);
          } else if (want === 'summary') {
            assert.equal(json.status, 200, label);
            assert.deepEqual(Object.keys(body).sort(), ['owners', 'slug', 'title', 'url'], label);
            assert.equal(body.url, (await s.store.links.getBySlug(name))!.url, label);
          } else {
            const code = { login: ['UNAUTHORIZED', 401], 403: ['FORBIDDEN', 403], 404: ['NOT_FOUND', 404] }[want];
            assert.deepEqual([json.status, body.code], [code[1], code[0]], label);
            assert.deepEqual(Object.keys(body).sort(), ['code', 'error'], label);
          }
        }
      }
      // A program asking for JSON may bring a personal access token instead of a session, with the same rule.
      const tokenOf = async (email: string) => {
        const user = (await s.store.users.findByEmail(email))!;
        return { authorization: `Bearer ${(await s.store.tokens.create(user.id, 'plus')).plaintext}`, accept: 'application/json' };
      };
      const byOwner = await get(`${s.url}/vault+`, await tokenOf('owner@example.test'));
      assert.equal(byOwner.status, 200);
      assert.equal((JSON.parse(await byOwner.text()) as { id: string }).id, ids.get('vault'));
      assert.equal((await get(`${s.url}/vault+`, await tokenOf('stranger@example.test'))).status, 404, 'a stranger learns nothing');
      const forged = await get(`${s.url}/vault+`, { authorization: 'Bearer jl_notatoken', accept: 'application/json' });
      assert.equal(forged.status, 401, 'an unknown token is no one');
      const pageWithToken = await get(`${s.url}/vault+`, { authorization: (await tokenOf('owner@example.test')).authorization });
      assert.match(pageWithToken.headers.get('location') ?? '', /^\/auth\/login/, 'a browser page never reads tokens');
      const signedIn = await get(`${s.url}/jira+`, cookies.get('owner'));
      assert.equal(signedIn.headers.get('location'), `/dashboard/links/${ids.get('jira')}`, 'a template too, without its values');
    });

    test('a template without its values asks for them in a form that fills them by name', async () => {
      const page = await get(`${s.url}/jira`, cookies.get('stranger'));
      assert.equal(page.status, 200);
      const html = await page.text();
      assert.match(html, /<title>[^<]*\/jira needs a ticket — Joe Links<\/title>/);
      assert.match(html, /<h1[^>]*><span class="font-mono">[^<]*\/jira<\/span> needs a ticket<\/h1>/);
      assert.match(html, /<form method="get" action="\/jira"/, 'a GET form back to the link');
      assert.match(html, /<label for="fill-in-ticket"[^>]*>ticket<\/label>/);
      assert.match(html, /<input id="fill-in-ticket" name="ticket" type="text" value(="")? /);
      assert.ok(html.includes('https://jira.test/browse/<strong class="font-bold underline">$ticket</strong>'), 'the destination pattern');
      assert.ok(html.includes('/jira/&lt;ticket>'), 'an example of the way to skip the form');
      assert.doesNotMatch(html, /Link not found/);

      const half = await (await get(`${s.url}/gh2/joe`)).text();
      assert.match(half, /needs a repo<\/h1>/, 'only the missing value is asked for');
      assert.match(half, /name="org" type="text" value="joe"/, 'a given value is pre-filled');
      assert.match(half, /name="repo" type="text" value(="")? /);
      // The form's own submission: every field by name.
      const submitted = await get(`${s.url}/gh2?org=joe&repo=links`);
      assert.equal(submitted.headers.get('location'), 'https://github.com/joe/links');
      const hostile = await get(`${s.url}/jira?ticket=${encodeURIComponent('../../x?y#z')}`);
      assert.equal(hostile.headers.get('location'), 'https://jira.test/browse/..%2F..%2Fx%3Fy%23z', 'values are encoded as path segments');

      // The gates come before the form: a stranger learns nothing of a secure template.
      const locked = await get(`${s.url}/locker`, cookies.get('stranger'));
      assert.equal(locked.status, 403);
      assert.ok(!(await locked.text()).includes('locker.test'), 'no destination pattern for a stranger');
      assert.equal((await get(`${s.url}/locker`)).headers.get('location'), `/auth/login?return_url=${encodeURIComponent('/locker')}`);
      assert.match(await (await get(`${s.url}/locker`, cookies.get('owner'))).text(), /needs a box/);
    });

    test('a dot segment a client sends as is never walks up a forwarding link’s path', async () => {
      const { port } = new URL(s.url);
      for (const path of ['/fwd/..', '/fwd/../x', '/fwd/a/./b', '/manual/%2e%2e']) {
        const r = await new Promise<http.IncomingMessage>((resolve, reject) => {
          http.get({ host: '127.0.0.1', port, path }, resolve).on('error', reject);
        });
        r.resume();
        assert.equal(r.statusCode, 404, path);
        assert.equal(r.headers.location, undefined, path);
      }
    });

    test('malformed and odd paths get a styled page with the security headers, never a bare text answer', async () => {
      for (const path of ['/%ff<svg>', '/%', '/a%2fb', '/x/%00', `/${'a'.repeat(3000)}`, '/Static/app.css', '/links/nope']) {
        const r = await get(`${s.url}${path}`);
        assert.equal(r.status, 404, path);
        assert.match(r.headers.get('content-type') ?? '', /^text\/html/, path);
        assert.match(r.headers.get('content-security-policy') ?? '', /script-src 'self'/, path);
        assert.doesNotMatch(await r.text(), /<svg>/, path);
      }
    });
  });
}
