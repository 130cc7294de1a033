import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { actor, type Actor } from '../api/support.js';
import { get, sessionCookie, startTestServer, type TestServer } from '../helpers/server.js';
import { mcpClient, ok, refused } from './support.js';

/**
 * Groups over MCP (docs/agents.md#mcp-tools, docs/groups.md): an agent makes a team,
 * fills it, and hands it a link to own or to open, with REST's rules and codes.
 */
describe('MCP group tools', () => {
  let s: TestServer;
  let alice: Actor;
  let bob: Actor;
  let carol: Actor;
  let asAlice: Client;
  let asBob: Client;
  let asCarol: Client;

  before(async () => {
    s = await startTestServer({ env: { JOE_API_RATE_LIMIT: '0' } });
    alice = await actor(s, 'alice');
    bob = await actor(s, 'bob');
    carol = await actor(s, 'carol');
    [asAlice, asBob, asCarol] = await Promise.all([mcpClient(s, alice), mcpClient(s, bob), mcpClient(s, carol)]);
  });
  after(async () => {
    await Promise.all([asAlice, asBob, asCarol].map((c) => c?.close()));
    await s.stop();
  });

  test('create_group makes the caller its manager; add_group_member adds and promotes; get_group shows roles', async () => {
    const made = await ok(asAlice, 'create_group', { name: 'platform', description: 'the platform team' });
    assert.equal(made.name, 'platform');
    assert.deepEqual(
      made.members.map((m: { email: string; role: string }) => [m.email, m.role]),
      [[alice.user.email, 'manager']],
    );
    await ok(asAlice, 'add_group_member', { group: 'platform', email: bob.user.email });
    const promoted = await ok(asAlice, 'add_group_member', { group: 'platform', email: bob.user.email, role: 'manager' });
    const roles = Object.fromEntries(promoted.members.map((m: { email: string; role: string }) => [m.email, m.role]));
    assert.deepEqual(roles, { [alice.user.email]: 'manager', [bob.user.email]: 'manager' });
    assert.deepEqual(await ok(asCarol, 'get_group', { group: 'platform' }), promoted, 'anyone may read a group');

    const listed = await ok(asCarol, 'list_groups', {});
    assert.deepEqual(
      listed.groups.map((g: { name: string; member_count: number }) => [g.name, g.member_count]),
      [['platform', 2]],
    );
    assert.deepEqual((await ok(asCarol, 'list_groups', { mine: true })).groups, [], 'carol is in no group');
  });

  test('a non-manager may not change members; bad names and unknown people are refused with MCP codes', async () => {
    await ok(asAlice, 'create_group', { name: 'design' });
    await refused(asCarol, 'add_group_member', { group: 'design', email: carol.user.email }, 'forbidden');
    await refused(asAlice, 'create_group', { name: 'Two Words' }, 'validation_failed');
    await refused(asBob, 'create_group', { name: 'design' }, 'group_conflict');
    await refused(asAlice, 'add_group_member', { group: 'design', email: 'nobody@example.com' }, 'unknown_user');
    await refused(asAlice, 'get_group', { group: 'no-such-group' }, 'not_found');
    await ok(asAlice, 'add_group_member', { group: 'design', email: carol.user.email });
    await refused(asAlice, 'remove_group_member', { group: 'design', email: alice.user.email }, 'group_conflict');
    assert.deepEqual(
      (await ok(asAlice, 'get_group', { group: 'design' })).members.map((m: { email: string }) => m.email).sort(),
      [alice.user.email, carol.user.email].sort(),
      'a group with members keeps its last manager',
    );
  });

  test('a secure link shared with a group opens for its members and closes when one is removed', async () => {
    await ok(asAlice, 'create_group', { name: 'oncall' });
    await ok(asAlice, 'add_group_member', { group: 'oncall', email: carol.user.email });
    await ok(asAlice, 'create_link', { slug: 'pager', url: 'https://pager.example.com/', visibility: 'secure' });
    const carolCookie = await sessionCookie(s.store, carol.user);
    assert.equal((await get(`${s.url}/pager`, { cookie: carolCookie })).status, 403, 'not shared yet');

    assert.deepEqual(await ok(asAlice, 'share_link', { link: 'pager', group: 'oncall' }), {
      link: 'pager',
      shared_with: [],
      shared_with_groups: ['oncall'],
    });
    const open = await get(`${s.url}/pager`, { cookie: carolCookie });
    assert.equal(open.status, 302);
    assert.equal(open.headers.get('location'), 'https://pager.example.com/');

    await ok(asAlice, 'remove_group_member', { group: 'oncall', email: carol.user.email });
    assert.equal((await get(`${s.url}/pager`, { cookie: carolCookie })).status, 403, 'a former member is out');

    assert.deepEqual(await ok(asAlice, 'unshare_link', { link: 'pager', group: 'oncall' }), { link: 'pager', shared_with: [] });
    assert.deepEqual(
      await ok(asAlice, 'unshare_link', { link: 'pager', group: 'oncall' }),
      { link: 'pager', shared_with: [] },
      'idempotent',
    );
    await refused(asAlice, 'share_link', { link: 'pager', group: 'oncall', email: bob.user.email }, 'validation_failed');
    await refused(asAlice, 'share_link', { link: 'pager' }, 'validation_failed');
    await refused(asAlice, 'share_link', { link: 'pager', group: 'ghosts' }, 'not_found');
  });

  test('add_co_owner with a group lets its members edit the link', async () => {
    await ok(asBob, 'create_group', { name: 'writers' });
    await ok(asBob, 'add_group_member', { group: 'writers', email: carol.user.email });
    await ok(asAlice, 'create_link', { slug: 'handbook', url: 'https://example.com/handbook' });
    await refused(asCarol, 'update_link', { link: 'handbook', title: 'before' }, 'forbidden');
    const r = await ok(asAlice, 'add_co_owner', { link: 'handbook', group: 'writers' });
    assert.deepEqual(r.owner_groups, ['writers']);
    assert.equal((await ok(asCarol, 'update_link', { link: 'handbook', title: 'ours' })).title, 'ours');
  });
});
