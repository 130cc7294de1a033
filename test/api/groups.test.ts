import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { DbDriver } from '../../src/config.js';
import { get, sessionCookie, type TestServer } from '../helpers/server.js';
import { actor, assertError, call, createLink, startApi, type Actor } from './support.js';

/**
 * Groups over REST (docs/api.md#groups, docs/groups.md) on each database: who may change a
 * group, what a group owner or share grants its members, and that a membership change counts
 * on the very next request.
 */

const DRIVERS: Array<[DbDriver, string | undefined]> = [
  ['sqlite3', undefined],
  ['postgres', 'JOE_TEST_PG_DSN'],
  ['mysql', 'JOE_TEST_MYSQL_DSN'],
];

let n = 0;
const unique = (base: string) => `${base}-${++n}-${process.pid}`;

for (const [driver, env] of DRIVERS) {
  describe(`groups [${driver}]`, { skip: env !== undefined && !process.env[env] ? `${env} not set` : false }, () => {
    let s: TestServer;
    let ann: Actor;
    let ben: Actor;
    let cat: Actor;
    let admin: Actor;
    before(async () => {
      s = await startApi({ driver });
      ann = await actor(s, 'ann');
      ben = await actor(s, 'ben');
      cat = await actor(s, 'cat');
      admin = await actor(s, 'admin', { admin: true });
    });
    after(async () => s.stop());

    async function group(as: Actor, name: string, members: Array<[Actor, 'member' | 'manager']> = []) {
      const r = await call(s, 'POST', '/api/v1/groups', { as, body: { name, description: 'the team' } });
      assert.equal(r.status, 201, r.text);
      for (const [m, role] of members) {
        const added = await call(s, 'POST', `/api/v1/groups/${name}/members`, { as, body: { email: m.user.email, role } });
        assert.equal(added.status, 201, added.text);
      }
      return r.body;
    }

    test('whoever creates a group manages it; the list and the group show its members and roles', async () => {
      const name = unique('eng');
      const created = await group(ann, name, [[ben, 'member']]);
      assert.equal(created.name, name);
      assert.equal(created.managed_by_sign_in, false);
      assert.deepEqual(
        created.members.map((m: { email: string; role: string }) => [m.email, m.role]),
        [[ann.user.email, 'manager']],
      );
      const got = await call(s, 'GET', `/api/v1/groups/${name}`, { as: cat });
      assert.equal(got.status, 200, got.text);
      assert.deepEqual(
        got.body.members.map((m: { email: string; role: string }) => [m.email, m.role]).sort(),
        [
          [ann.user.email, 'manager'],
          [ben.user.email, 'member'],
        ].sort(),
      );
      const mine = await call(s, 'GET', '/api/v1/groups?mine=true', { as: ben });
      assert.ok(mine.body.groups.some((g: { name: string; member_count: number }) => g.name === name && g.member_count === 2));
      const notMine = await call(s, 'GET', '/api/v1/groups?mine=true', { as: cat });
      assert.ok(!notMine.body.groups.some((g: { name: string }) => g.name === name));
    });

    test('bad names, taken names and unknown people or groups are refused and change nothing', async () => {
      const before = (await call(s, 'GET', '/api/v1/groups?limit=200', { as: ann })).body.groups.length;
      assertError(await call(s, 'POST', '/api/v1/groups', { as: ann, body: { name: 'Platform Team' } }), 400, 'INVALID_GROUP_NAME');
      assertError(await call(s, 'POST', '/api/v1/groups', { as: ann, body: { name: 'a/b' } }), 400, 'INVALID_GROUP_NAME');
      const name = unique('ops');
      await group(ann, name);
      assertError(await call(s, 'POST', '/api/v1/groups', { as: ben, body: { name } }), 409, 'GROUP_CONFLICT');
      assertError(await call(s, 'GET', `/api/v1/groups/${unique('nope')}`, { as: ann }), 404, 'NOT_FOUND');
      assertError(
        await call(s, 'POST', `/api/v1/groups/${name}/members`, { as: ann, body: { email: 'nobody@example.test' } }),
        404,
        'NOT_FOUND',
      );
      assertError(
        await call(s, 'POST', `/api/v1/groups/${name}/members`, { as: ann, body: { email: ben.user.email, role: 'owner' } }),
        400,
        'BAD_REQUEST',
      );
      const after = (await call(s, 'GET', '/api/v1/groups?limit=200', { as: ann })).body.groups.length;
      assert.equal(after, before + 1);
      assert.equal((await call(s, 'GET', `/api/v1/groups/${name}`, { as: ann })).body.members.length, 1);
    });

    test('only managers and admins change membership; a member may leave; a group keeps a manager', async () => {
      const name = unique('web');
      await group(ann, name, [[ben, 'member']]);
      // A member is not a manager.
      assertError(await call(s, 'POST', `/api/v1/groups/${name}/members`, { as: ben, body: { email: cat.user.email } }), 403, 'FORBIDDEN');
      assertError(await call(s, 'DELETE', `/api/v1/groups/${name}`, { as: ben }), 403, 'FORBIDDEN');
      assertError(await call(s, 'PUT', `/api/v1/groups/${name}`, { as: cat, body: { description: 'mine now' } }), 403, 'FORBIDDEN');
      // An admin manages every group.
      assert.equal((await call(s, 'POST', `/api/v1/groups/${name}/members`, { as: admin, body: { email: cat.user.email } })).status, 201);
      assertError(
        await call(s, 'POST', `/api/v1/groups/${name}/members`, { as: ann, body: { email: cat.user.email } }),
        409,
        'DUPLICATE_MEMBER',
      );
      // The only manager can neither step down nor leave while others stay.
      assertError(
        await call(s, 'PUT', `/api/v1/groups/${name}/members/${encodeURIComponent(ann.user.email)}`, { as: ann, body: { role: 'member' } }),
        409,
        'LAST_MANAGER',
      );
      assertError(
        await call(s, 'DELETE', `/api/v1/groups/${name}/members/${encodeURIComponent(ann.user.email)}`, { as: ann }),
        409,
        'LAST_MANAGER',
      );
      // Cat leaves on her own; Ben becomes a manager and then Ann may go.
      assert.equal(
        (await call(s, 'DELETE', `/api/v1/groups/${name}/members/${encodeURIComponent(cat.user.email)}`, { as: cat })).status,
        204,
      );
      const promoted = await call(s, 'PUT', `/api/v1/groups/${name}/members/${encodeURIComponent(ben.user.email)}`, {
        as: ann,
        body: { role: 'manager' },
      });
      assert.equal(promoted.status, 200, promoted.text);
      assert.equal(
        (await call(s, 'DELETE', `/api/v1/groups/${name}/members/${encodeURIComponent(ann.user.email)}`, { as: ann })).status,
        204,
      );
      const left = await call(s, 'GET', `/api/v1/groups/${name}`, { as: ann });
      assert.deepEqual(
        left.body.members.map((m: { email: string; role: string }) => [m.email, m.role]),
        [[ben.user.email, 'manager']],
      );
      // Renamed by its manager, it keeps its members.
      const renamed = await call(s, 'PUT', `/api/v1/groups/${name}`, { as: ben, body: { name: `${name}-x` } });
      assert.equal(renamed.status, 200, renamed.text);
      assert.equal(renamed.body.members.length, 1);
    });

    test('only admins hand a group’s members to sign-in; its members then refuse hand edits with GROUP_SYNCED', async () => {
      const name = unique('staff');
      await group(ann, name, [[ben, 'member']]);
      // Its own manager may not: sign-in would then add and remove people whatever she decides.
      assertError(await call(s, 'PUT', `/api/v1/groups/${name}`, { as: ann, body: { managed_by_sign_in: true } }), 403, 'FORBIDDEN');
      assert.equal((await call(s, 'GET', `/api/v1/groups/${name}`, { as: ann })).body.managed_by_sign_in, false);
      // Naming the value it already has is no change, so a manager's full body still saves.
      const same = await call(s, 'PUT', `/api/v1/groups/${name}`, { as: ann, body: { description: 'same', managed_by_sign_in: false } });
      assert.equal(same.status, 200, same.text);

      const marked = await call(s, 'PUT', `/api/v1/groups/${name}`, { as: admin, body: { managed_by_sign_in: true } });
      assert.equal(marked.status, 200, marked.text);
      assert.equal(marked.body.managed_by_sign_in, true);
      assert.equal(marked.body.description, 'same');
      const listed = await call(s, 'GET', '/api/v1/groups?limit=200', { as: cat });
      assert.equal(listed.body.groups.find((g: { name: string }) => g.name === name).managed_by_sign_in, true);

      const member = `/api/v1/groups/${name}/members/${encodeURIComponent(ben.user.email)}`;
      for (const as of [ann, admin]) {
        assertError(await call(s, 'POST', `/api/v1/groups/${name}/members`, { as, body: { email: cat.user.email } }), 409, 'GROUP_SYNCED');
        assertError(await call(s, 'PUT', member, { as, body: { role: 'manager' } }), 409, 'GROUP_SYNCED');
        assertError(await call(s, 'DELETE', member, { as }), 409, 'GROUP_SYNCED');
      }
      assert.deepEqual(
        (await call(s, 'GET', `/api/v1/groups/${name}`, { as: cat })).body.members.map((m: { email: string }) => m.email).sort(),
        [ann.user.email, ben.user.email].sort(),
      );
      // Taken back by an admin, its members are edited by hand again.
      assertError(await call(s, 'PUT', `/api/v1/groups/${name}`, { as: ann, body: { managed_by_sign_in: false } }), 403, 'FORBIDDEN');
      assert.equal((await call(s, 'PUT', `/api/v1/groups/${name}`, { as: admin, body: { managed_by_sign_in: false } })).status, 200);
      assert.equal((await call(s, 'POST', `/api/v1/groups/${name}/members`, { as: ann, body: { email: cat.user.email } })).status, 201);
    });

    test('every member of an owning group may edit the link, until they leave the group', async () => {
      const name = unique('owners');
      await group(ann, name, [[ben, 'member']]);
      const link = await createLink(s, ann, { slug: unique('team-doc') });
      assertError(
        await call(s, 'PUT', `/api/v1/links/${link.id}`, { as: ben, body: { url: link.url, title: 'Ben was here' } }),
        403,
        'FORBIDDEN',
      );
      const added = await call(s, 'POST', `/api/v1/links/${link.id}/owners`, { as: ann, body: { group: name } });
      assert.equal(added.status, 201, added.text);
      assert.equal(added.body.group, name);
      assertError(await call(s, 'POST', `/api/v1/links/${link.id}/owners`, { as: ann, body: { group: name } }), 409, 'DUPLICATE_OWNER');
      const edit = await call(s, 'PUT', `/api/v1/links/${link.id}`, { as: ben, body: { url: link.url, title: 'Ben was here' } });
      assert.equal(edit.status, 200, edit.text);
      assertError(
        await call(s, 'PUT', `/api/v1/links/${link.id}`, { as: cat, body: { url: link.url, title: 'Cat too' } }),
        403,
        'FORBIDDEN',
      );
      const owners = await call(s, 'GET', `/api/v1/links/${link.id}/owners`, { as: ben });
      assert.equal(owners.status, 200, owners.text);
      assert.deepEqual(
        owners.body.map((o: { email?: string; group?: string }) => o.email ?? `group:${o.group}`),
        [ann.user.email, `group:${name}`],
      );
      // Ben leaves: the very next request no longer lets him edit.
      await call(s, 'DELETE', `/api/v1/groups/${name}/members/${encodeURIComponent(ben.user.email)}`, { as: ben });
      assertError(await call(s, 'PUT', `/api/v1/links/${link.id}`, { as: ben, body: { url: link.url, title: 'Again' } }), 403, 'FORBIDDEN');
      // The history names the group.
      const history = await call(s, 'GET', `/api/v1/links/${link.id}/history`, { as: ann });
      const event = history.body.events.find((e: { kind: string }) => e.kind === 'group_owner_added');
      assert.ok(event, history.text);
      assert.equal(event.group.name, name);
      // Removing the group by its id.
      const removed = await call(s, 'DELETE', `/api/v1/links/${link.id}/owners/${added.body.id}`, { as: ann });
      assert.equal(removed.status, 204, removed.text);
      assert.deepEqual((await call(s, 'GET', `/api/v1/links/${link.id}/owners`, { as: ann })).body.length, 1);
    });

    test('a secure link shared with a group opens for its members only', async () => {
      const name = unique('readers');
      await group(ann, name, [[ben, 'member']]);
      const slug = unique('secret-plan');
      const link = await createLink(s, ann, { slug, visibility: 'secure', url: 'https://plans.example.test/q3' });
      const shared = await call(s, 'POST', `/api/v1/links/${link.id}/shares`, { as: ann, body: { group: name } });
      assert.equal(shared.status, 201, shared.text);
      assert.equal(shared.body.group, name);
      assertError(
        await call(s, 'POST', `/api/v1/links/${link.id}/shares`, { as: ann, body: { group: name, email: cat.user.email } }),
        400,
        'BAD_REQUEST',
      );
      const follow = async (who: Actor) =>
        get(`${s.url}/${slug}`, { cookie: await sessionCookie(s.store, who.user) }).then((r) => ({
          status: r.status,
          location: r.headers.get('location'),
        }));
      assert.deepEqual(await follow(ben), { status: 302, location: 'https://plans.example.test/q3' });
      assert.equal((await follow(cat)).status, 403);
      // Cat joins the group: the next visit opens.
      await call(s, 'POST', `/api/v1/groups/${name}/members`, { as: ann, body: { email: cat.user.email } });
      assert.deepEqual(await follow(cat), { status: 302, location: 'https://plans.example.test/q3' });
      // The group is removed from the shares: neither opens it any more.
      await call(s, 'DELETE', `/api/v1/links/${link.id}/shares/${shared.body.group_id}`, { as: ann });
      assert.equal((await follow(ben)).status, 403);
      // Deleting a group ends what it granted.
      const again = await call(s, 'POST', `/api/v1/links/${link.id}/shares`, { as: ann, body: { group: name } });
      assert.equal(again.status, 201);
      assert.equal((await follow(ben)).status, 302);
      assert.equal((await call(s, 'DELETE', `/api/v1/groups/${name}`, { as: ann })).status, 204);
      assert.equal((await follow(ben)).status, 403);
      assertError(await call(s, 'POST', `/api/v1/links/${link.id}/shares`, { as: ann, body: { group: name } }), 404, 'NOT_FOUND');
    });

    test('people leave, links stay: co-owners and a successor take over, and the answer says where links went', async () => {
      const t = await actor(s, 'tess');
      const eng = unique('eng');
      await group(ann, eng, [[ben, 'member']]);
      // A group Tess manages alone, with Cat as a member.
      const hers = unique('tess-team');
      await group(t, hers, [[cat, 'member']]);
      const alone = await createLink(s, t, { slug: unique('alone') });
      const withAnn = await createLink(s, t, { slug: unique('with-ann'), visibility: 'secure' });
      await call(s, 'POST', `/api/v1/links/${withAnn.id}/owners`, { as: t, body: { email: ann.user.email } });
      await call(s, 'POST', `/api/v1/links/${withAnn.id}/shares`, { as: t, body: { email: cat.user.email } });
      const withGroup = await createLink(s, t, { slug: unique('with-group') });
      await call(s, 'POST', `/api/v1/links/${withGroup.id}/owners`, { as: t, body: { group: eng } });
      const bens = await createLink(s, ben, { slug: unique('bens') });
      await call(s, 'POST', `/api/v1/links/${bens.id}/owners`, { as: ben, body: { email: t.user.email } });

      // Refusals change nothing.
      const path = `/api/v1/admin/users/${t.user.id}`;
      assertError(await call(s, 'DELETE', path, { as: ann }), 403, 'FORBIDDEN');
      assertError(await call(s, 'DELETE', `${path}?successor=nobody%40example.test`, { as: admin }), 404, 'NOT_FOUND');
      assertError(await call(s, 'DELETE', `${path}?successor=${encodeURIComponent(t.user.email)}`, { as: admin }), 400, 'BAD_REQUEST');
      assert.equal((await call(s, 'GET', `/api/v1/links/${alone.id}/owners`, { as: t })).status, 200);

      const r = await call(s, 'DELETE', `${path}?successor=${encodeURIComponent(ben.user.email)}`, { as: admin });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body, {
        link_action: 'reassign',
        links: { to_successor: 2, to_co_owners: 1, co_owned: 1, deleted: 0 },
        groups_handed_over: 1,
        successor: { id: ben.user.id, email: ben.user.email, display_name: ben.user.displayName },
      });
      const owners = async (id: string) =>
        (await call(s, 'GET', `/api/v1/links/${id}/owners`, { as: admin })).body.map(
          (o: { email?: string; group?: string; is_primary: boolean }) =>
            o.group ? `group:${o.group}` : `${o.email}${o.is_primary ? ' (primary)' : ''}`,
        );
      assert.deepEqual(await owners(alone.id), [`${ben.user.email} (primary)`]);
      assert.deepEqual(await owners(withAnn.id), [`${ann.user.email} (primary)`]);
      assert.deepEqual(await owners(withGroup.id), [`${ben.user.email} (primary)`, `group:${eng}`]);
      assert.deepEqual(await owners(bens.id), [`${ben.user.email} (primary)`]);
      // The share Tess granted still lets Cat in, now granted by the successor.
      const shares = await call(s, 'GET', `/api/v1/links/${withAnn.id}/shares`, { as: admin });
      assert.deepEqual(
        shares.body.map((x: { email: string; shared_by: string }) => [x.email, x.shared_by]),
        [[cat.user.email, ben.user.id]],
      );
      // Her group now has a manager: the successor.
      const team = await call(s, 'GET', `/api/v1/groups/${hers}`, { as: admin });
      assert.deepEqual(
        team.body.members.map((m: { email: string; role: string }) => [m.email, m.role]).sort(),
        [
          [ben.user.email, 'manager'],
          [cat.user.email, 'member'],
        ].sort(),
      );
      // History says who took over.
      const history = await call(s, 'GET', `/api/v1/links/${alone.id}/history`, { as: ben });
      const moved = history.body.events.find((e: { kind: string }) => e.kind === 'transferred');
      assert.equal(moved.changes.primary_owner.to.email, ben.user.email);
      assertError(await call(s, 'DELETE', path, { as: admin }), 404, 'NOT_FOUND');
    });
  });
}
