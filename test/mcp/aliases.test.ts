import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { actor, call, type Actor } from '../api/support.js';
import { ALL_DRIVERS, skipReason } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { mcpClient, ok, refused } from './support.js';

/**
 * Aliases and forwarding through MCP (docs/agents.md#mcp-tools, docs/links.md#aliases):
 * the tools set them as REST does, name a taken alias `duplicate_alias`, and
 * find a link by any of its names.
 */

for (const driver of ALL_DRIVERS) {
  describe(`MCP aliases and forwarding [${driver}]`, { skip: skipReason(driver) }, () => {
    let s: TestServer;
    let alice: Actor;
    let asAlice: Client;
    let asBob: Client;

    before(async () => {
      s = await startTestServer({ driver, env: { JOE_API_RATE_LIMIT: '0' } });
      alice = await actor(s, 'alice');
      const bob = await actor(s, 'bob');
      [asAlice, asBob] = await Promise.all([mcpClient(s, alice), mcpClient(s, bob)]);
    });
    after(async () => {
      await Promise.all([asAlice, asBob].map((c) => c?.close()));
      await s.stop();
    });

    test('create_link sets aliases and forwarding; the payload is REST’s', async () => {
      const p = await ok(asAlice, 'create_link', {
        slug: 'runbook',
        url: 'https://runbook.example/',
        aliases: ['rb', 'oncall'],
        forward_path_and_query: true,
      });
      assert.deepEqual(p.aliases, ['oncall', 'rb']);
      assert.equal(p.forward_path_and_query, true);
      const rest = await call(s, 'GET', `/api/v1/links/${p.id}`, { as: alice });
      assert.deepEqual(rest.body.aliases, p.aliases);
      assert.equal(rest.body.forward_path_and_query, p.forward_path_and_query);
    });

    test('a taken name is duplicate_alias or duplicate_slug, and nothing is written', async () => {
      const alias = await refused(asBob, 'create_link', { slug: 'bobs', url: 'https://b.example/', aliases: ['rb'] }, 'duplicate_alias');
      assert.match(alias, /alias is already taken: "rb"/);
      await refused(asBob, 'create_link', { slug: 'oncall', url: 'https://b.example/' }, 'duplicate_slug');
      await refused(asBob, 'create_link', { slug: 'bobs', url: 'https://b.example/', aliases: ['Bad Alias'] }, 'validation_failed');
      assert.equal(await s.store.links.getBySlug('bobs'), null);
    });

    test('get_link and update_link find a link by an alias; update_link replaces the aliases and keeps what it is not given', async () => {
      const got = await ok(asAlice, 'get_link', { link: 'RB' });
      assert.equal(got.slug, 'runbook');
      const updated = await ok(asAlice, 'update_link', { link: 'oncall', aliases: ['pager'], forward_path_and_query: false });
      assert.deepEqual(updated.aliases, ['pager']);
      assert.equal(updated.forward_path_and_query, false);
      assert.equal(updated.url, 'https://runbook.example/');
      const untouched = await ok(asAlice, 'update_link', { link: 'runbook', title: 'Runbook' });
      assert.deepEqual(untouched.aliases, ['pager'], 'omitted aliases are kept');
      const cleared = await ok(asAlice, 'update_link', { link: 'pager', aliases: [] });
      assert.equal(cleared.aliases, undefined, 'an empty list is left out, as other empty members are');
      await refused(asBob, 'update_link', { link: 'runbook', aliases: ['x'] }, 'forbidden');
    });
  });
}
