import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import { after, before, describe, test } from 'node:test';
import { AppError } from '../../src/domain/errors.js';
import { get, sessionCookie, startTestServer, type RawResponse, type TestServer } from '../helpers/server.js';

/**
 * Which rules a request meets follows from the context its route is
 * registered in (src/app.tsx): the API's and MCP's contexts answer JSON and
 * never read a session or run the cross-site check; the web context renders
 * HTML, loads sessions and refuses cross-site writes. These tests hold the
 * boundaries, and show that a route added inside a context gets its rules
 * without opting in.
 */

const NOT_FOUND = { error: 'not found', code: 'NOT_FOUND' };
const UNAUTHORIZED = '{"error":"unauthorized","code":"UNAUTHORIZED"}';
const EVIL = { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' };
const LIMIT = 4;

async function json(r: RawResponse): Promise<unknown> {
  assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
  return JSON.parse(await r.text());
}

async function assertHtml(r: RawResponse, status: number, why: string): Promise<string> {
  assert.equal(r.status, status, why);
  assert.match(r.headers.get('content-type') ?? '', /^text\/html/, why);
  return r.text();
}

/** A server with probe routes added inside the REST API and the web pages. */
function startProbed(rateLimit: number): Promise<TestServer> {
  return startTestServer({
    env: { JOE_API_RATE_LIMIT: String(rateLimit) },
    start: {
      extend: {
        api: (api) => {
          api.get('/zz-probe', async () => ({ ok: true }));
          api.get('/zz-app-error', async () => {
            throw new AppError('SLUG_CONFLICT', 'taken');
          });
          api.get('/zz-crash', async () => {
            throw new Error('boom');
          });
          api.post('/zz-body', { schema: { body: Type.Object({ n: Type.Integer() }) } }, async () => ({ ok: true }));
        },
        pages: (pages) => {
          pages.post('/dashboard/zz-probe', async () => 'done');
          pages.get('/dashboard/zz-crash', async () => {
            throw new Error('boom');
          });
        },
      },
    },
  });
}

describe('surface contexts', () => {
  let s: TestServer;
  let limited: TestServer;
  let token: string;
  before(async () => {
    s = await startProbed(0);
    limited = await startProbed(LIMIT);
    const user = await limited.store.users.create({ email: 'contexts@example.test' });
    token = (await limited.store.tokens.create(user.id, 'contexts')).plaintext;
  });
  after(async () => {
    await s.stop();
    await limited.stop();
  });

  test('a route added inside the API gets bearer auth, the error body, validation and the per-token budget', async () => {
    const bearer = { authorization: `Bearer ${token}` };
    const anonymous = await get(`${limited.url}/api/v1/zz-probe`);
    assert.equal(anonymous.status, 401);
    assert.equal(await anonymous.text(), UNAUTHORIZED);

    const ok = await get(`${limited.url}/api/v1/zz-probe`, bearer);
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('x-ratelimit-limit'), String(LIMIT));
    const conflict = await get(`${limited.url}/api/v1/zz-app-error`, bearer);
    assert.equal(conflict.status, 409);
    assert.deepEqual(await json(conflict), { error: 'taken', code: 'SLUG_CONFLICT' });
    const crash = await get(`${limited.url}/api/v1/zz-crash`, bearer);
    assert.equal(crash.status, 500);
    assert.deepEqual(await json(crash), { error: 'internal error', code: 'INTERNAL_ERROR' });
    const bad = await get(`${limited.url}/api/v1/zz-body`, { ...bearer, 'content-type': 'application/json' }, 'POST', '{"n":"5"}');
    assert.equal(bad.status, 400);
    assert.equal(((await json(bad)) as { code: string }).code, 'BAD_REQUEST');

    const over = await get(`${limited.url}/api/v1/zz-probe`, bearer);
    assert.equal(over.status, 429);
    assert.equal(((await json(over)) as { code: string }).code, 'RATE_LIMITED');
  });

  test('unknown paths under /api and /mcp answer the API 404 body; unknown web paths the HTML page', async () => {
    for (const [method, path] of [
      ['GET', '/api/v1/nope'],
      ['GET', '/api/v1'],
      ['OPTIONS', '/api/v1/nope'],
      ['POST', '/api/nope'],
      ['PATCH', '/api/links'],
      ['OPTIONS', '/mcp'],
      ['POST', '/mcp/nope'],
    ]) {
      const r = await get(`${s.url}${path}`, {}, method);
      assert.equal(r.status, 404, `${method} ${path}`);
      assert.deepEqual(await json(r), NOT_FOUND, `${method} ${path}`);
    }
    for (const [method, path] of [
      ['POST', '/nope'],
      ['DELETE', '/dashboard/nope'],
      ['POST', '/healthz'],
      ['POST', '/s'],
    ]) {
      const body = await assertHtml(await get(`${s.url}${path}`, {}, method), 404, `${method} ${path}`);
      assert.match(body, /<!doctype html>/i);
    }
  });

  test('the cross-site check refuses web writes, and never runs for the bearer-only API, MCP or state-link API', async () => {
    for (const path of ['/dashboard/zz-probe', '/dashboard/theme', '/auth/logout', '/mcpx', '/dashboard/api/v1', '/nope']) {
      const body = await assertHtml(await get(`${s.url}${path}`, EVIL, 'POST'), 403, path);
      assert.match(body, /Request refused/, path);
    }
    assert.equal((await get(`${s.url}/dashboard/zz-probe`, {}, 'POST')).status, 200, 'the probe answers same-site writes');

    {
      const other = s;
      const user = await other.store.users.create({ email: 'cross-site@example.test' });
      const { plaintext } = await other.store.tokens.create(user.id, 'cross-site');
      const bearer = { ...EVIL, authorization: `Bearer ${plaintext}`, 'content-type': 'application/json' };
      const created = await get(
        `${other.url}/api/v1/links`,
        bearer,
        'POST',
        JSON.stringify({ slug: 'cross-site-ok', url: 'https://example.com/' }),
      );
      assert.equal(created.status, 201, await created.text());
      const mcp = await get(`${other.url}/mcp`, { ...bearer, accept: 'application/json, text/event-stream' }, 'POST', '{}');
      assert.notEqual(mcp.status, 403);
      assert.doesNotMatch(mcp.headers.get('content-type') ?? '', /html/);
      // The state-link API applies its own origin rule, in its own body.
      const state = await get(`${other.url}/api/links`, { ...EVIL, 'content-type': 'text/plain' }, 'POST', 'x');
      assert.equal(state.status, 403);
      assert.deepEqual(await json(state), { error: 'forbidden_origin' });
      for (const path of ['/api/v1x', '/api/linksx']) {
        const r = await get(`${other.url}${path}`, EVIL, 'POST');
        assert.equal(r.status, 404, path);
        assert.deepEqual(await json(r), NOT_FOUND, path);
      }
    }
  });

  test('a session cookie is never read outside the web context', async () => {
    const gone = await s.store.users.create({ email: 'contexts-gone@example.test' });
    const cookie = await sessionCookie(s.store, gone);
    await s.store.db.kysely.deleteFrom('users').where('id', '=', gone.id).execute();
    // The web context drops a session whose user vanished and sends the browser to sign in ...
    const web = await get(`${s.url}/dashboard`, { cookie });
    assert.equal(web.status, 302);
    assert.equal(web.headers.get('location'), '/auth/login');
    assert.match(web.headers.get('set-cookie') ?? '', /session=;/);

    // ... every other context leaves it alone.
    const live = await s.store.users.create({ email: 'contexts-live@example.test' });
    const liveCookie = await sessionCookie(s.store, live);
    for (const [method, path, c] of [
      ['GET', '/api/v1/users/me', liveCookie],
      ['POST', '/mcp', liveCookie],
      ['GET', '/api/v1/tags', cookie],
    ] as const) {
      const r = await get(`${s.url}${path}`, { cookie: c }, method);
      assert.equal(r.status, 401, `${method} ${path}`);
      assert.equal(await r.text(), UNAUTHORIZED);
      assert.equal(r.headers.get('set-cookie'), null, `${method} ${path}`);
    }
    for (const path of ['/healthz', '/api/v1/config', '/s/nope', '/static/nope.css', '/api/docs/']) {
      const r = await get(`${s.url}${path}`, { cookie });
      assert.notEqual(r.headers.get('location'), '/auth/login', path);
      assert.equal(r.headers.get('set-cookie'), null, path);
    }
  });

  test('a page added inside the web context gets its HTML error page', async () => {
    const body = await assertHtml(await get(`${s.url}/dashboard/zz-crash`), 500, 'crash');
    assert.match(body, /<!doctype html>/i);
  });
});
