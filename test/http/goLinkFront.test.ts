import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { User } from '../../src/store/types.js';
import { eventually, get, sessionCookie, startTestServer, type TestServer } from '../helpers/server.js';
import { createLink, updateLink } from '../helpers/links.js';

/**
 * Go-link redirects are answered before Fastify (src/http/goLinks.ts), and
 * only pages go through it. A visitor must not be able to tell which answered:
 * same status, same headers, same click, folded slug or not.
 */
describe('the go-link front', () => {
  let s: TestServer;
  let alice: User;
  let aliceCookie: string;

  const clickRows = async (slug: string) => {
    const link = await s.store.links.getBySlug(slug);
    return s.store.db.kysely
      .selectFrom('link_clicks')
      .select(['user_id', 'referrer', 'user_agent'])
      .where('link_id', '=', link!.id)
      .execute();
  };
  /** Header names and values, minus the ones that differ by the second. */
  const headerSet = (raw: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(raw)
        .filter(([k]) => k !== 'date')
        .sort(([a], [b]) => a.localeCompare(b)),
    );

  before(async () => {
    s = await startTestServer();
    alice = await s.store.users.create({ email: 'alice@example.com', displayName: 'Alice' });
    aliceCookie = await sessionCookie(s.store, alice);
    await createLink(s.store, { slug: 'wiki', url: 'https://wiki.test/start' }, alice.id);
    await createLink(s.store, { slug: 'docs', url: 'https://docs.test/' }, alice.id);
    await createLink(s.store, { slug: 'unlisted', url: 'https://unlisted.test/', visibility: 'private' }, alice.id);
    await createLink(s.store, { slug: 'vault', url: 'https://vault.test/', visibility: 'secure' }, alice.id);
    await s.store.keywords.create({ keyword: 'go', urlTemplate: 'https://keyword.test/{slug}' });
  });

  after(async () => {
    await s.stop();
  });

  test('an exact and a case-folded hit carry identical headers, and no page headers', async () => {
    const fast = await get(`${s.url}/wiki`);
    const resolver = await get(`${s.url}/WIKI`);
    assert.equal(fast.status, 302);
    assert.equal(resolver.status, 302);
    assert.deepEqual(headerSet(fast.headers.raw), headerSet(resolver.headers.raw));
    assert.equal(fast.headers.get('location'), 'https://wiki.test/start');
    assert.equal(fast.headers.get('content-security-policy'), null);
    assert.equal(fast.headers.get('referrer-policy'), 'strict-origin-when-cross-origin');
  });

  test('an anonymous click is recorded without a user; a signed-in one names the user', async () => {
    assert.equal(
      (
        await get(`${s.url}/docs`, {
          'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0',
          referer: 'https://chat.test/room?secret=1',
        })
      ).status,
      302,
    );
    assert.equal((await get(`${s.url}/docs`, { cookie: aliceCookie })).status, 302);
    await eventually(async () => (await clickRows('docs')).length === 2);
    const rows = await clickRows('docs');
    assert.deepEqual(rows.map((r) => r.user_id).sort(), [alice.id, null].sort());
    const anonymous = rows.find((r) => r.user_id === null)!;
    assert.equal(anonymous.referrer, 'https://chat.test/room', 'the referrer loses its query on every path');
    assert.match(anonymous.user_agent ?? '', /Firefox/);
  });

  test('a HEAD redirects without a click; HTMX gets its 204', async () => {
    const before = (await clickRows('wiki')).length;
    const head = await get(`${s.url}/wiki`, {}, 'HEAD');
    assert.equal(head.status, 302);
    const htmx = await get(`${s.url}/wiki`, { 'hx-request': 'true' });
    assert.equal(htmx.status, 204);
    assert.equal(htmx.headers.get('hx-redirect'), 'https://wiki.test/start');
    await eventually(async () => (await clickRows('wiki')).length === before + 1);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal((await clickRows('wiki')).length, before + 1, 'only the HTMX GET counted');
  });

  test('a keyword host wins over a slug of the same name, exactly as in the resolver', async () => {
    const r = await get(`${s.url}/wiki`, { host: 'go' });
    assert.equal(r.status, 302);
    assert.equal(r.headers.get('location'), 'https://keyword.test/wiki');
  });

  test('behind a keyword-shaped host that is no keyword, links redirect and are counted as anywhere else', async () => {
    const before = (await clickRows('docs')).length;
    for (const host of ['links', 'links:8080']) {
      const r = await get(`${s.url}/docs`, { host });
      assert.equal(r.status, 302, host);
      assert.equal(r.headers.get('location'), 'https://docs.test/');
    }
    assert.equal(
      (await get(`${s.url}/vault`, { host: 'links' })).headers.get('location')?.includes('vault.test'),
      false,
      'a secure link still asks who is visiting',
    );
    assert.equal((await get(`${s.url}/nothing-here`, { host: 'links' })).status, 404);
    await eventually(async () => (await clickRows('docs')).length === before + 2);
  });

  test('the front and the pages read the same session from any Cookie header', async () => {
    const token = aliceCookie.slice('session='.length);
    const stranger = 'A'.repeat(43);
    const cases: Array<[string, boolean]> = [
      [aliceCookie, true],
      [`theme=dark; ${aliceCookie}`, true],
      [`_ga=GA1.1.1234567890.1700000000; consent=groups%3DC0001%253A1; ${aliceCookie}; cf_clearance=x-1-0`, true],
      [`${aliceCookie}; session=${stranger}`, true],
      [`session=${stranger}; ${aliceCookie}`, false],
      [`session="${token}"`, false],
      [`session; =;=; ${aliceCookie}`, true],
      [`sessions=${token}`, false],
      ['session=%E0%A4%A; theme=%ZZ', false],
    ];
    for (const [cookie, signedIn] of cases) {
      const secure = await get(`${s.url}/vault`, { cookie });
      assert.equal(secure.headers.get('location'), signedIn ? 'https://vault.test/' : '/auth/login?return_url=%2Fvault', cookie);
      const page = await get(`${s.url}/dashboard`, { cookie });
      assert.equal(page.status, signedIn ? 200 : 302, `page: ${cookie}`);
    }
  });

  test('private links resolve for anyone; secure ones send a stranger to sign in', async () => {
    assert.equal((await get(`${s.url}/unlisted`)).headers.get('location'), 'https://unlisted.test/');
    const secure = await get(`${s.url}/vault`);
    assert.equal(secure.status, 302);
    assert.equal(secure.headers.get('location'), '/auth/login?return_url=%2Fvault');
  });

  test('archived links and misses get the resolver pages with every security header', async () => {
    const link = await s.store.links.getBySlug('docs');
    await updateLink(s.store, link!.id, { archived: true });
    const archived = await get(`${s.url}/docs`);
    assert.equal(archived.status, 404);
    assert.match(archived.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    assert.equal((await get(`${s.url}/nothing-here`)).status, 404);
  });
});
