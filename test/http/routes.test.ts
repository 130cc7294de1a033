import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Type } from '@sinclair/typebox';
import { isSlugShaped, RESERVED_SLUGS } from '../../src/domain/slug.js';
import { get, startTestServer, type TestServer } from '../helpers/server.js';

describe('route priority', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => s.stop());

  test('every static first path segment of the router is a reserved slug', () => {
    const firsts = new Set(
      s.app.registeredRoutes
        .map((url) => url.split('/')[1] ?? '')
        .filter((seg) => seg !== '' && !seg.startsWith(':') && !seg.startsWith('*')),
    );
    assert.ok(firsts.size > 0);
    for (const seg of firsts) {
      // Segments that can never be a slug (e.g. `_`) need no reservation.
      if (!isSlugShaped(seg)) continue;
      assert.ok(RESERVED_SLUGS.includes(seg), `top-level route /${seg} is not in the reserved slug list`);
    }
  });

  test('unmatched paths under reserved prefixes reach the resolver and render 404', async () => {
    for (const path of ['/links/x', '/u', '/dashboardx']) {
      const r = await get(`${s.url}${path}`);
      assert.equal(r.status, 404, path);
    }
  });

  test('static assets are served with their content type', async () => {
    const r = await get(`${s.url}/static/css/app.css`);
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^text\/css/);
  });

  test('healthz and readyz answer without authentication', async () => {
    assert.equal((await get(`${s.url}/healthz`)).status, 200);
    const ready = await get(`${s.url}/readyz`);
    assert.equal(ready.status, 200);
    assert.equal((await get(`${s.url}/healthz`, {}, 'HEAD')).status, 200);
  });
});

describe('response serializers', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({
      env: { JOE_API_RATE_LIMIT: '0' },
      start: {
        extend: {
          api: (api) =>
            api.get(
              '/serializer-probe',
              { schema: { response: { 200: Type.Object({ shown: Type.String() }, { additionalProperties: false }) } } },
              async () => ({ shown: 'yes', secret: 'never sent' }),
            ),
        },
      },
    });
  });
  after(async () => s.stop());

  test('every route’s response schemas compile (they are compiled at first use, so a bad one would hide until then)', () => {
    assert.doesNotThrow(() => s.app.compileSerializers());
  });

  test('a response is serialised through its schema at the first answer and every one after: no other field leaves', async () => {
    const user = await s.store.users.create({ email: `serial-${process.pid}@example.test`, displayName: 'Serial' });
    const { plaintext } = await s.store.tokens.create(user.id, 'serial');
    for (let i = 0; i < 2; i++) {
      const r = await get(`${s.url}/api/v1/serializer-probe`, { authorization: `Bearer ${plaintext}` });
      assert.equal(r.status, 200);
      assert.equal(await r.text(), '{"shown":"yes"}');
    }
  });
});
