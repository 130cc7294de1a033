import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { DbDriver } from '../../src/config.js';
import { IMPORT_FIXTURES } from '../helpers/paths.js';
import { get, sessionCookie } from '../helpers/server.js';
import type { TestServer } from '../helpers/server.js';
import { actor, assertError, call, createLink, snapshot, startApi, type Actor } from './support.js';

/**
 * Names of several segments (docs/links.md#slugs) over the REST API on every database:
 * written, refused with the documented error and nothing written, held in the one namespace
 * of names, brought in by an import of Dub and Trotto files, and followed as typed.
 */

const DRIVERS: Array<[DbDriver, string | undefined]> = [
  ['sqlite3', undefined],
  ['postgres', 'JOE_TEST_PG_DSN'],
  ['mysql', 'JOE_TEST_MYSQL_DSN'],
];

const fixture = (name: string): string => readFileSync(new URL(name, IMPORT_FIXTURES), 'utf8');

for (const [driver, env] of DRIVERS) {
  describe(`names with "/" [${driver}]`, { skip: env !== undefined && !process.env[env] ? `${env} not set` : false }, () => {
    let s: TestServer;
    let ann: Actor;
    before(async () => {
      s = await startApi({ driver });
      ann = await actor(s, 'ann');
    });
    after(() => s.close());

    /** Where the server sends a visit to `path`, or its status when it sends none. */
    const goTo = async (path: string, cookie?: string): Promise<string | number> => {
      const r = await get(`${s.url}/${path}`, cookie ? { cookie } : {});
      return r.status === 302 ? r.headers.get('location')! : r.status;
    };

    test('created and updated over REST, then followed by their whole name and by the longest prefix', async () => {
      const blog = await createLink(s, ann, { slug: 'blog', url: 'https://example.com/blog' });
      const launch = await createLink(s, ann, { slug: 'blog/launch', url: 'https://example.com/launch', aliases: ['launch/day'] });
      assert.equal(launch.slug, 'blog/launch');
      assert.deepEqual(launch.aliases, ['launch/day']);
      const read = await call(s, 'GET', `/api/v1/links/${launch.id}`, { as: ann });
      assert.equal(read.body.slug, 'blog/launch');
      const updated = await call(s, 'PUT', `/api/v1/links/${launch.id}`, {
        as: ann,
        body: { url: 'https://example.com/launch-v2', aliases: ['launch/day', 'launch/week'] },
      });
      assert.equal(updated.status, 200, updated.text);
      assert.deepEqual(updated.body.aliases, ['launch/day', 'launch/week']);
      assert.equal(await goTo('blog/launch'), 'https://example.com/launch-v2');
      assert.equal(await goTo('Blog/Launch/more'), 'https://example.com/launch-v2', 'case-folded; the rest is its rest');
      assert.equal(await goTo('launch/week'), 'https://example.com/launch-v2', 'an alias with "/"');
      assert.equal(await goTo('blog'), 'https://example.com/blog');
      assert.equal(await goTo('blog/other'), 'https://example.com/blog', 'no longer name: the first segment');
      // `+` asks for the page of the whole name: a signed-in owner is sent to it.
      const cookie = await sessionCookie(s.store, ann.user);
      assert.equal(await goTo('blog/launch+', cookie), `/dashboard/links/${launch.id}`);
      assert.equal(await goTo('blog+', cookie), `/dashboard/links/${blog.id}`);
      const listed = await call(s, 'GET', '/api/v1/links?limit=100', { as: ann });
      assert.ok(listed.body.links.some((l: { slug: string }) => l.slug === 'blog/launch'));
    });

    test('a name breaking the rule is a 400 with the documented error, and nothing is written', async () => {
      const taken = await createLink(s, ann, { slug: 'taken/name', url: 'https://example.com/t' });
      const before = await snapshot(s);
      const refused: Array<[Record<string, unknown>, string, RegExp]> = [
        [{ slug: 'admin/x' }, 'INVALID_SLUG', /slug starts with a reserved word and cannot be used: "admin"/],
        [{ slug: 'api/x' }, 'INVALID_SLUG', /reserved word.*"api"/],
        [{ slug: 'links/x' }, 'INVALID_SLUG', /reserved word.*"links"/],
        [{ slug: 'blog//x' }, 'INVALID_SLUG', /segments joined by single "\/"/],
        [{ slug: '/blog' }, 'INVALID_SLUG', /segments joined by single "\/"/],
        [{ slug: 'blog/' }, 'INVALID_SLUG', /segments joined by single "\/"/],
        [{ slug: 'Blog/Launch' }, 'INVALID_SLUG', /segments joined by single "\/"/],
        [{ slug: 'a/b/c/d/e/f/g/h/i' }, 'INVALID_SLUG', /at most 8 segments/],
        [{ slug: `a/${'b'.repeat(127)}` }, 'INVALID_SLUG', /at most 128 characters/],
        [{ slug: 'fresh/one', aliases: ['s/x'] }, 'INVALID_ALIAS', /alias starts with a reserved word.*"s"/],
        [{ slug: 'taken/name' }, 'SLUG_CONFLICT', /already taken/],
        [{ slug: 'fresh/two', aliases: ['taken/name'] }, 'ALIAS_CONFLICT', /taken\/name/],
      ];
      for (const [body, code, message] of refused) {
        const r = await call(s, 'POST', '/api/v1/links', { as: ann, body: { url: 'https://example.com/', ...body } });
        assertError(r, code === 'SLUG_CONFLICT' || code === 'ALIAS_CONFLICT' ? 409 : 400, code, JSON.stringify(body));
        assert.match(r.body.error, message, JSON.stringify(body));
      }
      const badAlias = await call(s, 'PUT', `/api/v1/links/${taken.id}`, {
        as: ann,
        body: { url: 'https://example.com/t', aliases: ['u/me'] },
      });
      assertError(badAlias, 400, 'INVALID_ALIAS');
      assert.equal(await snapshot(s), before, 'nothing written');
    });

    test('a Dub export and a Trotto list keep their "/" names, and those names redirect', async () => {
      const dub = await call(s, 'POST', '/api/v1/links/import?from=dub-csv', {
        as: ann,
        body: fixture('dub-nested.csv'),
        headers: { 'content-type': 'text/csv' },
      });
      assert.equal(dub.status, 200, dub.text);
      const rows = dub.body.rows as Array<{ slug?: string; action: string; notes?: string[] }>;
      assert.deepEqual(
        rows.map((r) => [r.slug, r.action]),
        [
          ['blog/launch', 'updated'],
          ['blog', 'skipped'],
          ['docs/api-v2', 'created'],
          ['admin-panel', 'created'],
        ],
        'a reserved first segment keeps the joined name it had before',
      );
      assert.equal(await goTo('blog/launch'), 'https://example.com/blog/launch-post');
      assert.equal(await goTo('docs/api-v2'), 'https://example.com/docs/api/v2');

      const trotto = await call(s, 'POST', '/api/v1/links/import?from=trotto', {
        as: ann,
        body: fixture('trotto-namespaces.json'),
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(trotto.status, 200, trotto.text);
      assert.deepEqual(
        (trotto.body.rows as Array<{ slug: string; action: string }>).map((r) => [r.slug, r.action]),
        [
          ['eng/1', 'created'],
          ['eng/onboarding', 'created'],
          ['benefits', 'created'],
        ],
      );
      // Trotto's links need sign-in: imported internal.
      assert.match(String(await goTo('eng/1')), /^\/auth\/login/);
      const cookie = await sessionCookie(s.store, ann.user);
      assert.equal(await goTo('eng/1', cookie), 'https://eng.acme.example/first');
      assert.equal(await goTo('eng/onboarding', cookie), 'https://eng.acme.example/onboarding');
    });
  });
}
