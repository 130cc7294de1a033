import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { actor, call, type Actor } from '../api/support.js';
import { get, startTestServer, type TestServer } from '../helpers/server.js';
import { mcpClient, ok, refused } from './support.js';

/**
 * A templated link's default destination through MCP (docs/agents.md#mcp-tools,
 * docs/links.md#default-destination): the tools set, read and clear it as REST does, refuse it
 * by the same rules, and the link then follows it.
 */
describe('MCP default destination', () => {
  let s: TestServer;
  let alice: Actor;
  let asAlice: Client;

  before(async () => {
    s = await startTestServer({ env: { JOE_API_RATE_LIMIT: '0' } });
    alice = await actor(s, 'alice');
    asAlice = await mcpClient(s, alice);
  });
  after(async () => {
    await asAlice?.close();
    await s.stop();
  });

  test('create_link sets it, get_link reads it as REST does, and go/drive follows it', async () => {
    const p = await ok(asAlice, 'create_link', {
      slug: 'drive',
      url: 'https://drive.test/search?q=$q',
      default_url: 'https://drive.test/',
      visibility: 'public',
    });
    assert.equal(p.default_url, 'https://drive.test/');
    const got = await ok(asAlice, 'get_link', { link: 'drive' });
    assert.equal(got.default_url, 'https://drive.test/');
    const rest = await call(s, 'GET', `/api/v1/links/${p.id}`, { as: alice });
    assert.equal(rest.body.default_url, got.default_url);
    const visit = await get(`${s.url}/drive`);
    assert.equal(visit.status, 302);
    assert.equal(visit.headers.get('location'), 'https://drive.test/');
  });

  test('refusals are validation_failed and write nothing', async () => {
    const beside = await refused(
      asAlice,
      'create_link',
      { slug: 'plain', url: 'https://plain.test/', default_url: 'https://d.test/' },
      'validation_failed',
    );
    assert.match(beside, /default_url is only for a url with \$placeholders/);
    assert.equal(await s.store.links.getBySlug('plain'), null);
    await refused(asAlice, 'update_link', { link: 'drive', default_url: 'javascript:alert(1)' }, 'validation_failed');
    await refused(asAlice, 'update_link', { link: 'drive', url: 'https://drive.test/' }, 'validation_failed');
    assert.equal((await s.store.links.getBySlug('drive'))!.defaultUrl, 'https://drive.test/', 'unchanged');
  });

  test('update_link changes it alone, keeps it when not given, and null clears it (left out of the payload)', async () => {
    const changed = await ok(asAlice, 'update_link', { link: 'drive', default_url: 'https://drive.test/home' });
    assert.equal(changed.default_url, 'https://drive.test/home');
    const kept = await ok(asAlice, 'update_link', { link: 'drive', title: 'Drive' });
    assert.equal(kept.default_url, 'https://drive.test/home');
    const cleared = await ok(asAlice, 'update_link', { link: 'drive', default_url: null });
    assert.equal('default_url' in cleared, false, 'MCP leaves out null members');
    assert.equal((await s.store.links.getBySlug('drive'))!.defaultUrl, null);
  });
});
