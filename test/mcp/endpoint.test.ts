import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { startServer } from '../../src/server.js';
import { actor, call, startApi, type Actor } from '../api/support.js';
import { createTestDatabase } from '../helpers/databases.js';
import { get, sessionCookie, type TestServer } from '../helpers/server.js';
import { ACCEPT, counter, mcpClient, ok, rawMcp, tool } from './support.js';

/**
 * The `/mcp` endpoint as an HTTP surface (docs/agents.md#mcp-endpoint):
 * stateless Streamable HTTP with JSON answers, bearer tokens only, the API's
 * security headers, body cap and rate limit.
 */

const NON_LLM_TOOLS = [
  'add_co_owner',
  'add_group_member',
  'create_group',
  'create_link',
  'delete_link',
  'get_group',
  'get_link',
  'get_link_history',
  'get_link_stats',
  'list_groups',
  'list_keywords',
  'list_links',
  'remove_group_member',
  'restore_link_version',
  'share_link',
  'unshare_link',
  'update_link',
];

function assertSecurityHeaders(r: { headers: { get(n: string): string | null } }, why: string): void {
  assert.equal(r.headers.get('content-security-policy'), "default-src 'none'", why);
  assert.equal(r.headers.get('x-frame-options'), 'DENY', why);
  assert.equal(r.headers.get('x-content-type-options'), 'nosniff', why);
  assert.equal(r.headers.get('referrer-policy'), 'strict-origin-when-cross-origin', why);
}

const rpc = (method: string, params?: unknown, id: number | string = 1) => ({
  jsonrpc: '2.0',
  id,
  method,
  ...(params === undefined ? {} : { params }),
});

