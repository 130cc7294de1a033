import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { actor, call, startApi, type Actor } from '../api/support.js';
import { get, type TestServer } from '../helpers/server.js';
import { ACCEPT, rawMcp } from './support.js';

/**
 * Whatever arrives at `/mcp` — broken frames, odd JSON-RPC, arguments of the
 * wrong shape — the answer is a protocol error or a tool result, never a 5xx,
 * never an `internal_error`, and the server keeps serving.
 */

const TOOLS = [
  'create_link',
  'get_link',
  'list_links',
  'update_link',
  'delete_link',
  'share_link',
  'unshare_link',
  'add_co_owner',
  'get_link_stats',
  'get_link_history',
  'restore_link_version',
  'list_keywords',
  'list_groups',
  'get_group',
  'create_group',
  'add_group_member',
  'remove_group_member',
];
const ARG_NAMES = [
  'link',
  'event_id',
  'cursor',
  'slug',
  'url',
  'title',
  'description',
  'tags',
  'visibility',
  'expires_at',
  'health_checks_disabled',
  'share_with',
  'archived',
  'q',
  'tag',
  'filter',
  'limit',
  'email',
  'group',
  'name',
  'role',
  'mine',
];
const VOCABULARY = new Set([
  'unauthorized',
  'forbidden',
  'not_found',
  'validation_failed',
  'duplicate_slug',
  'duplicate_alias',
  'unknown_user',
  'duplicate_share',
  'duplicate_owner',
  'group_conflict',
  'version_conflict',
]);

/** Values an agent might plausibly (or implausibly) send. */
const argValue = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    'f-1',
    'https://e.test/x',
    'mcp',
    'public',
    'secure',
    'mine',
    'shared',
    '2030-01-02T15:04:05Z',
    '2001-01-01T00:00:00Z',
    'a\u0000b',
    '%',
    '_',
  ),
  fc.integer({ min: -1000, max: 100000 }),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.constant('a\u0000b')), { maxLength: 25 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
);

describe('MCP under fuzzed input', () => {
  let s: TestServer;
  let alice: Actor;
  before(async () => {
    s = await startApi();
    alice = await actor(s, 'alice');
    await call(s, 'POST', '/api/v1/links', { as: alice, body: { slug: 'f-1', url: 'https://e.test/f' } });
  });
  after(async () => s.stop());

  test('arbitrary bodies and JSON-RPC frames get 2xx/4xx answers in JSON-RPC shape', async () => {
    const frame = fc.record(
      {
        jsonrpc: fc.oneof(fc.constant('2.0'), fc.jsonValue({ maxDepth: 1 })),
        id: fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.constant(null), fc.jsonValue({ maxDepth: 1 })),
        method: fc.oneof(
          fc.constantFrom(
            'initialize',
            'tools/list',
            'tools/call',
            'ping',
            'resources/read',
            'notifications/initialized',
            'sampling/createMessage',
          ),
          fc.string({ maxLength: 20 }),
        ),
        params: fc.oneof(
          fc.jsonValue({ maxDepth: 3 }),
          fc.record({ name: fc.oneof(fc.constantFrom(...TOOLS), fc.string({ maxLength: 10 })), arguments: fc.jsonValue({ maxDepth: 3 }) }),
        ),
      },
      { requiredKeys: [] },
    );
    const body = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
      frame.map((f) => JSON.stringify(f)),
      fc.array(frame, { minLength: 1, maxLength: 4 }).map((fs) => JSON.stringify(fs)),
    );
    await fc.assert(
      fc.asyncProperty(body, fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain'), async (text, type) => {
        const res = await get(
          `${s.url}/mcp`,
          { authorization: `Bearer ${alice.token}`, accept: ACCEPT, 'content-type': type },
          'POST',
          text,
        );
        const out = await res.text();
        assert.ok(res.status < 500, `${res.status} for ${text.slice(0, 120)}: ${out.slice(0, 200)}`);
        if (out !== '') {
          const parsed = JSON.parse(out);
          for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
            assert.equal(message.jsonrpc, '2.0', out.slice(0, 200));
            assert.ok('result' in message || 'error' in message, out.slice(0, 200));
          }
        } else {
          assert.equal(res.status, 202, 'only notification-only posts have no body');
        }
      }),
      { numRuns: 300 },
    );
  });

  test('arbitrary tool arguments are a schema error or a tool result in the vocabulary, never internal_error', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...TOOLS),
        fc.dictionary(fc.constantFrom(...ARG_NAMES), argValue, { maxKeys: 6 }),
        async (name, args) => {
          const r = await rawMcp(s, alice, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: args } });
          if (JSON.stringify(args).includes('"__proto__":')) {
            // Refused as a body, before any tool sees it (docs/api.md#request-bodies).
            assert.equal(r.status, 400, r.text.slice(0, 200));
            assert.equal(r.body.error.code, -32700);
            assert.match(r.body.error.message, /__proto__/);
            return;
          }
          assert.equal(r.status, 200, r.text.slice(0, 200));
          if (r.body.error) {
            assert.equal(r.body.error.code, -32602, `${name} ${JSON.stringify(args)}: ${r.text.slice(0, 200)}`);
            return;
          }
          const result = r.body.result;
          if (result.isError) {
            const e = JSON.parse(result.content[0].text);
            assert.ok(VOCABULARY.has(e.code), `${name} ${JSON.stringify(args)} → ${e.code}: ${e.message}`);
          } else {
            assert.equal(typeof result.structuredContent, 'object');
          }
        },
      ),
      { numRuns: 400 },
    );
    assert.equal((await get(`${s.url}/healthz`)).status, 200, 'still serving');
    assert.equal((await rawMcp(s, alice, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status, 200);
  });

  test('a NUL anywhere in an argument is validation_failed on every database alike', async () => {
    for (const args of [{ q: 'a\u0000' }, { filter: 'public', q: 'x\u0000y' }]) {
      const r = await rawMcp(s, alice, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_links', arguments: args } });
      const e = JSON.parse(r.body.result.content[0].text);
      assert.equal(e.code, 'validation_failed');
      assert.match(e.message, /^q must not contain NUL/);
    }
    const r = await rawMcp(s, alice, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'create_link', arguments: { slug: 'nul-1', url: 'https://e.test', tags: ['ok', 'b\u0000d'] } },
    });
    assert.match(JSON.parse(r.body.result.content[0].text).message, /^tags\[1\] must not contain NUL/);
    assert.equal(await s.store.links.getBySlug('nul-1'), null);
  });
});
