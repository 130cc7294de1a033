import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Viewer } from '../../src/store/types.js';
import { ALL_DRIVERS, skipReason } from '../helpers/databases.js';
import { createLink } from '../helpers/links.js';
import { actor, call } from '../api/support.js';
import { get, sessionCookie, startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The `internal` visibility over real HTTP (docs/links.md#visibility): anyone
 * signed in follows it, an anonymous visitor is sent to sign in first (also
 * when the link is expired, so it says nothing to the world), and it is never
 * listed or suggested to anyone who does not hold it.
 */

for (const driver of ALL_DRIVERS) {
  describe(`internal links [${driver}]`, { skip: skipReason(driver) }, () => {
    let s: TestServer;
    let stranger: Record<string, string>;
    let strangerId: string;

    before(async () => {
      s = await startTestServer({ driver });
      const st = s.store;
      const owner = await st.users.create({ email: 'owner@example.test', displayName: 'Owner' });
      const other = await st.users.create({ email: 'stranger@example.test', displayName: 'Stranger' });
      strangerId = other.id;
      stranger = { cookie: await sessionCookie(st, other) };
      await createLink(st, { slug: 'handbook', url: 'https://handbook.test/', visibility: 'internal' }, owner.id);
      const old = await createLink(
        st,
        { slug: 'oldbook', url: 'https://old.test/', visibility: 'internal', expiresAt: Date.now() + 60_000 },
        owner.id,
      );
      await st.db.kysely
        .updateTable('links')
        .set({ expires_at: Date.now() - 60_000 })
        .where('id', '=', old.id)
        .execute();
    });
    after(async () => s.stop());

    test('anonymous visitors sign in first; anyone signed in is redirected', async () => {
      const anonymous = await get(`${s.url}/handbook`);
      assert.equal(anonymous.status, 302);
      assert.equal(anonymous.headers.get('location'), `/auth/login?return_url=${encodeURIComponent('/handbook')}`);
      const signedIn = await get(`${s.url}/handbook`, stranger);
      assert.equal(signedIn.status, 302);
      assert.equal(signedIn.headers.get('location'), 'https://handbook.test/');
    });

    test('an expired internal link tells an anonymous visitor nothing', async () => {
      const anonymous = await get(`${s.url}/oldbook`);
      assert.equal(anonymous.status, 302);
      assert.match(anonymous.headers.get('location') ?? '', /^\/auth\/login/);
      assert.equal((await get(`${s.url}/oldbook`, stranger)).status, 404);
    });

    test('never listed or suggested to those who do not hold it', async () => {
      const { store } = s;
      const slugsFor = async (viewer: Viewer) =>
        (await store.links.list({ scope: 'discoverable', viewer, limit: 50 })).links.map((l) => l.slug);
      assert.deepEqual(await slugsFor(null), []);
      assert.deepEqual(await slugsFor({ id: strangerId, isAdmin: false }), []);
      const missed = await get(`${s.url}/handbok`, stranger);
      assert.equal(missed.status, 404);
      assert.doesNotMatch(await missed.text(), /handbook/, 'did-you-mean does not name it');
    });

    test('REST writes and reads it like any other visibility', async () => {
      const ann = await actor(s, 'ann');
      const made = await call(s, 'POST', '/api/v1/links', {
        as: ann,
        body: { slug: 'wiki-internal', url: 'https://wiki.test/', visibility: 'internal' },
      });
      assert.equal(made.status, 201, made.text);
      assert.equal(made.body.visibility, 'internal');
      const read = await call(s, 'GET', `/api/v1/links/${made.body.id as string}`, { as: ann });
      assert.equal(read.body.visibility, 'internal');
      const wrong = await call(s, 'POST', '/api/v1/links', {
        as: ann,
        body: { slug: 'wiki-x', url: 'https://wiki.test/', visibility: 'Internal' },
      });
      assert.equal(wrong.status, 400);
      assert.equal(wrong.body.error, 'visibility must be one of: public, private, secure, internal');
    });
  });
}
