import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { DbDriver } from '../../src/config.js';
import { ERROR_STATUS } from '../../src/domain/errors.js';
import { get, type TestServer } from '../helpers/server.js';
import { actor, call, createLink, snapshot, startApi, type Actor, type ApiResponse } from './support.js';

/**
 * Hostile and random input against the write endpoints, on every database:
 * never a 5xx, always the standard error shape with a specified code, and a
 * rejected request leaves every link table exactly as it was.
 */

const DRIVERS: Array<[DbDriver, string | undefined]> = [
  ['sqlite3', undefined],
  ['postgres', 'JOE_TEST_PG_DSN'],
  ['mysql', 'JOE_TEST_MYSQL_DSN'],
];

const CODES = new Set(Object.keys(ERROR_STATUS));

function assertWellFormedRejection(r: ApiResponse, why: string): void {
  assert.ok(r.status < 500, `${why}: ${r.status} ${r.text}`);
  if (r.status < 400) return;
  assert.deepEqual(Object.keys(r.body ?? {}).sort(), ['code', 'error'], `${why}: ${r.text}`);
  assert.ok(CODES.has(r.body.code), `${why}: unknown code ${r.body.code}`);
  assert.equal(ERROR_STATUS[r.body.code as keyof typeof ERROR_STATUS], r.status, `${why}: status matches the code`);
}

/** Values of every JSON type, biased towards the awkward ones. */
const awkward = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 300 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    'https://e.test/\u0000',
    '\ud800',
    '🎉'.repeat(201),
    'x'.repeat(3000),
    'javascript:alert(1)',
    '$a$a',
    '%',
    '_',
    "x');--",
  ),
  fc.constantFrom(
    '2099-01-01T00:00:00Z',
    '2001-01-01T00:00:00Z',
    '2099-13-01T00:00:00Z',
    '2099-01-01',
    '9999-12-31T23:59:59Z',
    '0000-01-01T00:00:00Z',
    '2099-01-01T00:00:00+25:00',
  ),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.oneof(fc.string(), fc.integer(), fc.constant(null)), { maxLength: 25 }),
  fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }),
);

const FIELDS = [
  'slug',
  'url',
  'title',
  'description',
  'visibility',
  'expires_at',
  'archived',
  'health_checks_disabled',
  'tags',
  '__proto__',
  'constructor',
  'id',
];

let generated = 0;

/** Text of the right type that a database may still choke on: NUL, lone surrogates, LIKE and quote characters. */
const text = fc.string({
  unit: fc.constantFrom('a', 'Z', '0', ' ', '-', '\u0000', 'é', '🎉', '\ud800', '%', '_', '"', "'", '\\'),
  maxLength: 30,
});
const sometimes = <T>(valid: fc.Arbitrary<T>) => fc.oneof({ weight: 5, arbitrary: valid }, { weight: 1, arbitrary: awkward });

/** Bodies of the right shape, usually valid but for a field or two: the ones that reach the database. */
const nearlyValid = fc
  .record(
    {
      slug: sometimes(fc.stringMatching(/^[a-z0-9]{3,12}$/)),
      url: sometimes(fc.tuple(fc.webUrl(), text).map(([u, t]) => `${u}/${t}`)),
      title: sometimes(text),
      description: sometimes(text),
      visibility: sometimes(fc.constantFrom('public', 'private', 'secure', '')),
      tags: sometimes(fc.array(fc.oneof(fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 _-]{0,10}$/), text), { maxLength: 22 })),
      expires_at: sometimes(fc.constantFrom(null, '2099-01-01T00:00:00Z', '2099-06-01T12:30:00.123+05:30')),
      archived: sometimes(fc.boolean()),
      health_checks_disabled: sometimes(fc.boolean()),
    },
    { requiredKeys: [] },
  )
  .map((body) => ({ slug: `f-${++generated}`, url: 'https://fuzz.test/', ...body }));

