import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { actor } from '../api/support.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { mcpClient, ok, refused } from './support.js';

/** A link's version over MCP (docs/agents.md#mcp-tools): the same no-lost-update rule as REST's If-Match. */
describe('MCP link versions', () => {
  let s: TestServer;
  let asAlice: Client;

  before(async () => {
    s = await startTestServer({ env: { JOE_API_RATE_LIMIT: '0' } });
    asAlice = await mcpClient(s, await actor(s, 'alice'));
  });
  after(async () => {
    await asAlice?.close();
    await s.stop();
  });

  test('update_link and delete_link from a stale version are version_conflict and change nothing', async () => {
    const made = await ok(asAlice, 'create_link', { slug: 'versioned', url: 'https://example.com/v1' });
    assert.match(made.version, /^[A-Za-z0-9_-]{22}$/);
    const moved = await ok(asAlice, 'update_link', { link: 'versioned', url: 'https://example.com/v2', version: made.version });
    assert.notEqual(moved.version, made.version);
    await refused(asAlice, 'update_link', { link: 'versioned', url: 'https://example.com/v3', version: made.version }, 'version_conflict');
    await refused(asAlice, 'delete_link', { link: 'versioned', version: made.version }, 'version_conflict');
    assert.equal((await ok(asAlice, 'get_link', { link: 'versioned' })).url, 'https://example.com/v2', 'nothing changed');
    assert.deepEqual(await ok(asAlice, 'delete_link', { link: 'versioned', version: moved.version }), { deleted: true, slug: 'versioned' });
  });
});
