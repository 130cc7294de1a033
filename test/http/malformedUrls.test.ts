import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Requests the router refuses before any context is chosen — a malformed
 * %-escape, a path parameter over the length limit — on every method: the
 * web's 400 page outside the API, the API's error body under it, each with
 * the security headers of a normal answer, and never the path repeated back
 * (docs/web-ui.md#error-pages).
 */
describe('malformed request URLs', () => {
  let s: TestServer;
  let pageHeaders: Headers;
  let apiHeaders: Headers;

  before(async () => {
    s = await startTestServer();
    pageHeaders = (await fetch(`${s.url}/`)).headers;
    apiHeaders = (await fetch(`${s.url}/api/v1/config`)).headers;
  });
  after(() => s?.stop());

  const SECURITY = ['content-security-policy', 'x-content-type-options', 'x-frame-options', 'referrer-policy', 'strict-transport-security'];
  const WEB_PATHS = ['/%ff%3Csvg%3E', '/dashboard/%ff<svg>', '/dashboard/links/%zz', '/_/%e0%80', '/auth/%', '/s/%ff'];
  const API_PATHS = ['/api/v1/links/%ff<svg>', '/api/v1/%zz', '/mcp/%ff'];

  test('outside the API: the styled 400 page with every security header, whatever the method', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      for (const path of WEB_PATHS) {
        const r = await fetch(`${s.url}${path}`, { method, headers: { cookie: 'theme=joe-dark' } });
        const label = `${method} ${path}`;
        assert.equal(r.status, 400, label);
        assert.match(r.headers.get('content-type') ?? '', /^text\/html/, label);
        for (const h of SECURITY) {
          if (pageHeaders.has(h)) assert.equal(r.headers.get(h), pageHeaders.get(h), `${label}: ${h}`);
        }
        assert.ok(r.headers.get('content-security-policy'), `${label}: a content policy`);
        const body = await r.text();
        assert.match(body, /Bad request/, label);
        assert.match(body, /data-theme="joe-dark"/, `${label}: the visitor's theme`);
        assert.doesNotMatch(body, /<svg>|%ff|%zz|%e0/i, `${label}: the path is not repeated back`);
      }
    }
  });

  test('under the API and MCP: the API error body with the same security headers', async () => {
    for (const method of ['GET', 'POST', 'PUT', 'DELETE']) {
      for (const path of API_PATHS) {
        const r = await fetch(`${s.url}${path}`, { method });
        const label = `${method} ${path}`;
        assert.equal(r.status, 400, label);
        assert.deepEqual(await r.json(), { error: 'malformed request URL', code: 'BAD_REQUEST' }, label);
        for (const h of SECURITY) {
          if (apiHeaders.has(h)) assert.equal(r.headers.get(h), apiHeaders.get(h), `${label}: ${h}`);
        }
      }
    }
  });

  test('an oversized path parameter gets a styled page or the API body, never an echo', async () => {
    const long = 'a'.repeat(3000);
    for (const method of ['GET', 'POST']) {
      const web = await fetch(`${s.url}/dashboard/links/${long}`, { method });
      assert.ok(web.status === 400 || web.status === 404, `${method}: ${web.status}`);
      assert.match(web.headers.get('content-type') ?? '', /^text\/html/);
      assert.ok(web.headers.get('content-security-policy'));
      assert.doesNotMatch(await web.text(), new RegExp(long));
      const api = await fetch(`${s.url}/api/v1/links/${long}`, { method });
      assert.ok(api.status === 400 || api.status === 404, `${method}: ${api.status}`);
      assert.match(((await api.json()) as { code: string }).code, /^(BAD_REQUEST|NOT_FOUND)$/);
    }
  });
});
