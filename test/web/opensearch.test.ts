import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ALL_DRIVERS, skipReason } from '../helpers/databases.js';
import { addShare, createLink } from '../helpers/links.js';
import { get, sessionCookie, startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The instance as a browser search engine (docs/usage.md#opensearch), over real
 * HTTP on every database: the description names the base URL, every page links
 * it, and suggestions follow the discovery rule, so a stranger never sees a
 * private or secure name, nor an alias of one.
 */

const BASE = 'https://go.example.test';

for (const driver of ALL_DRIVERS) {
  describe(`OpenSearch [${driver}]`, { skip: skipReason(driver) }, () => {
    let s: TestServer;
    const cookie = new Map<string, Record<string, string>>();

    before(async () => {
      s = await startTestServer({ driver, env: { JOE_BASE_URL: `${BASE}/`, JOE_SHORT_KEYWORD: 'go' } });
      const st = s.store;
      const user = async (name: string) => {
        const u = await st.users.create({ email: `${name}@example.test`, displayName: name });
        cookie.set(name, { cookie: await sessionCookie(st, u) });
        return u;
      };
      const owner = await user('owner');
      const recipient = await user('recipient');
      await user('stranger');
      cookie.set('anonymous', {});
      await createLink(st, { slug: 'sprint-board', url: 'https://board.test/', title: 'Sprint board', aliases: ['sprint-plan'] }, owner.id);
      await createLink(
        st,
        { slug: 'sprint-secret', url: 'https://secret.test/', title: 'Hidden', visibility: 'private', aliases: ['sprint-private'] },
        owner.id,
      );
      const vault = await createLink(
        st,
        { slug: 'sprint-vault', url: 'https://vault.test/', title: 'Vault', visibility: 'secure', aliases: ['sprint-safe'] },
        owner.id,
      );
      await addShare(st, vault.id, recipient.id, owner.id);
    });
    after(async () => s.stop());

    test('the description sends searches to the resolver at the configured base URL', async () => {
      const r = await get(`${s.url}/_/opensearch.xml`, { host: 'evil.test' });
      assert.equal(r.status, 200);
      assert.match(r.headers.get('content-type') ?? '', /^application\/opensearchdescription\+xml/);
      const text = await r.text();
      assert.match(text, /<ShortName>go<\/ShortName>/);
      assert.ok(text.includes(`<Url type="text/html" method="get" template="${BASE}/{searchTerms}"/>`), text);
      assert.ok(text.includes(`template="${BASE}/_/opensearch/suggest?q={searchTerms}"`), 'suggestions');
      assert.ok(text.includes('type="application/x-suggestions+json"'));
      assert.ok(!text.includes('evil.test'), 'the base comes from configuration, never from the Host header');
    });

    test('every page links the description in its head', async () => {
      for (const [path, who] of [
        ['/', 'anonymous'],
        ['/dashboard', 'owner'],
        ['/no-such-link', 'anonymous'],
        ['/links', 'stranger'],
      ] as const) {
        const html = await (await get(`${s.url}${path}`, cookie.get(who))).text();
        const head = html.slice(0, html.indexOf('</head>'));
        assert.match(
          head,
          /<link rel="search" type="application\/opensearchdescription\+xml" title="go links" href="\/_\/opensearch.xml"\/?>/,
          path,
        );
      }
    });

    const suggest = async (q: string, who: string) => {
      const r = await get(`${s.url}/_/opensearch/suggest?q=${encodeURIComponent(q)}`, cookie.get(who));
      assert.equal(r.status, 200);
      assert.match(r.headers.get('content-type') ?? '', /^application\/x-suggestions\+json/);
      assert.equal(r.headers.get('cache-control'), 'private, no-store', 'per viewer, never cached');
      return JSON.parse(await r.text()) as [string, string[], string[], string[]];
    };

    test('suggestions are [query, names, titles, urls], aliases included', async () => {
      const [q, names, titles, urls] = await suggest('sprint', 'anonymous');
      assert.equal(q, 'sprint');
      assert.deepEqual(names, ['sprint-board', 'sprint-plan']);
      assert.deepEqual(titles, ['Sprint board', 'Sprint board']);
      assert.deepEqual(urls, [`${BASE}/sprint-board`, `${BASE}/sprint-plan`]);
      assert.deepEqual(await suggest('', 'anonymous'), ['', [], [], []]);
      assert.deepEqual(await suggest('a\u0000b', 'owner'), ['a\u0000b', [], [], []], 'a NUL matches nothing and breaks nothing');
    });

    test('adversarial: strangers never see private or secure names, by prefix, substring, title or typo', async () => {
      const hidden = /sprint-(secret|private|vault|safe)/;
      for (const who of ['anonymous', 'stranger']) {
        for (const q of ['sprint', 'sprint-s', 'secret', 'vault', 'safe', 'Hidden', 'Vault', 'sprint-vaul', 'sprint-saf', 'sprnt-secret']) {
          const [, names, titles, urls] = await suggest(q, who);
          assert.ok(!names.some((n) => hidden.test(n)), `${q} as ${who}: ${names.join(',')}`);
          assert.ok(!titles.includes('Hidden') && !titles.includes('Vault'), `${q} as ${who}: titles`);
          assert.ok(!urls.some((u) => hidden.test(u)), `${q} as ${who}: urls`);
        }
      }
      assert.deepEqual((await suggest('sprint', 'owner'))[1].sort(), [
        'sprint-board',
        'sprint-plan',
        'sprint-private',
        'sprint-safe',
        'sprint-secret',
        'sprint-vault',
      ]);
      assert.deepEqual((await suggest('sprint-', 'recipient'))[1].sort(), ['sprint-board', 'sprint-plan', 'sprint-safe', 'sprint-vault']);
    });

    test('did-you-mean offers aliases, within the same rule', async () => {
      const near = await (await get(`${s.url}/sprint-pln`)).text();
      assert.match(near, /href="\/sprint-plan"/);
      const hidden = await (await get(`${s.url}/sprint-saf`, cookie.get('stranger'))).text();
      assert.doesNotMatch(hidden, /sprint-safe"/, 'a secure link’s alias is not offered to a stranger');
      const shown = await (await get(`${s.url}/sprint-saf`, cookie.get('recipient'))).text();
      assert.match(shown, /href="\/sprint-safe"/);
    });
  });
}
