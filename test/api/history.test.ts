import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { DbDriver } from '../../src/config.js';
import type { TestServer } from '../helpers/server.js';
import { actor, assertError, call, createLink, startApi, type Actor } from './support.js';

/**
 * Link history over REST on every database (docs/api.md#link-history): what
 * each change through the API records, who may read it and what they see,
 * keyset pages, and the admin audit with deleted links' events.
 */

const DRIVERS: Array<[DbDriver, string | undefined]> = [
  ['sqlite3', undefined],
  ['postgres', 'JOE_TEST_PG_DSN'],
  ['mysql', 'JOE_TEST_MYSQL_DSN'],
];

const EVENT_KEYS = ['actor', 'at', 'changes', 'group', 'id', 'kind', 'member', 'restores', 'source', 'via'];
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

for (const [driver, env] of DRIVERS) {
  describe(`link history over REST [${driver}]`, { skip: env !== undefined && !process.env[env] ? `${env} not set` : false }, () => {
    let s: TestServer;
    let ann: Actor;
    let ben: Actor;
    let cat: Actor;
    let eve: Actor;
    let admin: Actor;
    before(async () => {
      s = await startApi({ driver });
      ann = await actor(s, 'ann');
      ben = await actor(s, 'ben');
      cat = await actor(s, 'cat');
      eve = await actor(s, 'eve');
      admin = await actor(s, 'admin', { admin: true });
    });
    after(async () => s.stop());

    const history = (as: Actor | null, id: string, query = '') => call(s, 'GET', `/api/v1/links/${id}/history${query}`, { as });

    test('each change through the API is an event with its fields by their body names, newest first', async () => {
      const link = await createLink(s, ann, { slug: 'rest-hist', title: 'One', tags: ['A'], visibility: 'secure' });
      const put = await call(s, 'PUT', `/api/v1/links/${link.id}`, {
        as: ann,
        body: { url: 'https://two.test/', title: 'Two', tags: ['A', 'B'], expires_at: '2099-01-01T00:00:00Z' },
      });
      assert.equal(put.status, 200, put.text);
      assert.equal((await call(s, 'PUT', `/api/v1/links/${link.id}`, { as: ann, body: { archived: true } })).status, 200);
      assert.equal((await call(s, 'PUT', `/api/v1/links/${link.id}`, { as: ann, body: { health_checks_disabled: true } })).status, 200);
      assert.equal((await call(s, 'POST', `/api/v1/links/${link.id}/owners`, { as: ann, body: { email: ben.user.email } })).status, 201);
      assert.equal((await call(s, 'POST', `/api/v1/links/${link.id}/shares`, { as: ann, body: { email: cat.user.email } })).status, 201);
      assert.equal((await call(s, 'DELETE', `/api/v1/links/${link.id}/shares/${cat.user.id}`, { as: ann })).status, 204);
      assert.equal((await call(s, 'DELETE', `/api/v1/links/${link.id}/owners/${ben.user.id}`, { as: ann })).status, 204);

      const r = await history(ann, link.id);
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(Object.keys(r.body).sort(), ['events', 'next_cursor']);
      assert.equal(r.body.next_cursor, null);
      const events = r.body.events as Array<Record<string, any>>;
      assert.deepEqual(
        events.map((e) => e.kind),
        ['owner_removed', 'share_removed', 'share_added', 'owner_added', 'updated', 'archived', 'updated', 'created'],
      );
      for (const e of events) {
        assert.deepEqual(Object.keys(e).sort(), EVENT_KEYS);
        assert.match(e.at, RFC3339);
        assert.equal(e.via, 'api');
        assert.deepEqual(e.actor, { id: ann.user.id, email: ann.user.email, display_name: ann.user.displayName });
      }
      const created = events.at(-1)!;
      // Every field with a value; those still null (no expiry, not archived) are not changes.
      assert.deepEqual(Object.keys(created.changes).sort(), [
        'aliases',
        'description',
        'forward_path_and_query',
        'health_checks_disabled',
        'tags',
        'title',
        'url',
        'visibility',
      ]);
      assert.deepEqual(created.changes.url, { from: null, to: 'https://example.com/' });
      assert.deepEqual(created.changes.tags, { from: null, to: ['A'] });
      assert.deepEqual(events.at(-2)!.changes, {
        url: { from: 'https://example.com/', to: 'https://two.test/' },
        title: { from: 'One', to: 'Two' },
        tags: { from: ['A'], to: ['A', 'B'] },
        expires_at: { from: null, to: '2099-01-01T00:00:00.000Z' },
      });
      assert.match(events.at(-3)!.changes.archived_at.to, RFC3339);
      assert.deepEqual(events.at(-4)!.changes, { health_checks_disabled: { from: false, to: true } });
      assert.deepEqual(events[0]!.member, { id: ben.user.id, email: ben.user.email, display_name: ben.user.displayName });
      assert.deepEqual(events[0]!.changes, {});

      // The admin sees the same, and it stays after the link is deleted.
      assert.equal((await call(s, 'DELETE', `/api/v1/links/${link.id}`, { as: ann })).status, 204);
      assertError(await history(ann, link.id), 404, 'NOT_FOUND', 'a deleted link has no page of its own');
      const audit = await call(s, 'GET', '/api/v1/admin/events?slug=REST-HIST', { as: admin });
      assert.equal(audit.status, 200, audit.text);
      assert.deepEqual(
        audit.body.events.map((e: { kind: string }) => e.kind),
        ['deleted', ...events.map((e) => e.kind)],
      );
      assert.deepEqual(Object.keys(audit.body.events[0]).sort(), [...EVENT_KEYS, 'link_id', 'slug'].sort());
      assert.equal(audit.body.events[0].slug, 'rest-hist');
      assert.equal(audit.body.events[0].link_id, link.id);
      assert.deepEqual(audit.body.events[0].changes.title, { from: 'Two', to: null });
    });

    test('who may read: 401 without a token, 404 for an unknown link, 403 for a stranger, as for the link itself', async () => {
      const link = await createLink(s, ann, { slug: 'rest-who', visibility: 'public' });
      assertError(await history(null, link.id), 401, 'UNAUTHORIZED');
      assertError(await history(eve, '00000000-0000-4000-8000-000000000000'), 404, 'NOT_FOUND');
      assertError(await history(eve, 'not-a-uuid'), 404, 'NOT_FOUND');
      assertError(await history(eve, link.id), 403, 'FORBIDDEN');
      assert.equal((await call(s, 'GET', `/api/v1/links/${link.id}`, { as: eve })).status, 403);
      assert.equal((await history(admin, link.id)).status, 200);
      assertError(await call(s, 'GET', '/api/v1/admin/events', { as: ann }), 403, 'FORBIDDEN');
      assertError(await call(s, 'GET', '/api/v1/admin/events', { as: null }), 401, 'UNAUTHORIZED');
    });

    test('a share recipient sees member events without who or whom; owners and admins see both', async () => {
      const link = await createLink(s, ann, { slug: 'rest-secret', visibility: 'secure' });
      await call(s, 'POST', `/api/v1/links/${link.id}/shares`, { as: ann, body: { email: ben.user.email } });
      await call(s, 'POST', `/api/v1/links/${link.id}/shares`, { as: admin, body: { email: cat.user.email } });
      await call(s, 'POST', `/api/v1/links/${link.id}/owners`, { as: ann, body: { email: eve.user.email } });
      await call(s, 'DELETE', `/api/v1/links/${link.id}/owners/${eve.user.id}`, { as: admin });

      const seen = await history(ben, link.id);
      assert.equal(seen.status, 200, seen.text);
      const memberEvents = (seen.body.events as Array<Record<string, any>>).filter((e) => e.kind !== 'created');
      assert.equal(memberEvents.length, 4);
      for (const e of memberEvents) {
        assert.equal(e.actor, null, `${e.kind}: no actor`);
        assert.equal(e.member, null, `${e.kind}: no member`);
        assert.deepEqual(e.changes, {});
      }
      for (const secret of [cat.user.email, cat.user.id, eve.user.email, eve.user.id, admin.user.email, admin.user.id]) {
        assert.ok(!seen.text.includes(secret), `a share recipient must not learn ${secret}`);
      }
      // Not even through the cursor or a page size of one.
      let cursor: string | null = null;
      do {
        const page = await history(ben, link.id, `?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        for (const secret of [cat.user.email, eve.user.email, admin.user.email]) assert.ok(!page.text.includes(secret));
        cursor = page.body.next_cursor;
      } while (cursor);

      for (const who of [ann, admin]) {
        const full = await history(who, link.id);
        const kinds = full.body.events.map((e: Record<string, any>) => `${e.kind}:${e.member?.email ?? ''}:${e.actor?.email ?? ''}`);
        assert.deepEqual(kinds, [
          `owner_removed:${eve.user.email}:${admin.user.email}`,
          `owner_added:${eve.user.email}:${ann.user.email}`,
          `share_added:${cat.user.email}:${admin.user.email}`,
          `share_added:${ben.user.email}:${ann.user.email}`,
          `created::${ann.user.email}`,
        ]);
      }
    });

    test('pages: no event twice, none skipped; limit is clamped; a cursor the server did not issue is a 400', async () => {
      const link = await createLink(s, ann, { slug: 'rest-pages' });
      for (let i = 0; i < 9; i++) {
        const r = await call(s, 'PUT', `/api/v1/links/${link.id}`, { as: ann, body: { url: `https://p${i}.test/` } });
        assert.equal(r.status, 200, r.text);
      }
      const all = (await history(ann, link.id)).body.events.map((e: { id: string }) => e.id);
      assert.equal(all.length, 10);
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const r = await history(ann, link.id, `?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        assert.equal(r.status, 200, r.text);
        assert.ok(r.body.events.length <= 3);
        seen.push(...r.body.events.map((e: { id: string }) => e.id));
        cursor = r.body.next_cursor;
        pages++;
      } while (cursor);
      assert.deepEqual(seen, all);
      assert.equal(pages, 4);
      assert.equal((await history(ann, link.id, '?limit=abc')).body.events.length, 10, 'a bad limit means 50');
      assert.equal((await history(ann, link.id, '?limit=-1')).body.events.length, 10);
      for (const bad of ['garbage', 'YWJj', '%00', 'MAB4']) {
        assertError(await history(ann, link.id, `?cursor=${bad}`), 400, 'BAD_REQUEST', bad);
      }
    });

    test('restore: 200 with the link body, one restored event; refusals change nothing', async () => {
      const link = await createLink(s, ann, { slug: 'rest-restore', title: 'First', tags: ['A'], visibility: 'secure' });
      await call(s, 'PUT', `/api/v1/links/${link.id}`, { as: ann, body: { url: 'https://second.test/', title: 'Second', tags: ['B'] } });
      await call(s, 'POST', `/api/v1/links/${link.id}/shares`, { as: ann, body: { email: ben.user.email } });
      const [shared, , created] = (await history(ann, link.id)).body.events;
      const restore = (as: Actor | null, eventId: string, linkId = link.id) =>
        call(s, 'POST', `/api/v1/links/${linkId}/history/${eventId}/restore`, { as });

      const before = await call(s, 'GET', `/api/v1/links/${link.id}`, { as: ann });
      assertError(await restore(null, created.id), 401, 'UNAUTHORIZED');
      assertError(await restore(ben, created.id), 403, 'FORBIDDEN', 'a share recipient may read the history, not restore');
      assertError(await restore(eve, created.id), 403, 'FORBIDDEN');
      assertError(await restore(ann, created.id, '00000000-0000-4000-8000-000000000000'), 404, 'NOT_FOUND');
      assertError(await restore(ann, shared.id), 400, 'NOT_RESTORABLE');
      assertError(await restore(ann, '00000000-0000-4000-8000-000000000000'), 404, 'NOT_FOUND');
      const other = await createLink(s, ann, { slug: 'rest-restore-other' });
      const otherEvent = (await history(ann, other.id)).body.events[0];
      assertError(await restore(ann, otherEvent.id), 404, 'NOT_FOUND', 'an event of another link');
      assert.deepEqual((await call(s, 'GET', `/api/v1/links/${link.id}`, { as: ann })).body, before.body, 'refusals changed nothing');
      assert.equal((await history(ann, link.id)).body.events.length, 3);

      const r = await restore(ann, created.id);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.id, link.id);
      assert.equal(r.body.url, 'https://example.com/');
      assert.equal(r.body.title, 'First');
      assert.deepEqual(r.body.tags, ['A']);
      assert.ok('health' in r.body, 'the full link body');
      const [restored] = (await history(ann, link.id)).body.events;
      assert.equal(restored.kind, 'restored');
      assert.equal(restored.via, 'api');
      assert.deepEqual(restored.restores, { event_id: created.id, at: created.at });
      assert.deepEqual(restored.changes, {
        url: { from: 'https://second.test/', to: 'https://example.com/' },
        title: { from: 'Second', to: 'First' },
        tags: { from: ['B'], to: ['A'] },
      });
    });

    test('restore of a version whose expiry has passed is a 409 RESTORE_CONFLICT naming expires_at', async () => {
      const soon = new Date(Math.ceil((Date.now() + 1500) / 1000) * 1000).toISOString();
      const link = await createLink(s, ann, { slug: 'rest-expired-version', expires_at: soon });
      assert.equal(
        (await call(s, 'PUT', `/api/v1/links/${link.id}`, { as: ann, body: { url: 'https://x.test/', expires_at: null } })).status,
        200,
      );
      const [, created] = (await history(ann, link.id)).body.events;
      while (Date.now() <= Date.parse(soon)) await new Promise((r) => setTimeout(r, 50));
      const r = await call(s, 'POST', `/api/v1/links/${link.id}/history/${created.id}/restore`, { as: ann });
      assertError(r, 409, 'RESTORE_CONFLICT');
      assert.match(r.body.error, /expiration must be in the future/);
      const now = await call(s, 'GET', `/api/v1/links/${link.id}`, { as: ann });
      assert.equal(now.body.url, 'https://x.test/');
      assert.equal(now.body.expires_at, null);
    });

    test('the admin audit filters by slug, actor email and kind, and refuses an unknown kind', async () => {
      const a = await createLink(s, cat, { slug: 'rest-audit-a' });
      const b = await createLink(s, eve, { slug: 'rest-audit-b' });
      await call(s, 'PUT', `/api/v1/links/${b.id}`, { as: eve, body: { url: 'https://b2.test/' } });
      await call(s, 'DELETE', `/api/v1/links/${a.id}`, { as: cat });
      const audit = (query: string) => call(s, 'GET', `/api/v1/admin/events${query}`, { as: admin });

      const byCat = await audit(`?actor=${encodeURIComponent(cat.user.email.toUpperCase())}`);
      assert.equal(byCat.status, 200, byCat.text);
      assert.deepEqual(
        byCat.body.events.map((e: Record<string, string>) => `${e.kind}:${e.slug}`),
        ['deleted:rest-audit-a', 'created:rest-audit-a'],
      );
      const updates = await audit(`?kind=updated&actor=${encodeURIComponent(eve.user.email)}`);
      assert.deepEqual(
        updates.body.events.map((e: Record<string, string>) => e.slug),
        ['rest-audit-b'],
      );
      const deletions = await audit('?kind=deleted&slug=rest-audit-a');
      assert.equal(deletions.body.events.length, 1);
      assert.equal(deletions.body.events[0].link_id, a.id);
      assertError(await audit('?kind=exploded'), 400, 'BAD_REQUEST');
      assertError(await audit('?cursor=garbage'), 400, 'BAD_REQUEST');

      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const r = await audit(`?limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        seen.push(...r.body.events.map((e: { id: string }) => e.id));
        cursor = r.body.next_cursor;
      } while (cursor);
      assert.equal(new Set(seen).size, seen.length, 'no event twice');
      assert.equal(seen.length, (await audit('?limit=200')).body.events.length);
    });
  });
}
