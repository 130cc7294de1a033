import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { asUser } from '../../src/links/index.js';
import type { User } from '../../src/store/types.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { createLink, linkService } from '../helpers/links.js';

/**
 * The reads the groups pages and the people-and-groups picker make (docs/web-ui.md#groups,
 * docs/web-ui.md#link-detail-page), and the dashboard's "links of my groups", on every database:
 * substring matches are case-insensitive and literal, and the picker finds only people who are
 * in some group.
 */
describeEachDatabase('group reads for the web pages', (ctx) => {
  let ana: User;
  let ben: User;
  let loner: User;

  before(async () => {
    const { store } = ctx();
    ana = await store.users.create({ email: 'ana.alvarez@example.com', displayName: 'Ana Alvarez' });
    ben = await store.users.create({ email: 'ben@example.com', displayName: 'Ben_Braun' });
    loner = await store.users.create({ email: 'loner@example.com', displayName: 'Ana Loner' });
    const svc = linkService(store);
    await svc.createGroup(asUser(ana), { name: 'platform-team', description: 'Build and deploy' });
    await svc.addGroupMember(asUser(ana), 'platform-team', ben.email, 'member');
    await svc.createGroup(asUser(ben), { name: 'design' });
    const deploy = await createLink(store, { slug: 'deploy', url: 'https://deploy.example' }, ben.id);
    await svc.addGroup(asUser(ben), deploy.id, 'owner', 'platform-team');
    const shared = await createLink(store, { slug: 'shared-only', url: 'https://shared.example', visibility: 'secure' }, ben.id);
    await svc.addGroup(asUser(ben), shared.id, 'share', 'platform-team');
    await createLink(store, { slug: 'anas-own', url: 'https://ana.example' }, ana.id);
  });

  test('groups by a part of their name, case-insensitively, by name, within the limit', async () => {
    const { store } = ctx();
    assert.deepEqual(
      (await store.groups.nameContains('T', 5)).map((g) => g.name),
      ['platform-team'],
    );
    assert.deepEqual(
      (await store.groups.nameContains('e', 5)).map((g) => g.name),
      ['design', 'platform-team'],
    );
    assert.deepEqual(
      (await store.groups.nameContains('e', 1)).map((g) => g.name),
      ['design'],
    );
    assert.deepEqual(await store.groups.nameContains('%', 5), [], 'a wildcard is a literal character');
  });

  test('people in some group by a part of their name or email; someone in no group never', async () => {
    const { store } = ctx();
    assert.deepEqual(
      (await store.groups.membersMatching('ANA', 5)).map((p) => p.email),
      ['ana.alvarez@example.com'],
      'Ana Loner is in no group',
    );
    assert.deepEqual(
      (await store.groups.membersMatching('example.com', 5)).map((p) => p.email),
      ['ana.alvarez@example.com', 'ben@example.com'],
    );
    assert.deepEqual(
      (await store.groups.membersMatching('n_b', 5)).map((p) => p.email),
      ['ben@example.com'],
      '_ matches itself only',
    );
    assert.deepEqual(await store.groups.membersMatching('loner', 5), []);
    assert.equal(loner.email, 'loner@example.com');
  });

  test("a member's groups with their role, by name", async () => {
    const { store } = ctx();
    assert.deepEqual(
      (await store.groups.ofMember(ben.id)).map((g) => [g.name, g.role]),
      [
        ['design', 'manager'],
        ['platform-team', 'member'],
      ],
    );
    assert.deepEqual(await store.groups.ofMember(loner.id), []);
  });

  test('the "groups" scope: links a group of the viewer owns, not their own nor those only shared with a group', async () => {
    const { store } = ctx();
    const viewer = { id: ana.id, isAdmin: false };
    const page = await store.links.page({ scope: 'groups', viewer, limit: 10 }, 0);
    assert.deepEqual(
      page.links.map((l) => l.slug),
      ['deploy'],
    );
    assert.equal(page.total, 1);
    assert.equal((await store.links.page({ scope: 'groups', viewer: { id: loner.id, isAdmin: false }, limit: 10 }, 0)).total, 0);
  });
});
