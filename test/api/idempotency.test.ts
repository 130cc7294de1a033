import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { DbDriver } from '../../src/config.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { actor, assertError, call, type Actor } from './support.js';

/**
 * Safe retries (docs/api.md#safe-retries): a create sent again with the same Idempotency-Key
 * gets the first answer and makes nothing twice, on every database; another request under the
 * same key is refused and does nothing; keys are per user and last 24 hours.
 */

const DRIVERS: Array<[DbDriver, string | undefined]> = [
  ['sqlite3', undefined],
  ['postgres', 'JOE_TEST_PG_DSN'],
  ['mysql', 'JOE_TEST_MYSQL_DSN'],
];

for (const [driver, env] of DRIVERS) {
  describe(`Idempotency-Key on creates [${driver}]`, { skip: env !== undefined && !process.env[env] ? `${env} not set` : false }, () => {
    let s: TestServer;
    let now = Date.parse('2030-01-01T00:00:00Z');
    let alice: Actor;
    let bob: Actor;
    before(async () => {
      s = await startTestServer({ driver, env: { JOE_API_RATE_LIMIT: '0' }, start: { now: () => now } });
      alice = await actor(s, 'alice');
      bob = await actor(s, 'bob');
    });
    after(async () => s.stop());

    const post = (as: Actor, path: string, body: unknown, key?: string) =>
      call(s, 'POST', path, { as, body, headers: key === undefined ? {} : { 'idempotency-key': key } });
    const linksNamed = async (slug: string) =>
      (await s.store.db.kysely.selectFrom('links').select('id').where('slug', '=', slug).execute()).length;

    test('a retry with the same key and body gets the first answer again and makes one link', async () => {
      const key = randomUUID();
      const body = { slug: `retry-${driver}`, url: 'https://example.com/once', tags: ['a'] };
      const first = await post(alice, '/api/v1/links', body, key);
      assert.equal(first.status, 201, first.text);
      assert.equal(first.headers.get('idempotent-replayed'), null);
      const again = await post(alice, '/api/v1/links', { tags: ['a'], url: 'https://example.com/once', slug: `retry-${driver}` }, key);
      assert.equal(again.status, 201, 'members in another order are the same request');
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.match(again.headers.get('content-type') ?? '', /^application\/json/);
      assert.deepEqual(again.body, first.body, 'the same link, id and times included');
      assert.equal(await linksNamed(`retry-${driver}`), 1);

      // Without the key, the same body is a new request: the slug is taken now.
      assertError(await post(alice, '/api/v1/links', body), 409, 'SLUG_CONFLICT');
    });

    test('the same key with another body is 422 and does nothing; another user’s key is theirs', async () => {
      const key = randomUUID();
      assert.equal((await post(alice, '/api/v1/links', { slug: `k1-${driver}`, url: 'https://example.com/1' }, key)).status, 201);
      assertError(
        await post(alice, '/api/v1/links', { slug: `k2-${driver}`, url: 'https://example.com/2' }, key),
        422,
        'IDEMPOTENCY_KEY_REUSED',
      );
      assert.equal(await linksNamed(`k2-${driver}`), 0, 'nothing created under a reused key');
      assertError(await post(alice, '/api/v1/groups', { name: `k1-${driver}` }, key), 422, 'IDEMPOTENCY_KEY_REUSED', 'another route');

      const bobs = await post(bob, '/api/v1/links', { slug: `k2-${driver}`, url: 'https://example.com/2' }, key);
      assert.equal(bobs.status, 201, 'keys are per user');
      assert.equal(bobs.headers.get('idempotent-replayed'), null);
    });

    test('a refusal is kept like a success; a bad key is 400; after 24 hours the key is free again', async () => {
      await post(alice, '/api/v1/links', { slug: `taken-${driver}`, url: 'https://example.com/t' });
      const key = randomUUID();
      const body = { slug: `taken-${driver}`, url: 'https://example.com/other' };
      assertError(await post(alice, '/api/v1/links', body, key), 409, 'SLUG_CONFLICT');
      const replay = await post(alice, '/api/v1/links', body, key);
      assertError(replay, 409, 'SLUG_CONFLICT');
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');

      assertError(await post(alice, '/api/v1/links', body, 'has space'), 400, 'BAD_REQUEST');
      assertError(await post(alice, '/api/v1/links', body, 'x'.repeat(256)), 400, 'BAD_REQUEST');

      const group = await post(alice, '/api/v1/groups', { name: `team-${driver}` }, 'group-key');
      assert.equal(group.status, 201);
      assert.equal(
        (await post(alice, '/api/v1/groups', { name: `team-${driver}` }, 'group-key')).headers.get('idempotent-replayed'),
        'true',
      );
      now += 24 * 60 * 60 * 1000 + 1;
      assertError(
        await post(alice, '/api/v1/groups', { name: `team-${driver}` }, 'group-key'),
        409,
        'GROUP_CONFLICT',
        'run again after 24 h',
      );
    });

    test('a token or a webhook made with a key is made once, and its secret comes back only to that key', async () => {
      const key = randomUUID();
      const first = await post(alice, '/api/v1/tokens', { name: `ci-${driver}` }, key);
      assert.equal(first.status, 201, first.text);
      const again = await post(alice, '/api/v1/tokens', { name: `ci-${driver}` }, key);
      assert.equal(again.status, 201);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(again.body, first.body, 'the same token, its plaintext included');
      const tokens = await s.store.tokens.listForUser(alice.user.id);
      assert.equal(tokens.filter((t) => t.name === `ci-${driver}`).length, 1);
      // The replayed secret works: it is the token that was made.
      const me = await call(s, 'GET', '/api/v1/tokens', { headers: { authorization: `Bearer ${String(first.body.token)}` } });
      assert.equal(me.status, 200);

      const admin = await actor(s, `idem-admin-${driver}`, { admin: true });
      const hookKey = randomUUID();
      const hook = { url: 'https://hooks.example.com/in', events: ['link.created'] };
      const made = await post(admin, '/api/v1/admin/webhooks', hook, hookKey);
      assert.equal(made.status, 201, made.text);
      const replayed = await post(admin, '/api/v1/admin/webhooks', hook, hookKey);
      assert.equal(replayed.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(replayed.body, made.body);
      assert.equal((await s.store.webhooks.list()).filter((w) => w.url === hook.url).length, 1);

      // A copy of the database holds neither the keys nor the secrets of the kept answers.
      const rows = await s.store.db.kysely.selectFrom('idempotency_keys').selectAll().execute();
      const raw = JSON.stringify(rows);
      for (const secret of [key, hookKey, String(first.body.token), String(made.body.secret)]) {
        assert.ok(!raw.includes(secret), `the table holds ${secret}`);
      }
    });

    test('requests racing with one key: one creates, every other answer is its replay or 409 in use', async () => {
      const key = randomUUID();
      const body = { slug: `race-${driver}`, url: 'https://example.com/race' };
      const answers = await Promise.all(Array.from({ length: 6 }, () => post(alice, '/api/v1/links', body, key)));
      const fresh = answers.filter((a) => a.status === 201 && a.headers.get('idempotent-replayed') === null);
      assert.equal(fresh.length, 1, answers.map((a) => `${a.status} ${a.text}`).join('\n'));
      for (const a of answers) {
        if (a === fresh[0]) continue;
        if (a.status === 409) assert.equal(a.body.code, 'IDEMPOTENCY_KEY_IN_USE');
        else assert.deepEqual(a.body, fresh[0]!.body);
      }
      assert.equal(await linksNamed(`race-${driver}`), 1);
    });
  });
}
