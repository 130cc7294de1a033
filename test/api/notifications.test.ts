import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { asSystem, asUser } from '../../src/links/index.js';
import { ALL_DRIVERS, skipReason } from '../helpers/databases.js';
import type { TestServer } from '../helpers/server.js';
import { actor, call, startApi, type Actor } from './support.js';

/**
 * Notifications over REST (docs/api.md#notifications-and-webhooks) on every
 * database: who is told what, the list and its pages, marking read, mail
 * choices; and that nobody can read or mark another user's notifications.
 */

for (const driver of ALL_DRIVERS) {
  describe(`notifications API [${driver}]`, { skip: skipReason(driver) }, () => {
    let s: TestServer;
    let ann: Actor;
    let ben: Actor;
    let admin: Actor;
    let n = 0;
    before(async () => {
      s = await startApi({ driver });
      ann = await actor(s, 'ann');
      ben = await actor(s, 'ben');
      admin = await actor(s, 'admin', { admin: true });
    });
    after(async () => s?.stop());

    const list = async (who: Actor, qs = '') => {
      const r = await call(s, 'GET', `/api/v1/notifications${qs}`, { as: who });
      assert.equal(r.status, 200, r.text);
      return r.body as { notifications: any[]; unread: number; next_cursor: string | null };
    };

    test('changes by others notify every owner; your own do not; a secure link shared with you does', async () => {
      const before = (await list(ann)).unread;
      const link = await s.links.create(asUser(ann.user), { slug: `n-${++n}-${process.pid}`, url: 'https://a.example.test/' });
      await s.links.addOwner(asUser(ann.user), link.id, ben.user.email);
      await s.links.update(asUser(ann.user), link.id, { title: 'Mine' });
      assert.equal((await list(ann)).unread, before, 'own changes notify');
      await s.links.update(asUser(ben.user), link.id, { title: 'Ben was here', visibility: 'secure' });
      const got = await list(ann);
      assert.equal(got.unread, before + 1);
      const top = got.notifications[0];
      assert.equal(top.kind, 'link_changed');
      assert.equal(top.event, 'updated');
      assert.deepEqual(top.link, { id: link.id, slug: link.slug });
      assert.deepEqual(top.actor, { type: 'user', id: ben.user.id, email: ben.user.email, display_name: ben.user.displayName });
      assert.equal(top.read, false);
      assert.equal(top.text, `${ben.user.displayName} changed the title and visibility of go/${link.slug}`);
      assert.match(top.at, /^\d{4}-\d\d-\d\dT/);
      // Ben was made co-owner by Ann: told so, in words addressed to him, and told of her change after.
      const benGot = (await list(ben)).notifications;
      assert.deepEqual(
        benGot.slice(0, 2).map((x) => x.event),
        ['updated', 'owner_added'],
      );
      assert.equal(benGot[1].text, `${ann.user.displayName} made you a co-owner of go/${link.slug}`);

      const carl = await actor(s, 'carl');
      await s.links.addShare(asUser(ann.user), link.id, carl.user.email);
      const carlGot = await list(carl);
      assert.equal(carlGot.unread, 1);
      assert.equal(carlGot.notifications[0].kind, 'link_shared');
      assert.equal(carlGot.notifications[0].text, `${ann.user.displayName} shared the secure link go/${link.slug} with you`);
      // Ben, the other owner, hears about the share as a change.
      assert.equal((await list(ben)).notifications[0].event, 'share_added');
    });

    test('the server acting (an import, the CLI) is someone else too; a deleted link keeps its notification', async () => {
      const link = await s.links.create(asSystem('cli'), {
        slug: `sys-${++n}-${process.pid}`,
        url: 'https://b.example.test/',
        ownerId: ann.user.id,
      });
      await s.links.delete(asUser(admin.user), link.id);
      const [deleted, created] = (await list(ann)).notifications;
      assert.equal(created.text, `The server (cli) created go/${link.slug} for you`);
      assert.deepEqual(created.actor, { type: 'system', via: 'cli' });
      assert.equal(deleted.event, 'deleted');
      assert.equal(deleted.text, `${admin.user.displayName} deleted go/${link.slug}`);
    });

    test('pages of notifications, newest first, with a cursor', async () => {
      const dora = await actor(s, 'dora');
      const link = await s.links.create(asUser(dora.user), { slug: `p-${++n}-${process.pid}`, url: 'https://p.example.test/' });
      for (let i = 0; i < 5; i++) await s.links.update(asUser(admin.user), link.id, { title: `t${i}` });
      const seen: string[] = [];
      let cursor: string | null = '';
      while (cursor !== null) {
        const page: Awaited<ReturnType<typeof list>> = await list(dora, `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        assert.ok(page.notifications.length <= 2);
        assert.equal(page.unread, 5);
        seen.push(...page.notifications.map((x) => x.id));
        cursor = page.next_cursor;
      }
      assert.equal(seen.length, 5);
      assert.equal(new Set(seen).size, 5);
      const all = (await list(dora)).notifications.map((x) => x.id);
      assert.deepEqual(seen, all);
    });

    test('mark some read by id, then all', async () => {
      const eve = await actor(s, 'eve');
      const link = await s.links.create(asUser(eve.user), { slug: `r-${++n}-${process.pid}`, url: 'https://r.example.test/' });
      for (let i = 0; i < 3; i++) await s.links.update(asUser(admin.user), link.id, { title: `r${i}` });
      const ids = (await list(eve)).notifications.map((x) => x.id);
      let r = await call(s, 'POST', '/api/v1/notifications/read', { as: eve, body: { ids: [ids[0]] } });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body, { unread: 2 });
      assert.equal((await list(eve)).notifications.find((x) => x.id === ids[0]).read, true);
      r = await call(s, 'POST', '/api/v1/notifications/read', { as: eve, body: { all: true } });
      assert.deepEqual(r.body, { unread: 0 });
    });

    test('another user’s notification id: 404 and nothing changes, not even the caller’s own in the same request', async () => {
      const fay = await actor(s, 'fay');
      const gus = await actor(s, 'gus');
      for (const who of [fay, gus]) {
        const link = await s.links.create(asUser(who.user), { slug: `x-${++n}-${process.pid}`, url: 'https://x.example.test/' });
        await s.links.update(asUser(admin.user), link.id, { title: 'poke' });
      }
      const gusId = (await list(gus)).notifications[0].id;
      const fayId = (await list(fay)).notifications[0].id;
      const r = await call(s, 'POST', '/api/v1/notifications/read', { as: fay, body: { ids: [fayId, gusId] } });
      assert.equal(r.status, 404, r.text);
      assert.equal(r.body.code, 'NOT_FOUND');
      assert.equal((await list(gus)).notifications[0].read, false);
      assert.equal((await list(fay)).notifications[0].read, false);
      assert.equal((await list(fay)).unread, 1);
      // An unknown id answers the same way.
      const unknown = await call(s, 'POST', '/api/v1/notifications/read', {
        as: fay,
        body: { ids: ['00000000-0000-4000-8000-000000000000'] },
      });
      assert.equal(unknown.status, 404);
      // Nobody's list shows another's notifications.
      assert.ok(!(await list(fay)).notifications.some((x) => x.id === gusId));
    });

    test('bad bodies are 400 in the error shape', async () => {
      for (const body of [{}, { ids: ['a'], all: true }, { all: false }, { ids: 'a' }, { ids: Array.from({ length: 201 }, () => 'a') }]) {
        const r = await call(s, 'POST', '/api/v1/notifications/read', { as: ann, body });
        assert.equal(r.status, 400, JSON.stringify(body));
        assert.equal(typeof r.body.error, 'string');
        assert.equal(typeof r.body.code, 'string');
      }
      assert.equal((await call(s, 'GET', '/api/v1/notifications', { as: null })).status, 401);
    });

    test('mail choices: all on by default, changed per kind, unknown kinds refused', async () => {
      let r = await call(s, 'GET', '/api/v1/me/notification-preferences', { as: ben });
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, {
        mail_configured: false,
        email: { link_changed: true, link_shared: true, link_broken: true, link_expiring: true },
      });
      r = await call(s, 'PUT', '/api/v1/me/notification-preferences', { as: ben, body: { email: { link_changed: false } } });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.email.link_changed, false);
      assert.equal(r.body.email.link_broken, true);
      r = await call(s, 'PUT', '/api/v1/me/notification-preferences', {
        as: ben,
        body: { email: { link_changed: true, link_broken: false } },
      });
      assert.deepEqual(r.body.email, { link_changed: true, link_shared: true, link_broken: false, link_expiring: true });
      r = await call(s, 'PUT', '/api/v1/me/notification-preferences', { as: ben, body: { email: { nope: true } } });
      assert.equal(r.status, 400);
      r = await call(s, 'PUT', '/api/v1/me/notification-preferences', { as: ben, body: { email: { link_shared: 'yes' } } });
      assert.equal(r.status, 400);
      assert.equal((await call(s, 'GET', '/api/v1/me/notification-preferences', { as: ben })).body.email.link_shared, true);
    });
  });
}
