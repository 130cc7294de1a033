import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Agent, buildConnector, getGlobalDispatcher, setGlobalDispatcher, type Dispatcher } from 'undici';
import { actor, assertError, call, startApi, type Actor } from './support.js';
import type { TestServer } from '../helpers/server.js';
import { anthropicReply, GOOD, sendJson, startLocalServer, type LocalServer } from '../llm/support.js';

/**
 * The anthropic acceptance check through the whole server: with
 * `JOE_LLM_PROVIDER=anthropic`, one suggestion is one POST to
 * `https://api.anthropic.com/v1/messages`. This process's connections to
 * api.anthropic.com:443 are delivered to a local server that speaks the
 * Messages API; every other connection is dialled as usual.
 */

describe('POST /api/v1/links/suggest with JOE_LLM_PROVIDER=anthropic', () => {
  let provider: LocalServer;
  let s: TestServer;
  let alice: Actor;
  let previous: Dispatcher;

  before(async () => {
    provider = await startLocalServer((_req, res) => sendJson(res, 200, anthropicReply(JSON.stringify(GOOD))));
    const usual = buildConnector({});
    previous = getGlobalDispatcher();
    setGlobalDispatcher(
      new Agent({
        connect: (opts, callback) => {
          if (opts.hostname !== 'api.anthropic.com') return usual(opts, callback);
          const socket = net.connect(provider.port, '127.0.0.1');
          socket.once('connect', () => callback(null, socket));
          socket.once('error', (err) => callback(err, null));
        },
      }),
    );
    s = await startApi({ env: { JOE_LLM_PROVIDER: 'anthropic', JOE_LLM_API_KEY: 'sk-ant-e2e' } });
    alice = await actor(s, 'alice');
  });
  after(async () => {
    await s.stop();
    setGlobalDispatcher(previous);
    await provider.close();
  });

  test('sends exactly one Messages API request with the key and version headers, and answers the suggestion', async () => {
    const r = await call(s, 'POST', '/api/v1/links/suggest', {
      as: alice,
      body: { url: 'https://wiki.example.com/', title: 'Wiki', description: 'Notes' },
    });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, GOOD);
    assert.equal(provider.requests.length, 1);
    const req = provider.requests[0]!;
    assert.equal(`${req.method} https://${req.headers.host}${req.path}`, 'POST https://api.anthropic.com/v1/messages');
    assert.equal(req.headers['x-api-key'], 'sk-ant-e2e');
    assert.equal(req.headers['anthropic-version'], '2023-06-01');
    assert.equal(req.json.model, 'claude-haiku-4-5-20251001');
    assert.equal(req.json.max_tokens, 256);
  });

  test('an overloaded provider is 502 LLM_ERROR', async () => {
    provider.handle((_req, res) => sendJson(res, 529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }));
    assertError(
      await call(s, 'POST', '/api/v1/links/suggest', {
        as: alice,
        body: { url: 'https://wiki.example.com/', title: 'Wiki', description: 'Notes' },
      }),
      502,
      'LLM_ERROR',
    );
  });
});