const linkBody = fc.oneof(
  { weight: 1, arbitrary: fc.jsonValue() },
  { weight: 1, arbitrary: fc.dictionary(fc.constantFrom(...FIELDS), awkward, { maxKeys: 8 }) },
  { weight: 4, arbitrary: nearlyValid },
);

const rawBody = fc.record({
  text: fc.oneof(
    fc.string(),
    fc.constantFrom('{', '{"slug":"a",}', '[1,2', 'null', '"str"', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}', '1e999'),
  ),
  type: fc.constantFrom(
    'application/json',
    'text/plain',
    'application/x-www-form-urlencoded',
    'application/xml',
    'application/json; charset=latin1',
    'multipart/form-data; boundary=x',
  ),
});

for (const [driver, env] of DRIVERS) {
  describe(
    `bad input never breaks the API [${driver}]`,
    { skip: env !== undefined && !process.env[env] ? `${env} not set` : false },
    () => {
      let s: TestServer;
      let owner: Actor;
      let linkId: string;
      before(async () => {
        s = await startApi({ driver });
        owner = await actor(s, 'fuzz');
        linkId = (await createLink(s, owner, { slug: 'fuzz-target', title: 'Target', tags: ['keep'] })).id;
      });
      after(async () => s.stop());

      test('random JSON to POST /links: no 5xx, and a rejected body writes nothing', async () => {
        await fc.assert(
          fc.asyncProperty(linkBody, async (body) => {
            const before = await snapshot(s);
            const r = await call(s, 'POST', '/api/v1/links', { as: owner, body: JSON.stringify(body) });
            assertWellFormedRejection(r, `POST ${JSON.stringify(body).slice(0, 200)}`);
            if (r.status >= 400)
              assert.equal(await snapshot(s), before, `rejected ${JSON.stringify(body).slice(0, 200)} changed the tables`);
            else assert.equal(r.status, 201);
          }),
          { numRuns: driver === 'sqlite3' ? 250 : 120 },
        );
      });

      test('random JSON to PUT /links/{id}: no 5xx, and a rejected body writes nothing', async () => {
        await fc.assert(
          fc.asyncProperty(linkBody, async (body) => {
            const before = await snapshot(s);
            const r = await call(s, 'PUT', `/api/v1/links/${linkId}`, { as: owner, body: JSON.stringify(body) });
            assertWellFormedRejection(r, `PUT ${JSON.stringify(body).slice(0, 200)}`);
            if (r.status >= 400)
              assert.equal(await snapshot(s), before, `rejected ${JSON.stringify(body).slice(0, 200)} changed the tables`);
            else assert.equal(r.status, 200);
          }),
          { numRuns: driver === 'sqlite3' ? 250 : 120 },
        );
      });

      test('arbitrary bytes and content types: 400 in the standard shape, nothing written', async () => {
        await fc.assert(
          fc.asyncProperty(rawBody, fc.constantFrom('POST', 'PUT'), async ({ text, type }, method) => {
            const before = await snapshot(s);
            const path = method === 'POST' ? '/api/v1/links' : `/api/v1/links/${linkId}`;
            const r = await call(s, method, path, { as: owner, body: text, headers: { 'content-type': type } });
            assertWellFormedRejection(r, `${method} ${type} ${text.slice(0, 60)}`);
            if (r.status >= 400) assert.equal(await snapshot(s), before);
          }),
          { numRuns: 100 },
        );
      });

      test('malformed ids, query parameters, cursors and URLs are 4xx in the standard shape', async () => {
        const cases: Array<[string, string, number]> = [
          ['GET', '/api/v1/links/not-a-uuid', 404],
          ['GET', '/api/v1/links/%00', 404],
          ['GET', `/api/v1/links/${'a'.repeat(3000)}`, 404],
          ['GET', '/api/v1/links/%E0%A4%A', 400],
          ['PUT', '/api/v1/links/00000000-0000-4000-8000-000000000000', 404],
          ['DELETE', '/api/v1/links/%27%3B--', 404],
          ['GET', `/api/v1/links/${linkId}/owners/x`, 405],
          ['DELETE', `/api/v1/links/${linkId}/owners/%00`, 400],
          ['DELETE', `/api/v1/links/${linkId}/shares/not-a-user`, 404],
          ['DELETE', '/api/v1/tokens/%00', 400],
          ['DELETE', '/api/v1/tokens/1', 404],
          ['GET', '/api/v1/tags/%00/links', 400],
          ['GET', '/api/v1/tags/..%2F..%2Fetc/links', 404],
          ['PUT', '/api/v1/admin/users/%00/role', 403],
          ['GET', '/api/v1/links?url=%00', 400],
          ['GET', '/api/v1/links?cursor=%00%00', 200],
          ['GET', `/api/v1/links?cursor=${Buffer.from('a\u0000b\u0000c').toString('base64')}`, 200],
          ['GET', '/api/v1/links?limit=1&limit=2', 400],
          ['GET', '/api/v1/links?url=a&url=b', 400],
          ['GET', '/api/v1/links/suggest?q=%00', 400],
          ['GET', '/api/v1/links/suggest?q=%25_%21', 200],
          ['GET', `/api/v1/links/suggest?q=${'x'.repeat(5000)}`, 200],
          ['GET', '/api/v1/tags?cursor=////', 200],
          ['GET', '/api/v1/links/suggest?limit=99999999999999999999', 400],
          ['PATCH', `/api/v1/links/${linkId}`, 405],
        ];
        for (const [method, path, status] of cases) {
          const r = await call(s, method, path, { as: owner });
          assert.equal(r.status, status, `${method} ${path.slice(0, 60)}: ${r.text}`);
          assertWellFormedRejection(r, `${method} ${path.slice(0, 60)}`);
        }
      });

      test('a body over 1 MiB is 413 PAYLOAD_TOO_LARGE', async () => {
        const before = await snapshot(s);
        const r = await call(s, 'POST', '/api/v1/links', {
          as: owner,
          body: JSON.stringify({ slug: 'huge', url: 'https://e.test', description: 'x'.repeat(1_100_000) }),
        });
        assert.equal(r.status, 413);
        assert.equal(r.body.code, 'PAYLOAD_TOO_LARGE');
        assert.equal(await snapshot(s), before);
      });

      test('NUL characters are refused before they reach the database', async () => {
        const before = await snapshot(s);
        for (const body of [
          { slug: 'nul-1', url: 'https://e.test/\u0000' },
          { slug: 'nul-2', url: 'https://e.test', title: 'a\u0000' },
          { slug: 'nul-3', url: 'https://e.test', tags: ['ok', 'b\u0000'] },
        ]) {
          const r = await call(s, 'POST', '/api/v1/links', { as: owner, body });
          assert.equal(r.status, 400, r.text);
          assert.equal(r.body.code, 'BAD_REQUEST');
        }
        assert.equal(
          (await call(s, 'POST', '/api/v1/links', { as: owner, body: { slug: 'nul-ok', url: 'https://e.test', ignored: '\u0000' } }))
            .status,
          201,
          'ignored fields are ignored',
        );
        const after = JSON.parse(await snapshot(s));
        assert.equal(after.links.length, JSON.parse(before).links.length + 1);
      });

      test('URLs have no length limit: a 900 kB destination is stored whole', async () => {
        const url = `https://long.test/${'x'.repeat(900_000)}`;
        const r = await call(s, 'POST', '/api/v1/links', { as: owner, body: { slug: 'very-long', url } });
        assert.equal(r.status, 201, r.text.slice(0, 200));
        assert.equal((await s.store.links.get(r.body.id))?.url, url);
      });

      test('a HEAD request gets the GET status with no body', async () => {
        const r = await get(`${s.url}/api/v1/links`, { authorization: `Bearer ${owner.token}` }, 'HEAD');
        assert.equal(r.status, 200);
        assert.equal(await r.text(), '');
      });
    },
  );
}
