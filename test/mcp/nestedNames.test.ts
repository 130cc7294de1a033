import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { actor, type Actor } from '../api/support.js';
import { ALL_DRIVERS, skipReason } from '../helpers/databases.js';
import { get, startTestServer, type TestServer } from '../helpers/server.js';
import { mcpClient, ok, refused } from './support.js';

/**
 * Names of several segments through MCP (docs/links.md#slugs, docs/agents.md#mcp-tools): the
 * tools write and find them as REST does and refuse what the one rule refuses.
 */

for (const driver of ALL_DRIVERS) {
  describe(`MCP names with "/" [${driver}]`, { skip: skipReason(driver) }, () => {
    let s: TestServer;
    let alice: Actor;
    let asAlice: Client;

    before(async () => {
      s = await startTestServer({ driver, env: { JOE_API_RATE_LIMIT: '0' } });
      alice = await actor(s, 'alice');
      asAlice = await mcpClient(s, alice);
    });
    after(async () => {
      await asAlice?.close();
      await s.stop();
    });

    test('create_link takes blog/launch and an alias with "/"; get_link finds it by either; it redirects', async () => {
      const p = await ok(asAlice, 'create_link', {
        slug: 'blog/launch',
        url: 'https://example.com/launch',
        visibility: 'public',
        aliases: ['launch/day'],
      });
      assert.equal(p.slug, 'blog/launch');
      assert.deepEqual(p.aliases, ['launch/day']);
      assert.equal((await ok(asAlice, 'get_link', { link: 'Blog/Launch' })).id, p.id);
      assert.equal((await ok(asAlice, 'get_link', { link: 'launch/day' })).id, p.id);
      const r = await get(`${s.url}/blog/launch/x`);
      assert.deepEqual([r.status, r.headers.get('location')], [302, 'https://example.com/launch']);
    });

    test('the one rule refuses a reserved first segment, an empty segment and too many, and nothing is written', async () => {
      for (const slug of ['admin/x', 'blog//x', 'a/b/c/d/e/f/g/h/i']) {
        await refused(asAlice, 'create_link', { slug, url: 'https://example.com/' }, 'validation_failed');
        assert.equal(await s.store.links.getBySlug(slug), null, slug);
      }
      await refused(asAlice, 'create_link', { slug: 'blog/launch', url: 'https://example.com/' }, 'duplicate_slug');
    });
  });
}
