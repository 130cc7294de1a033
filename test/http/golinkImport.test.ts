import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { DbDriver } from '../../src/config.js';
import { IMPORT_FIXTURES } from '../helpers/paths.js';
import { get, sessionCookie, type TestServer } from '../helpers/server.js';
import { actor, call, createLink, startApi, uploadImport } from '../api/support.js';
import { goFormat } from '../../src/domain/golinkTemplate.js';

/**
 * After importing a golink `/.export`, every link answers as golink answers. The fixture
 * (test/fixtures/imports/golink-own-tests.jsonl) holds the links of tailscale/golink's own
 * tests, golink_test.go's TestServeGo, TestResolveLink and TestExpandLink (one link per
 * destination they try), and the examples of its tmpl/help.html; each case below is one of
 * theirs, with golink's answer.
 *
 * Where we answer otherwise, on purpose:
 * - TestServeGo "unknown variable" and TestExpandLink "unknown-field" (`{{.Invalid}}`,
 *   `{{.Foo}}`): golink saves the link and answers 500 on every visit; the import refuses
 *   the row, naming the field, so the name is a plain 404 here.
 * - TestServeGo "user link, anonymous request" and TestExpandLink "var-expansions-no-user":
 *   golink answers 401; here the visitor is sent to sign in, then comes back.
 * - TestExpandLink "relative-link" (`rel`): golink writes `Location: rel/a`, which a browser
 *   resolves beside the visited path; here `rel` is the go link `/rel`, what golink's help
 *   means by it, so the answer is `/rel/a`.
 * - TestResolveLink "go/meet/foo", "http://go/meet/foo" and "http://mygo/meet/foo" test how
 *   golink's command line reads a URL someone typed; no request of a server has that shape.
 */

const DRIVERS: Array<[DbDriver, string | undefined]> = [
  ['sqlite3', undefined],
  ['postgres', 'JOE_TEST_PG_DSN'],
  ['mysql', 'JOE_TEST_MYSQL_DSN'],
];

