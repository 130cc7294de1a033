import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ALL_DRIVERS, skipReason } from '../helpers/databases.js';
import { get, type TestServer } from '../helpers/server.js';
import { actor, assertError, call, createLink, snapshot, startApi, type Actor } from '../api/support.js';
import { signedIn, type Client } from '../web/support.js';

/**
 * A placeholder may never move a redirect to another host
 * (docs/links.md#placeholders-in-the-host): templates that would let it are
 * refused on every write, and ones stored before the rule answer 404 instead
 * of redirecting, over real HTTP on every database.
 */

const UNSAFE_LINK_TEMPLATES = ['https://example.com$p', 'https://$p/', 'https://h.test:$port/x', 'https://$u@h.test/'];

for (const driver of ALL_DRIVERS) {
  describe(`template hosts [${driver}]`, { skip: skipReason(driver) }, () => {
    let s: TestServer;
    let ann: Actor;
    let admin: Client;
    before(async () => {
      s = await startApi({ driver });
      ann = await actor(s, 'ann');
      admin = await signedIn(s, `admin-${driver}@example.test`, { admin: true });
    });
    after(async () => s.stop());

    test('REST create and update refuse a variable that ends the host or sits in the user name or port, changing nothing', async () => {
      const link = await createLink(s, ann, { slug: 'team-docs', url: 'https://$team.example.com/$page' });
      const before = await snapshot(s);
      for (const url of UNSAFE_LINK_TEMPLATES) {
        assertError(await call(s, 'POST', '/api/v1/links', { as: ann, body: { slug: 'unsafe', url } }), 400, 'INVALID_URL', url);
        assertError(await call(s, 'PUT', `/api/v1/links/${link.id}`, { as: ann, body: { url } }), 400, 'INVALID_URL', url);
      }
      assert.equal(await snapshot(s), before);
    });

    test('a host template redirects only to hosts under its literal domain', async () => {
      const at = (path: string) => get(`${s.url}${path}`);
      assert.equal((await at('/team-docs/eng/intro')).headers.get('location'), 'https://eng.example.com/intro');
      for (const path of ['/team-docs/evil.com%2F/x', '/team-docs/a@evil.com/x', '/team-docs/evil.com:80/x']) {
        const r = await at(path);
        assert.equal(r.status, 404, path);
        assert.equal(r.headers.get('location'), null, path);
      }
      // An empty value is a missing one: the fill-in page asks for it instead of redirecting.
      const empty = await at('/team-docs//x');
      assert.equal(empty.status, 200);
      assert.equal(empty.headers.get('location'), null);
    });

    test('the keyword admin form refuses {slug} at the end of the host or in the port, creating nothing (the HTMX fragment carries the message)', async () => {
      for (const [url_template, message] of [
        ['https://{slug}/', "{slug} in the url's host must be followed by the rest of the host name"],
        ['https://example.com{slug}', "{slug} in the url's host must be followed by the rest of the host name"],
        ['https://x.test:{slug}/', "{slug} may not stand in the url's user name, password or port"],
        ['{slug}', 'url must start with http:// or https:// and a host'],
      ] as const) {
        const r = await admin.send('POST', '/admin/keywords', { keyword: 'hk', url_template, description: '' }, { htmx: true });
        assert.ok(
          r.body.includes(message.replaceAll("'", '&#39;')) || r.body.includes(message),
          `${url_template}: ${r.body.slice(0, 300)}`,
        );
      }
      assert.deepEqual(await s.store.keywords.list(), []);
      const ok = await admin.send(
        'POST',
        '/admin/keywords',
        { keyword: 'sub', url_template: 'https://{slug}.example.com/', description: '' },
        { htmx: true },
      );
      assert.equal(ok.status, 200);
      assert.equal((await get(`${s.url}/sub/eng`)).headers.get('location'), 'https://eng.example.com/');
      const evil = await get(`${s.url}/sub/evil.com/`);
      assert.equal(evil.status, 404);
      assert.equal(evil.headers.get('location'), null);
    });

    test('stored keyword and link templates that predate the rule answer 404, never another host', async () => {
      const k = s.store.db.kysely;
      await k
        .insertInto('keywords')
        .values([
          { id: randomUUID(), keyword: 'hk', url_template: 'https://{slug}.example.com/', description: '', created_at: Date.now() },
          { id: randomUUID(), keyword: 'tail', url_template: 'https://example.com{slug}', description: '', created_at: Date.now() },
          { id: randomUUID(), keyword: 'bare', url_template: '{slug}', description: '', created_at: Date.now() },
        ])
        .execute();
      const legacy = await createLink(s, ann, { slug: 'legacy', url: 'https://example.com/' });
      await k.updateTable('links').set({ url: 'https://example.com$p' }).where('id', '=', legacy.id).execute();
      for (const path of [
        '/hk/evil.com/',
        '/hk/evil.com%23',
        '/hk/a.example.com%23',
        '/tail/.evil.com',
        '/bare/https://evil.com',
        '/legacy/.evil.com',
      ]) {
        const r = await get(`${s.url}${path}`);
        assert.equal(r.status, 404, path);
        assert.equal(r.headers.get('location'), null, path);
      }
      // The same stored keyword still serves values that only add labels in front of its domain.
      assert.equal((await get(`${s.url}/hk/eng`)).headers.get('location'), 'https://eng.example.com/');
      // Host routing goes through the same check.
      const host = await get(`${s.url}/evil.com/`, { host: 'hk' });
      assert.equal(host.status, 404);
      assert.equal(host.headers.get('location'), null);
    });
  });
}