describe('MCP endpoint', () => {
  let s: TestServer;
  let alice: Actor;
  before(async () => {
    s = await startApi();
    alice = await actor(s, 'alice');
  });
  after(async () => s.stop());

  test('tools/list works without initialize and lists exactly the seventeen tools, each with an input schema', async () => {
    const r = await rawMcp(s, alice, rpc('tools/list'));
    assert.equal(r.status, 200, r.text);
    assert.match(r.headers.get('content-type') ?? '', /^application\/json/, 'one JSON response, no event stream');
    assert.equal(r.headers.get('mcp-session-id'), null, 'stateless: no session id');
    assertSecurityHeaders(r, 'tools/list');
    const tools = r.body.result.tools as Array<{ name: string; inputSchema: any; description: string }>;
    assert.deepEqual(tools.map((t) => t.name).sort(), NON_LLM_TOOLS);
    for (const t of tools) {
      assert.equal(t.inputSchema.type, 'object', t.name);
      assert.equal(typeof t.inputSchema.properties, 'object', t.name);
      assert.ok(t.description.length > 10, `${t.name} has a description`);
    }
    const create = tools.find((t) => t.name === 'create_link')!;
    assert.deepEqual(create.inputSchema.required.sort(), ['slug', 'url']);
    assert.deepEqual(Object.keys(create.inputSchema.properties).sort(), [
      'aliases',
      'default_url',
      'description',
      'expires_at',
      'forward_path_and_query',
      'health_checks_disabled',
      'share_with',
      'slug',
      'tags',
      'title',
      'url',
      'visibility',
    ]);
    const update = tools.find((t) => t.name === 'update_link')!;
    assert.deepEqual(update.inputSchema.required, ['link']);
    assert.deepEqual(Object.keys(update.inputSchema.properties).sort(), [
      'aliases',
      'archived',
      'default_url',
      'description',
      'expires_at',
      'forward_path_and_query',
      'health_checks_disabled',
      'link',
      'tags',
      'title',
      'url',
      'version',
      'visibility',
    ]);
  });

  test('tools/call works without initialize too', async () => {
    const r = await rawMcp(s, alice, rpc('tools/call', { name: 'list_links', arguments: {} }, 'x-1'));
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.id, 'x-1');
    assert.deepEqual(r.body.result.structuredContent, { links: [], count: 0 });
  });

  test('initialize negotiates 2025-06-18 and names the server and its version', async () => {
    const r = await rawMcp(
      s,
      alice,
      rpc('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } }),
    );
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers.get('mcp-session-id'), null);
    assert.equal(r.body.result.protocolVersion, '2025-06-18');
    assert.equal(r.body.result.serverInfo.name, 'joe-links');
    assert.match(r.body.result.serverInfo.version, /^\d+\.\d+\.\d+/);
    assert.ok(r.body.result.capabilities.tools, 'a tools capability');
    for (const absent of ['resources', 'prompts', 'sampling', 'logging'])
      assert.equal(r.body.result.capabilities[absent], undefined, absent);

    const client = await mcpClient(s, alice);
    assert.equal(client.getServerVersion()?.name, 'joe-links');
    assert.ok(client.getServerCapabilities()?.tools);
    await client.close();
  });

  test('no bearer token — with or without a session cookie — is 401 with the challenge and every security header, and nothing is dispatched', async () => {
    const cookie = await sessionCookie(s.store, alice.user);
    const before = await counter(s, 'joelinks_mcp_tool_calls_total', { tool: 'create_link', outcome: 'success' });
    const create = rpc('tools/call', { name: 'create_link', arguments: { slug: 'sneaky', url: 'https://e.test/' } });
    const expired = await s.store.tokens.create(alice.user.id, 'short', s.store.now() + 50);
    const revoked = await s.store.tokens.create(alice.user.id, 'revoked');
    await s.store.tokens.revokeById(revoked.token.id);
    await new Promise((r) => setTimeout(r, 80));
    const attempts: Array<[string, Record<string, string>]> = [
      ['nothing', {}],
      ['a session cookie', { cookie }],
      ['an empty bearer', { authorization: 'Bearer ' }],
      ['a lower-case scheme', { authorization: `bearer ${alice.token}` }],
      ['an unknown token', { authorization: 'Bearer jl_0000000000000000000000000000000000000000000' }],
      ['an expired token', { authorization: `Bearer ${expired.plaintext}` }],
      ['a revoked token', { authorization: `Bearer ${revoked.plaintext}` }],
    ];
    for (const [why, headers] of attempts) {
      for (const body of [
        rpc('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '0' } }),
        create,
      ]) {
        const r = await call(s, 'POST', '/mcp', { body, headers: { accept: ACCEPT, ...headers } });
        assert.equal(r.status, 401, why);
        assert.deepEqual(r.body, { error: 'unauthorized', code: 'UNAUTHORIZED' }, why);
        assert.match(r.headers.get('www-authenticate') ?? '', /^Bearer realm="joe-links"$/, why);
        assert.equal(r.headers.get('set-cookie'), null, `${why}: no cookie is ever set`);
        assertSecurityHeaders(r, why);
      }
    }
    for (const method of ['GET', 'DELETE']) {
      const r = await call(s, method, '/mcp', { headers: { cookie, accept: ACCEPT } });
      assert.equal(r.status, 401, `${method} authenticates first`);
      assertSecurityHeaders(r, method);
    }
    assert.equal(await s.store.links.getBySlug('sneaky'), null);
    assert.equal(await counter(s, 'joelinks_mcp_tool_calls_total', { tool: 'create_link', outcome: 'success' }), before);
  });

  test('GET opens no stream (405) and DELETE is a no-op; both behind the token', async () => {
    const g = await call(s, 'GET', '/mcp', { as: alice, headers: { accept: 'text/event-stream' } });
    assert.equal(g.status, 405);
    assert.equal(g.body.error.code, -32000);
    assert.match(g.headers.get('allow') ?? '', /POST/);
    assertSecurityHeaders(g, 'GET');
    const d = await call(s, 'DELETE', '/mcp', { as: alice });
    assert.ok(d.status >= 200 && d.status < 300, `DELETE ${d.status} ${d.text}`);
    assertSecurityHeaders(d, 'DELETE');
    // The endpoint still serves the same token afterwards: there was no session to end.
    assert.equal((await rawMcp(s, alice, rpc('tools/list'))).status, 200);
  });

  test('bodies over 1 MiB are refused with 413 before any dispatch; a body just under it is read', async () => {
    const pad = 'x'.repeat(1024 * 1024);
    const big = JSON.stringify(
      rpc('tools/call', { name: 'create_link', arguments: { slug: 'big-one', url: 'https://e.test/', description: pad } }),
    );
    const r = await rawMcp(s, alice, big, { 'content-type': 'application/json' });
    assert.equal(r.status, 413, r.text.slice(0, 200));
    assert.equal(r.body.code, 'PAYLOAD_TOO_LARGE');
    assertSecurityHeaders(r, '413');
    assert.equal(await s.store.links.getBySlug('big-one'), null);

    const under = JSON.stringify(
      rpc('tools/call', {
        name: 'create_link',
        arguments: { slug: 'big-two', url: 'https://e.test/', description: 'y'.repeat(1000 * 1000) },
      }),
    );
    const u = await rawMcp(s, alice, under, { 'content-type': 'application/json' });
    assert.equal(u.status, 200, u.text.slice(0, 200));
    const result = u.body.result;
    assert.equal(result.isError, true, 'read and validated: the description is over 2000 characters');
    assert.equal(JSON.parse(result.content[0].text).code, 'validation_failed');
  });

  test('malformed frames are protocol errors with 4xx, never a crash', async () => {
    const cases: Array<[string, string, Record<string, string>, number, number | null]> = [
      ['not JSON', '{"jsonrpc":', { 'content-type': 'application/json' }, 400, -32700],
      ['not a JSON-RPC message', '{"hello":"world"}', { 'content-type': 'application/json' }, 400, -32700],
      ['wrong content type', rpc('tools/list') as unknown as string, { 'content-type': 'text/plain' }, 415, -32000],
      ['no content type', JSON.stringify(rpc('tools/list')), {}, 415, -32000],
      ['empty JSON body', '', { 'content-type': 'application/json' }, 400, -32700],
      [
        'no event-stream in Accept',
        JSON.stringify(rpc('tools/list')),
        { 'content-type': 'application/json', accept: 'application/json' },
        406,
        -32000,
      ],
    ];
    for (const [why, body, headers, status, code] of cases) {
      const res = await get(
        `${s.url}/mcp`,
        { authorization: `Bearer ${alice.token}`, accept: ACCEPT, ...headers },
        'POST',
        typeof body === 'string' ? body : JSON.stringify(body),
      );
      const text = await res.text();
      assert.equal(res.status, status, `${why}: ${text}`);
      if (code !== null) assert.equal(JSON.parse(text).error.code, code, why);
    }
    const unknownMethod = await rawMcp(s, alice, rpc('resources/list'));
    assert.equal(unknownMethod.body.error.code, -32601, 'resources are not offered');
    const unknownTool = await rawMcp(s, alice, rpc('tools/call', { name: 'drop_database', arguments: {} }));
    assert.equal(unknownTool.status, 200);
    assert.equal(unknownTool.body.error.code, -32602, 'an unknown tool is a JSON-RPC error');
    const badArgs = await rawMcp(s, alice, rpc('tools/call', { name: 'get_link', arguments: { link: 42 } }));
    assert.equal(badArgs.body.error.code, -32602, 'arguments violating the schema are a JSON-RPC error');
    assert.match(badArgs.body.error.message, /get_link/);
    const extra = await rawMcp(s, alice, rpc('tools/call', { name: 'list_keywords', arguments: { surprise: true } }));
    assert.equal(extra.body.error.code, -32602, 'unknown arguments are refused, so a misspelt one is noticed');
    const notification = await rawMcp(s, alice, { jsonrpc: '2.0', method: 'notifications/initialized' });
    assert.equal(notification.status, 202);
  });

  test('a tool error leaves the client able to go on calling', async () => {
    const client = await mcpClient(s, alice);
    const r = await tool(client, 'get_link', { link: 'no-such-link' });
    assert.ok(!r.ok && r.code === 'not_found');
    assert.match(r.ok ? '' : r.message, /no-such-link/);
    assert.deepEqual(await ok(client, 'list_keywords'), { keywords: [] });
    await client.close();
  });
});