for (const [driver, env] of DRIVERS) {
  describe(
    `a golink export answers as golink [${driver}]`,
    { skip: env !== undefined && !process.env[env] ? `${env} not set` : false },
    () => {
      let s: TestServer;
      let foo: string;
      before(async () => {
        s = await startApi({ driver });
        const importer = await actor(s, 'importer');
        const r = await uploadImport(s, importer, 'golink', readFileSync(new URL('golink-own-tests.jsonl', IMPORT_FIXTURES), 'utf8'));
        assert.equal(r.status, 200);
        const refused = r.json.rows.filter((row) => row.action === 'refused').map((row) => row.written);
        assert.deepEqual(
          refused.sort(),
          ['invalid-var', 'unknown-field'],
          JSON.stringify(r.json.rows.filter((row) => row.action === 'refused')),
        );
        const user = await s.store.users.create({ email: 'foo@example.com', displayName: 'Foo', role: 'user' });
        foo = await sessionCookie(s.store, user);
      });
      after(() => s?.stop());

      /** The Location golink's answer would carry, from a visit to `path` (signed in as foo@example.com unless anonymous). */
      const where = async (path: string, anonymous = false) => {
        const r = await get(`${s.url}${path}`, anonymous ? {} : { cookie: foo });
        return { status: r.status, location: r.headers.get('location') };
      };
      const goesTo = async (path: string, want: string, anonymous = false) => {
        assert.deepEqual(await where(path, anonymous), { status: 302, location: want }, path);
      };

      test('TestServeGo', async () => {
        await goesTo('/who', 'http://who/');
        await goesTo('/who', 'http://who/', true);
        await goesTo('/who/p', 'http://who/p');
        await goesTo('/who?q=1', 'http://who/?q=1');
        await goesTo('/who/p?q=1', 'http://who/p?q=1');
        await goesTo('/who/http://host', 'http://who/http://host');
        await goesTo('/who.', 'http://who/');
        await goesTo('/who,', 'http://who/');
        await goesTo('/who,/p', 'http://who/p');
        await goesTo('/who)', 'http://who/');
        await goesTo('/who]', 'http://who/');
        await goesTo('/me', '/who/foo@example.com');
        assert.equal((await where('/does-not-exist')).status, 404);
        assert.equal((await where('/invalid-var')).status, 404, 'refused at import rather than a 500 on every visit');
        const anonymous = await where('/me', true);
        assert.equal(anonymous.status, 302);
        assert.match(anonymous.location!, /^\/auth\/login\?return_url=%2Fme$/, 'a link that needs a user sends nobody to sign in');
      });

      test('TestResolveLink, one hop at a time', async () => {
        await goesTo('/meet', 'https://meet.google.com/lookup/');
        await goesTo('/meet/foo', 'https://meet.google.com/lookup/foo');
        await goesTo('/cs', 'http://codesearch/');
        await goesTo('/cs/term', 'http://codesearch/search?q=term');
        await goesTo('/m/foo', 'http://go/meet/foo');
        await goesTo('/chat/foo', '/meet/foo');
      });

      test('TestExpandLink', async () => {
        await goesTo('/dont-mangle-escapes', 'http://host.com/foo%2f/bar');
        await goesTo('/dont-mangle-escapes/extra', 'http://host.com/foo%2f/bar/extra');
        await goesTo('/remainder-insert-slash/extra', 'http://host.com/foo/extra');
        await goesTo('/remainder-long-as-trailing-slash/extra', 'http://host.com/foo/extra');
        const today = goFormat(new Date(), '01-02-2006');
        await goesTo('/var-expansions-time', `https://roamresearch.com/#/app/ts-corp/page/${today}`);
        await goesTo('/var-expansions-user', 'http://host.com/foo@example.com');
        assert.match((await where('/var-expansions-user', true)).location!, /^\/auth\/login/);
        assert.equal((await where('/unknown-field')).status, 404);
        await goesTo('/template', 'https://calendar.google.com/');
        await goesTo('/template/amelie', 'https://calendar.google.com/calendar/embed?mode=week&src=amelie@tailscale.com');
        await goesTo('/template-with-pathescape-func/a/b+c', 'http://host.com/a%2Fb+c');
        await goesTo('/template-with-queryescape-func/a/b+c', 'http://host.com/a%2Fb%2Bc');
        await goesTo('/template-with-trimprefix-func/BUG-123', 'http://host.com/123');
        await goesTo('/template-with-trimsuffix-func/a/', 'http://host.com/a');
        await goesTo('/template-with-tolower-func/BUG-123', 'http://host.com/bug-123');
        await goesTo('/template-with-toupper-func/bug-123', 'http://host.com/BUG-123');
        await goesTo('/template-with-match-func/123', 'http://host.com/id/123');
        await goesTo('/template-with-match-func/query', 'http://host.com/search/query');
        await goesTo('/relative-link/a', '/rel/a');
        await goesTo('/relative-link-with-slash/a', '/rel/a');
        await goesTo('/relative-link-with-slash?a=b', '/rel?a=b');
        await goesTo('/relative-link-with-slash/path?a=b', '/rel/path?a=b');
        await goesTo('/combine-query-string?a=2&b=2', '/rel?a=1&a=2&b=2');
        await goesTo('/template-and-combined-query-string/path?b=2', '/rel/path?a=1&b=2');
      });

      test('tmpl/help.html', async () => {
        await goesTo('/FOO.BAR', 'https://foo.example.com/', true);
        await goesTo('/foo.bar/x', 'https://foo.example.com/x');
        await goesTo('/meetingnotes', 'https://docs.example.com/notes/');
        await goesTo('/MEETING-NOTES', 'https://docs.example.com/notes/');
        await goesTo('/who/amelie', 'http://who/amelie');
        await goesTo('/search', 'https://www.google.com/');
        await goesTo('/search/pangolins', 'https://www.google.com/search?q=pangolins');
        await goesTo('/slack/eng-team', 'https://company.slack.com/channels/eng-team');
        await goesTo('/varz', 'http://host.example/debug/varz');
        await goesTo('/varz/db1', 'http://db1.example/debug/varz');
        assert.equal((await where('/varz/evil.test%2F')).status, 404, 'a value never moves the redirect off the author’s domain');
        await goesTo('/today', `http://wiki/${goFormat(new Date(), '01-02-2006')}`);
      });

      test('people write golink templates and paths on this server directly; what could move the host is refused', async () => {
        const writer = await actor(s, 'writer');
        await createLink(s, writer, {
          slug: 'bug',
          url: 'https://bugs.example/{{if Match "^[0-9]+$" .Path}}b/{{.Path}}{{else}}q?s={{QueryEscape .Path}}{{end}}',
        });
        await createLink(s, writer, { slug: 'standup', url: '/meet', forward_path_and_query: true });
        await goesTo('/bug/42', 'https://bugs.example/b/42');
        await goesTo('/bug/a b', 'https://bugs.example/q?s=a+b');
        await goesTo('/standup/foo', '/meet/foo');
        for (const [url, why] of [
          ['https://{{.Path}}/', /scheme and host/],
          ['https://a.example/{{range .Path}}{{end}}', /range/],
          ['https://a.example/{{if Match "(a+)+" .Path}}x{{end}}', /repeat/],
          ['//evil.example/', /http/],
        ] as const) {
          const r = await call(s, 'POST', '/api/v1/links', { as: writer, body: { slug: 'nope', url } });
          assert.equal(r.status, 400, url);
          assert.equal(r.body.code, 'INVALID_URL', url);
          assert.match(r.body.error, why, url);
        }
      });

      test('exact slugs still win over golink’s forgiveness', async () => {
        await goesTo('/who/p', 'http://who/p');
        assert.equal((await where('/whop')).status, 404, 'hyphens are ignored, letters are not');
      });
    },
  );
}
