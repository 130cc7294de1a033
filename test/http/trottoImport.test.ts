import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { DbDriver } from '../../src/config.js';
import { IMPORT_FIXTURES } from '../helpers/paths.js';
import { get, sessionCookie, type TestServer } from '../helpers/server.js';
import { actor, startApi, uploadImport } from '../api/support.js';

/**
 * After importing Trotto's `GET /_/api/links` answer, its plain and programmatic links answer as
 * Trotto answers them (server/src/modules/links/helpers.py get_shortlink: the exact keyword
 * first, then a `%s` pattern with as many path segments). The fixture
 * (test/fixtures/imports/trotto-programmatic.json) is that answer for `drive` beside `drive/%s`,
 * `looker` beside `looker/%s` and `looker/%s/%s`, and a lone `wiki/%s`.
 *
 * Where we answer otherwise, on purpose (docs/import-formats.md#trotto): `looker/%s/%s` is
 * refused, since the one link `looker` takes one value (Trotto counted more visits of
 * `looker/%s`), so `go/looker/a/b` is a miss; and a bare `go/wiki` is the fill-in page, where
 * Trotto has no link at all.
 */

const DRIVERS: Array<[DbDriver, string | undefined]> = [
  ['sqlite3', undefined],
  ['postgres', 'JOE_TEST_PG_DSN'],
  ['mysql', 'JOE_TEST_MYSQL_DSN'],
];

for (const [driver, env] of DRIVERS) {
  describe(
    `a Trotto links list answers as Trotto [${driver}]`,
    { skip: env !== undefined && !process.env[env] ? `${env} not set` : false },
    () => {
      let s: TestServer;
      let cookie: string;
      let rows: Array<Record<string, unknown>>;
      before(async () => {
        s = await startApi({ driver });
        const importer = await actor(s, 'importer');
        cookie = await sessionCookie(s.store, importer.user);
        const r = await uploadImport(s, importer, 'trotto', readFileSync(new URL('trotto-programmatic.json', IMPORT_FIXTURES), 'utf8'));
        assert.equal(r.status, 200, JSON.stringify(r.json));
        rows = r.json.rows;
      });
      after(() => s?.stop());

      const goesTo = async (path: string, want: string) => {
        // Trotto follows links only for signed-in members: the imported links are internal.
        const r = await get(`${s.url}${path}`, { cookie });
        assert.deepEqual({ status: r.status, location: r.headers.get('location') }, { status: 302, location: want }, path);
      };

      test('the report names each merge and the pattern left out', () => {
        const drive = rows.find((r) => r.slug === 'drive')!;
        assert.equal(drive.action, 'created');
        assert.ok(
          (drive.notes as string[]).includes(
            'merged with Trotto’s drive (item 1): its destination is where the link goes when no value is given',
          ),
          JSON.stringify(drive),
        );
        const refused = rows.filter((r) => r.action === 'refused');
        assert.deepEqual(
          refused.map((r) => r.reason),
          ['Trotto’s looker/%s/%s was not imported: looker and looker/%s became one link here, which takes one value'],
        );
        assert.deepEqual(rows.map((r) => r.action).sort(), ['created', 'created', 'created', 'refused']);
      });

      test('go/drive opens the plain link, go/drive/roadmap the programmatic one', async () => {
        await goesTo('/drive', 'https://drive.google.com');
        await goesTo('/drive/roadmap', 'https://drive.google.com/drive/search?q=roadmap');
        await goesTo('/looker', 'https://acme.looker.com/');
        await goesTo('/looker/42', 'https://acme.looker.com/dashboards/42');
        await goesTo('/wiki/Onboarding', 'https://wiki.acme.example/Onboarding');
        assert.equal((await get(`${s.url}/looker/42/tiles`, { cookie })).status, 404, 'the pattern left out');
        assert.equal((await get(`${s.url}/wiki`, { cookie })).status, 200, 'a lone pattern asks for its value');
      });
    },
  );
}
