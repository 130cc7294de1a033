import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { DbDriver } from '../../src/config.js';
import { actor, call, type Actor } from '../api/support.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { mcpClient, ok, refused, tool } from './support.js';

/**
 * `get_link_history` and `restore_link_version` on every database
 * (docs/agents.md#mcp-tools, docs/history.md): changes made through MCP are
 * recorded as such, the tools follow REST's rules for who sees and who may
 * restore, and a share recipient never learns who changed the members.
 */

const DRIVERS: Array<[DbDriver, string | undefined]> = [
  ['sqlite3', undefined],
  ['postgres', 'JOE_TEST_PG_DSN'],
  ['mysql', 'JOE_TEST_MYSQL_DSN'],
];

for (const [driver, env] of DRIVERS) {
  describe(`MCP link history [${driver}]`, { skip: env !== undefined && !process.env[env] ? `${env} not set` : false }, () => {
    let s: TestServer;
    let alice: Actor;
    let bob: Actor;
    let carol: Actor;
    let asAlice: Client;
    let asBob: Client;
    let asCarol: Client;

    before(async () => {
      s = await startTestServer({ driver, env: { JOE_API_RATE_LIMIT: '0' } });
      alice = await actor(s, 'alice');
      bob = await actor(s, 'bob');
      carol = await actor(s, 'carol');
      [asAlice, asBob, asCarol] = await Promise.all([mcpClient(s, alice), mcpClient(s, bob), mcpClient(s, carol)]);
    });
    after(async () => {
      await Promise.all([asAlice, asBob, asCarol].map((c) => c?.close()));
      await s.stop();
    });

    test('changes through MCP are recorded as made there, and read back as REST reads them', async () => {
      await ok(asAlice, 'create_link', { slug: 'mcp-hist', url: 'https://one.test/', title: 'One', share_with: [bob.user.email] });
      await ok(asAlice, 'update_link', { link: 'mcp-hist', title: 'Two', tags: ['x'] });
      await ok(asAlice, 'add_co_owner', { link: 'mcp-hist', email: carol.user.email });
      await ok(asAlice, 'unshare_link', { link: 'mcp-hist', email: bob.user.email });
      await ok(asAlice, 'share_link', { link: 'mcp-hist', email: bob.user.email });

      const h = await ok(asAlice, 'get_link_history', { link: 'mcp-hist' });
      assert.equal(h.link, 'mcp-hist');
      assert.equal(h.next_cursor, undefined, 'no more pages');
      assert.deepEqual(
        h.events.map((e: { kind: string }) => e.kind),
        ['share_added', 'share_removed', 'owner_added', 'updated', 'share_added', 'created'],
      );
      for (const e of h.events) {
        assert.equal(e.via, 'mcp');
        assert.equal(e.actor.email, alice.user.email);
        assert.equal(e.source, undefined, 'null members are left out');
        assert.equal(e.restores, undefined);
      }
      assert.deepEqual(h.events[3].changes, { title: { from: 'One', to: 'Two' }, tags: { from: [], to: ['x'] } });
      assert.equal(h.events[2].member.email, carol.user.email);
      assert.equal(h.events[0].changes, undefined, 'empty members are left out');

      const link = await ok(asAlice, 'get_link', { link: 'mcp-hist' });
      const rest = await call(s, 'GET', `/api/v1/links/${link.id}/history`, { as: alice });
      assert.equal(rest.status, 200);
      assert.deepEqual(
        h.events.map((e: Record<string, unknown>) => [e.id, e.at, e.kind]),
        rest.body.events.map((e: Record<string, unknown>) => [e.id, e.at, e.kind]),
        'the same events as REST, in the same order',
      );
    });

    test('a share recipient reads the history without who or whom of member events; a stranger is forbidden', async () => {
      const h = await tool(asBob, 'get_link_history', { link: 'mcp-hist' });
      assert.ok(h.ok);
      const text = h.raw.content[0].text as string;
      for (const secret of [alice.user.email, alice.user.id, carol.user.email, carol.user.id, bob.user.email]) {
        const memberEvents = h.payload.events.filter((e: { kind: string }) => e.kind !== 'updated' && e.kind !== 'created');
        assert.ok(!JSON.stringify(memberEvents).includes(secret), `member events must not show ${secret} to a share recipient`);
      }
      assert.ok(!text.includes(carol.user.email), 'the co-owner added is not named anywhere');
      for (const e of h.payload.events.filter((e: { kind: string }) => e.kind.startsWith('share') || e.kind.startsWith('owner'))) {
        assert.deepEqual(Object.keys(e).sort(), ['at', 'id', 'kind', 'via'], `${e.kind} carries no person`);
      }
      assert.equal(
        await refused(asCarol, 'get_link_history', { link: 'mcp-nobody-knows' }, 'not_found'),
        'no link matches "mcp-nobody-knows"',
      );
      await ok(asAlice, 'create_link', { slug: 'mcp-private', url: 'https://p.test/' });
      assert.equal(await refused(asBob, 'get_link_history', { link: 'mcp-private' }, 'forbidden'), 'you do not have access to this link');
    });

    test('pages with limit and cursor; a cursor the server did not issue is validation_failed', async () => {
      for (let i = 0; i < 4; i++) await ok(asAlice, 'update_link', { link: 'mcp-private', title: `t${i}` });
      const ids: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await ok(asAlice, 'get_link_history', { link: 'mcp-private', limit: 2, ...(cursor ? { cursor } : {}) });
        ids.push(...page.events.map((e: { id: string }) => e.id));
        cursor = page.next_cursor;
        pages++;
      } while (cursor);
      assert.equal(pages, 3);
      assert.equal(ids.length, 5);
      assert.equal(new Set(ids).size, 5);
      await refused(asAlice, 'get_link_history', { link: 'mcp-private', cursor: 'not-a-cursor' }, 'validation_failed');
    });

    test('restore_link_version: the link back as it was, one restored event; refusals change nothing', async () => {
      const h = await ok(asAlice, 'get_link_history', { link: 'mcp-hist' });
      const created = h.events.at(-1);
      const member = h.events[0];
      const before = await ok(asAlice, 'get_link', { link: 'mcp-hist' });

      assert.equal(
        await refused(asBob, 'restore_link_version', { link: 'mcp-hist', event_id: created.id }, 'forbidden'),
        'only owners and admins may restore a link',
      );
      await refused(asAlice, 'restore_link_version', { link: 'mcp-hist', event_id: member.id }, 'validation_failed');
      const other = await ok(asAlice, 'get_link_history', { link: 'mcp-private' });
      await refused(asAlice, 'restore_link_version', { link: 'mcp-hist', event_id: other.events[0].id }, 'not_found');
      await refused(asAlice, 'restore_link_version', { link: 'mcp-hist', event_id: 'nope' }, 'not_found');
      assert.deepEqual(await ok(asAlice, 'get_link', { link: 'mcp-hist' }), before, 'refusals changed nothing');

      const restored = await ok(asCarol, 'restore_link_version', { link: 'mcp-hist', event_id: created.id });
      assert.equal(restored.title, 'One');
      assert.equal(restored.tags, undefined, 'no tags, as when created');
      assert.equal(restored.short_url, `${s.url}/mcp-hist`);
      const [event] = (await ok(asAlice, 'get_link_history', { link: 'mcp-hist', limit: 1 })).events;
      assert.equal(event.kind, 'restored');
      assert.equal(event.actor.email, carol.user.email);
      assert.equal(event.via, 'mcp');
      assert.deepEqual(event.restores, { event_id: created.id, at: created.at });
    });

    test('a version whose expiry has passed is restore_conflict', async () => {
      const soon = new Date(Math.ceil((Date.now() + 1500) / 1000) * 1000).toISOString();
      await ok(asAlice, 'create_link', { slug: 'mcp-expiring', url: 'https://e.test/', expires_at: soon });
      await ok(asAlice, 'update_link', { link: 'mcp-expiring', expires_at: null });
      const [, created] = (await ok(asAlice, 'get_link_history', { link: 'mcp-expiring' })).events;
      while (Date.now() <= Date.parse(soon)) await new Promise((r) => setTimeout(r, 50));
      const message = await refused(asAlice, 'restore_link_version', { link: 'mcp-expiring', event_id: created.id }, 'restore_conflict');
      assert.match(message, /expiration must be in the future/);
      assert.equal((await ok(asAlice, 'get_link', { link: 'mcp-expiring' })).expires_at, null);
    });
  });
}
