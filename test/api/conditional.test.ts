import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { DbDriver } from '../../src/config.js';
import { actor, assertError, call, createLink, snapshot, startApi, type Actor } from './support.js';
import type { TestServer } from '../helpers/server.js';

/**
 * No lost updates (docs/api.md#conditional-requests): a read hands out the link's version as
 * its ETag, and a change or delete that names an older one is refused with nothing changed —
 * also when two clients race with the same version, on every database.
 */

const DRIVERS: Array<[DbDriver, string | undefined]> = [
  ['sqlite3', undefined],
  ['postgres', 'JOE_TEST_PG_DSN'],
  ['mysql', 'JOE_TEST_MYSQL_DSN'],
];

for (const [driver, env] of DRIVERS) {
  describe(
    `conditional requests on a link [${driver}]`,
    { skip: env !== undefined && !process.env[env] ? `${env} not set` : false },
    () => {
      let s: TestServer;
      let alice: Actor;
      let bob: Actor;
      before(async () => {
        s = await startApi({ driver });
        alice = await actor(s, 'alice');
        bob = await actor(s, 'bob');
      });
      after(async () => s.stop());

      const read = (id: string, headers: Record<string, string> = {}) => call(s, 'GET', `/api/v1/links/${id}`, { as: alice, headers });
      const put = (id: string, body: Record<string, unknown>, ifMatch?: string) =>
        call(s, 'PUT', `/api/v1/links/${id}`, { as: alice, body, headers: ifMatch === undefined ? {} : { 'if-match': ifMatch } });

      test('a read sends a strong ETag that changes with an edit and not with a re-read; If-None-Match gives 304', async () => {
        const link = await createLink(s, alice, { slug: `etag-${driver}`, url: 'https://example.com/a' });
        const first = await read(link.id);
        const etag = first.headers.get('etag') ?? '';
        assert.match(etag, /^"[A-Za-z0-9_-]{22}"$/);
        assert.equal((await read(link.id)).headers.get('etag'), etag, 'the same version while nothing changes');

        const notModified = await read(link.id, { 'if-none-match': etag });
        assert.equal(notModified.status, 304);
        assert.equal(notModified.text, '');
        assert.equal(notModified.headers.get('content-length') ?? '0', '0', 'a 304 has no body');
        assert.equal(notModified.headers.get('content-type'), null);
        assert.equal(notModified.headers.get('etag'), etag);
        assert.equal((await read(link.id, { 'if-none-match': '"someone-else"' })).status, 200);

        const edited = await put(link.id, { url: 'https://example.com/b', title: 'B' }, etag);
        assert.equal(edited.status, 200, edited.text);
        const next = edited.headers.get('etag');
        assert.ok(next && next !== etag, 'a new version after the edit');
        assert.equal((await read(link.id)).headers.get('etag'), next, 'the PUT answer carries what a read then sends');
        // Only tags change: still a new version.
        const tagged = await put(link.id, { url: 'https://example.com/b', title: 'B', tags: ['t'] }, next!);
        assert.equal(tagged.status, 200, tagged.text);
        assert.notEqual(tagged.headers.get('etag'), next);
      });

      test('a change or a delete from a stale version is 412 PRECONDITION_FAILED and changes nothing', async () => {
        const link = await createLink(s, alice, { slug: `stale-${driver}`, url: 'https://example.com/1' });
        const stale = (await read(link.id)).headers.get('etag')!;
        assert.equal((await put(link.id, { url: 'https://example.com/2' }, stale)).status, 200);

        const before = await snapshot(s);
        assertError(await put(link.id, { url: 'https://example.com/3' }, stale), 412, 'PRECONDITION_FAILED', 'stale PUT');
        assertError(
          await call(s, 'DELETE', `/api/v1/links/${link.id}`, { as: alice, headers: { 'if-match': stale } }),
          412,
          'PRECONDITION_FAILED',
          'stale DELETE',
        );
        const weak = `W/${(await read(link.id)).headers.get('etag')}`;
        assertError(await put(link.id, { url: 'https://example.com/3' }, weak), 412, 'PRECONDITION_FAILED', 'a weak tag never matches');
        assertError(await put(link.id, { url: 'https://example.com/3' }, 'garbage'), 412, 'PRECONDITION_FAILED', 'malformed');
        assert.equal(await snapshot(s), before, 'nothing changed');

        const current = (await read(link.id)).headers.get('etag')!;
        assert.equal((await put(link.id, { url: 'https://example.com/4' }, `"old", ${current}`)).status, 200, 'any listed tag may match');
        assert.equal((await put(link.id, { url: 'https://example.com/5' }, '*')).status, 200, '* matches any version');
        assert.equal((await put(link.id, { url: 'https://example.com/6' })).status, 200, 'no If-Match: no check');
        const last = (await read(link.id)).headers.get('etag')!;
        assert.equal((await call(s, 'DELETE', `/api/v1/links/${link.id}`, { as: alice, headers: { 'if-match': last } })).status, 204);
      });

      test('two edits racing from the same version: exactly one lands', async () => {
        for (let round = 0; round < 5; round++) {
          const link = await createLink(s, alice, { slug: `race-${driver}-${round}`, url: 'https://example.com/r' });
          await call(s, 'POST', `/api/v1/links/${link.id}/owners`, { as: alice, body: { email: bob.user.email } });
          const etag = (await read(link.id)).headers.get('etag')!;
          const [a, b] = await Promise.all([
            put(link.id, { url: 'https://example.com/by-alice' }, etag),
            call(s, 'PUT', `/api/v1/links/${link.id}`, {
              as: bob,
              body: { url: 'https://example.com/by-bob' },
              headers: { 'if-match': etag },
            }),
          ]);
          const statuses = [a.status, b.status].sort();
          assert.deepEqual(statuses, [200, 412], `round ${round}: ${a.text} / ${b.text}`);
          const winner = a.status === 200 ? 'https://example.com/by-alice' : 'https://example.com/by-bob';
          assert.equal((await read(link.id)).body.url, winner);
        }
      });
    },
  );
}