describe('MCP endpoint: rate limit', () => {
  let s: TestServer;
  let ann: Actor;
  let ben: Actor;
  before(async () => {
    s = await startApi({ env: { JOE_API_RATE_LIMIT: '4' } });
    ann = await actor(s, 'ann');
    ben = await actor(s, 'ben');
  });
  after(async () => s.stop());

  test('the per-token API budget applies to /mcp: 429 RATE_LIMITED with Retry-After and the security headers', async () => {
    // /api/v1 and /mcp share one budget per token.
    assert.equal((await call(s, 'GET', '/api/v1/users/me', { as: ann })).status, 200);
    for (let i = 0; i < 3; i++) assert.equal((await rawMcp(s, ann, rpc('tools/list'))).status, 200, `call ${i + 2}`);
    const over = await rawMcp(s, ann, rpc('tools/list'));
    assert.equal(over.status, 429);
    assert.equal(over.body.code, 'RATE_LIMITED');
    assert.ok(Number(over.headers.get('retry-after')) >= 1);
    assertSecurityHeaders(over, '429');
    assert.equal((await rawMcp(s, ben, rpc('tools/list'))).status, 200, 'another token has its own budget');
  });
});

describe('MCP endpoint: stateless across restarts', () => {
  test('a client keeps calling after the server restarts between calls', async () => {
    const database = await createTestDatabase('sqlite3');
    const cwd = mkdtempSync(join(tmpdir(), 'joe-links-mcp-'));
    const env = (addr: string) => ({
      JOE_HTTP_ADDR: addr,
      JOE_DB_DRIVER: database.config.driver,
      JOE_DB_DSN: database.config.dsn,
      JOE_HEALTH_CHECKS_ENABLED: 'false',
      JOE_API_RATE_LIMIT: '0',
      JOE_LOG_LEVEL: 'silent',
      JOE_BACKUP_DIR: join(cwd, 'backups'),
    });
    const first = await startServer(loadConfig({ cwd, env: env('127.0.0.1:0') }), { logger: false });
    let second: Awaited<ReturnType<typeof startServer>> | null = null;
    try {
      const user = await first.store.users.create({ email: 'restart@example.test', displayName: 'Restart', role: 'user' });
      const { plaintext } = await first.store.tokens.create(user.id, 'restart');
      const port = new URL(first.url).port;
      // A new connection per call, as a client would make after the old one was closed under it:
      // what is tested is that no server state outlives the restart.
      const client = await mcpClient({ url: first.url } as TestServer, plaintext, { freshConnections: true });
      await ok(client, 'create_link', { slug: 'before-restart', url: 'https://e.test/a' });
      await first.close();
      second = await startServer(loadConfig({ cwd, env: env(`127.0.0.1:${port}`) }), { logger: false });
      const got = await ok(client, 'get_link', { link: 'before-restart' });
      assert.equal(got.url, 'https://e.test/a');
      await ok(client, 'create_link', { slug: 'after-restart', url: 'https://e.test/b' });
      await client.close();
    } finally {
      await (second ?? first).close();
      await database.drop();
    }
  });
});
