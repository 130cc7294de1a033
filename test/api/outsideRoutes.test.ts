import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { actor, assertError, call, createLink, startApi, type Actor } from './support.js';
import type { TestServer } from '../helpers/server.js';

/**
 * What the API answers where no route does (docs/api.md#errors): a wrong method on a known
 * path is 405 with `Allow`, an unknown path 404, and requests Node refuses before routing
 * (oversized headers, garbage) the same `{error, code}` body a client already parses.
 */

/** One raw request on a fresh connection: the bytes Node's parser sees, and the whole answer. */
function raw(s: TestServer, request: string): Promise<string> {
  const { hostname, port } = new URL(s.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(request));
    const parts: Buffer[] = [];
    socket.on('data', (c: Buffer) => parts.push(c));
    socket.on('close', () => resolve(Buffer.concat(parts).toString('utf8')));
    socket.on('error', reject);
  });
}

describe('the API outside its routes', () => {
  let s: TestServer;
  let alice: Actor;
  before(async () => {
    s = await startApi();
    alice = await actor(s, 'alice');
  });
  after(async () => s.stop());

  test('a wrong method on a known path is 405 with the methods that path takes, and changes nothing', async () => {
    const link = await createLink(s, alice, { slug: 'methods', url: 'https://example.com/' });
    const patched = await call(s, 'PATCH', `/api/v1/links/${link.id}`, { as: alice, body: { url: 'https://example.com/x' } });
    assertError(patched, 405, 'METHOD_NOT_ALLOWED');
    assert.equal(patched.headers.get('allow'), 'DELETE, GET, HEAD, PUT');
    assert.equal((await call(s, 'GET', `/api/v1/links/${link.id}`, { as: alice })).body.url, 'https://example.com/');

    const getOnDeleteOnly = await call(s, 'GET', `/api/v1/links/${link.id}/owners/${alice.user.id}`, { as: alice });
    assertError(getOnDeleteOnly, 405, 'METHOD_NOT_ALLOWED');
    assert.equal(getOnDeleteOnly.headers.get('allow'), 'DELETE');

    const putOnList = await call(s, 'PUT', '/api/v1/links', { as: alice, body: {} });
    assertError(putOnList, 405, 'METHOD_NOT_ALLOWED');
    assert.equal(putOnList.headers.get('allow'), 'GET, HEAD, POST');

    assertError(await call(s, 'GET', '/api/v1/no-such-thing', { as: alice }), 404, 'NOT_FOUND');
    assertError(await call(s, 'POST', '/api/v1/links/a/b/c/d', { as: alice, body: {} }), 404, 'NOT_FOUND');
    assert.equal((await call(s, 'PATCH', '/api/v1/links', {})).status, 405, 'the answer does not depend on a token');
  });

  test('a refused shape names the rule it broke, not only the type it expected', async () => {
    const tooMany = await call(s, 'POST', '/api/v1/notifications/read', {
      as: alice,
      body: { ids: Array.from({ length: 201 }, (_, i) => `n${i}`) },
    });
    assertError(tooMany, 400, 'BAD_REQUEST');
    assert.equal(tooMany.body.error, 'invalid request body: ids must have at most 200 items');
    const longKey = await call(s, 'POST', '/api/v1/links', {
      as: alice,
      body: { slug: 'long-key', url: 'https://example.com/' },
      headers: { 'idempotency-key': 'k'.repeat(256) },
    });
    assertError(longKey, 400, 'BAD_REQUEST');
    assert.equal(longKey.body.error, 'invalid header: idempotency-key must be at most 255 characters');
    const wrongType = await call(s, 'POST', '/api/v1/links', { as: alice, body: { slug: 5, url: 'https://example.com/' } });
    assert.equal(wrongType.body.error, 'invalid request body: slug must be a string');
  });

  test('headers over the limit are 431 and a request that is no HTTP 400, both in the error body', async () => {
    const big = await raw(s, `GET /api/v1/config HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    assert.match(big, /^HTTP\/1\.1 431 /);
    assert.match(big, /content-type: application\/json/i);
    assert.deepEqual(JSON.parse(big.slice(big.indexOf('\r\n\r\n') + 4)), { error: 'request headers too large', code: 'HEADERS_TOO_LARGE' });

    const garbage = await raw(s, 'HELLO THERE\r\n\r\n');
    assert.match(garbage, /^HTTP\/1\.1 400 /);
    assert.deepEqual(JSON.parse(garbage.slice(garbage.indexOf('\r\n\r\n') + 4)), { error: 'malformed HTTP request', code: 'BAD_REQUEST' });
  });
});
