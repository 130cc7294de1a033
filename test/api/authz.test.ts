import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { after, before, describe, test } from 'node:test';
import { LinkSchema } from '../../src/http/api/schemas/links.js';
import { toLinkResource } from '../../src/links/index.js';
import { ref } from '../../src/http/api/schemas/ref.js';
import { get, type TestServer } from '../helpers/server.js';
import { actor, call, startApi, type Actor } from './support.js';
import { addOwner, addShare, createLink } from '../helpers/links.js';
import { NAMED_SCHEMAS } from '../../src/http/api/schemas/index.js';

/**
 * Who may call what, endpoint by endpoint, for the six relationships a caller
 * can have to a link. The expected statuses are transcribed from docs/links.md#capabilities
 * (the capability matrix), docs/api.md#conventions (the endpoint table) and docs/api.md#admin-endpoints (admin routes),
 * not from the code: a change in the code that disagrees fails here.
 */

type Role = 'owner' | 'coowner' | 'share' | 'other' | 'admin' | 'none';
const ROLES: Role[] = ['owner', 'coowner', 'share', 'other', 'admin', 'none'];

interface Fixture {
  /** A secure link: owned by `owner`, co-owned by `coowner`, shared with `share`. */
  linkId: string;
  tagSlug: string;
  /** A second co-owner and a second share recipient, for the removal routes. */
  extraOwnerId: string;
  extraShareId: string;
  /** A user with no relation to anything yet. */
  candidate: { id: string; email: string };
  /** A token of the caller's own, for the revoke route. */
  callerTokenId: string | null;
  /** The link's `created` history event, for the restore route. */
  createdEventId: string;
  /** A registered webhook endpoint, for the webhook admin routes. */
  webhookId: string;
}

interface Row {
  route: string;
  method: string;
  path: (f: Fixture) => string;
  body?: (f: Fixture) => unknown;
  headers?: Record<string, string>;
  /** Expected status for owner, co-owner, share recipient, other user, admin, no token. */
  expect: [number, number, number, number, number, number];
}

const link = (f: Fixture) => `/api/v1/links/${f.linkId}`;
let n = 0;

const TABLE: Row[] = [
  { route: '#1 GET /config', method: 'GET', path: () => '/api/v1/config', expect: [200, 200, 200, 200, 200, 200] },
  { route: '#3 GET /keywords/templates', method: 'GET', path: () => '/api/v1/keywords/templates', expect: [200, 200, 200, 200, 200, 401] },
  { route: '#4 GET /users/me', method: 'GET', path: () => '/api/v1/users/me', expect: [200, 200, 200, 200, 200, 401] },
  { route: '#5 GET /tokens', method: 'GET', path: () => '/api/v1/tokens', expect: [200, 200, 200, 200, 200, 401] },
  {
    route: '#6 POST /tokens',
    method: 'POST',
    path: () => '/api/v1/tokens',
    body: () => ({ name: 'table' }),
    expect: [201, 201, 201, 201, 201, 401],
  },
  {
    route: '#7 DELETE /tokens/{id} (own)',
    method: 'DELETE',
    path: (f) => `/api/v1/tokens/${f.callerTokenId ?? '00000000-0000-4000-8000-000000000000'}`,
    expect: [204, 204, 204, 204, 204, 401],
  },
  { route: '#8 GET /links', method: 'GET', path: () => '/api/v1/links', expect: [200, 200, 200, 200, 200, 401] },
  {
    route: '#9 POST /links',
    method: 'POST',
    path: () => '/api/v1/links',
    body: () => ({ slug: `table-new-${++n}`, url: 'https://e.test' }),
    expect: [201, 201, 201, 201, 201, 401],
  },
  { route: '#10 GET /links/suggest', method: 'GET', path: () => '/api/v1/links/suggest?q=ta', expect: [200, 200, 200, 200, 200, 401] },
  { route: '#12 GET /links/{id}', method: 'GET', path: link, expect: [200, 200, 200, 403, 200, 401] },
  {
    route: '#13 PUT /links/{id}',
    method: 'PUT',
    path: link,
    body: () => ({ url: 'https://e.test/edited' }),
    expect: [200, 200, 403, 403, 200, 401],
  },
  {
    route: '#13 PUT /links/{id} (toggle only)',
    method: 'PUT',
    path: link,
    body: () => ({ archived: true }),
    expect: [200, 200, 403, 403, 200, 401],
  },
  { route: '#14 DELETE /links/{id}', method: 'DELETE', path: link, expect: [204, 204, 403, 403, 204, 401] },
  { route: '#15 GET /links/{id}/owners', method: 'GET', path: (f) => `${link(f)}/owners`, expect: [200, 200, 403, 403, 200, 401] },
  {
    route: '#16 POST /links/{id}/owners',
    method: 'POST',
    path: (f) => `${link(f)}/owners`,
    body: (f) => ({ email: f.candidate.email }),
    expect: [201, 201, 403, 403, 201, 401],
  },
  {
    route: '#17 DELETE /links/{id}/owners/{uid}',
    method: 'DELETE',
    path: (f) => `${link(f)}/owners/${f.extraOwnerId}`,
    expect: [204, 204, 403, 403, 204, 401],
  },
  { route: '#18 GET /links/{id}/shares', method: 'GET', path: (f) => `${link(f)}/shares`, expect: [200, 200, 403, 403, 200, 401] },
  {
    route: '#19 POST /links/{id}/shares',
    method: 'POST',
    path: (f) => `${link(f)}/shares`,
    body: (f) => ({ email: f.candidate.email }),
    expect: [201, 201, 403, 403, 201, 401],
  },
  {
    route: '#20 DELETE /links/{id}/shares/{uid}',
    method: 'DELETE',
    path: (f) => `${link(f)}/shares/${f.extraShareId}`,
    expect: [204, 204, 403, 403, 204, 401],
  },
  { route: '#27 GET /tags', method: 'GET', path: () => '/api/v1/tags', expect: [200, 200, 200, 200, 200, 401] },
  // The link is secure: to everyone else its tag does not exist.
  {
    route: '#28 GET /tags/{slug}/links',
    method: 'GET',
    path: (f) => `/api/v1/tags/${f.tagSlug}/links`,
    expect: [200, 200, 200, 404, 200, 401],
  },
  { route: '#29 GET /admin/users', method: 'GET', path: () => '/api/v1/admin/users', expect: [403, 403, 403, 403, 200, 401] },
  {
    route: '#30 PUT /admin/users/{id}/role',
    method: 'PUT',
    path: (f) => `/api/v1/admin/users/${f.candidate.id}/role`,
    body: () => ({ role: 'admin' }),
    expect: [403, 403, 403, 403, 200, 401],
  },
  {
    route: 'DELETE /admin/users/{id}',
    method: 'DELETE',
    path: (f) => `/api/v1/admin/users/${f.candidate.id}`,
    expect: [403, 403, 403, 403, 200, 401],
  },
  { route: '#31 GET /admin/links', method: 'GET', path: () => '/api/v1/admin/links', expect: [403, 403, 403, 403, 200, 401] },
  { route: '#32 GET /links/export', method: 'GET', path: () => '/api/v1/links/export', expect: [403, 403, 403, 403, 200, 401] },
  { route: '#33 GET /admin/link-health', method: 'GET', path: () => '/api/v1/admin/link-health', expect: [403, 403, 403, 403, 200, 401] },
  // docs/history.md#who-sees-what: reading needs CanView, restoring CanEdit, the audit is for admins.
  { route: 'GET /links/{id}/history', method: 'GET', path: (f) => `${link(f)}/history`, expect: [200, 200, 200, 403, 200, 401] },
  {
    route: 'POST /links/{id}/history/{event_id}/restore',
    method: 'POST',
    path: (f) => `${link(f)}/history/${f.createdEventId}/restore`,
    expect: [200, 200, 403, 403, 200, 401],
  },
  { route: 'GET /admin/events', method: 'GET', path: () => '/api/v1/admin/events', expect: [403, 403, 403, 403, 200, 401] },
  // docs/notifications.md: everyone signed in has their own notifications and preferences.
  { route: 'GET /notifications', method: 'GET', path: () => '/api/v1/notifications', expect: [200, 200, 200, 200, 200, 401] },
  {
    route: 'POST /notifications/read',
    method: 'POST',
    path: () => '/api/v1/notifications/read',
    body: () => ({ all: true }),
    expect: [200, 200, 200, 200, 200, 401],
  },
  {
    route: 'GET /me/notification-preferences',
    method: 'GET',
    path: () => '/api/v1/me/notification-preferences',
    expect: [200, 200, 200, 200, 200, 401],
  },
  {
    route: 'PUT /me/notification-preferences',
    method: 'PUT',
    path: () => '/api/v1/me/notification-preferences',
    body: () => ({ email: {} }),
    expect: [200, 200, 200, 200, 200, 401],
  },
  // docs/notifications.md#webhooks: endpoints are an admin's business only.
  {
    route: 'POST /admin/webhooks',
    method: 'POST',
    path: () => '/api/v1/admin/webhooks',
    body: () => ({ url: 'https://hooks.example.test/', events: ['*'] }),
    expect: [403, 403, 403, 403, 201, 401],
  },
  { route: 'GET /admin/webhooks', method: 'GET', path: () => '/api/v1/admin/webhooks', expect: [403, 403, 403, 403, 200, 401] },
  {
    route: 'GET /admin/webhooks/{id}',
    method: 'GET',
    path: (f) => `/api/v1/admin/webhooks/${f.webhookId}`,
    expect: [403, 403, 403, 403, 200, 401],
  },
  {
    route: 'DELETE /admin/webhooks/{id}',
    method: 'DELETE',
    path: (f) => `/api/v1/admin/webhooks/${f.webhookId}`,
    expect: [403, 403, 403, 403, 204, 401],
  },
  {
    route: 'GET /admin/webhooks/{id}/deliveries',
    method: 'GET',
    path: (f) => `/api/v1/admin/webhooks/${f.webhookId}/deliveries`,
    expect: [403, 403, 403, 403, 200, 401],
  },
  // No delivery yet: the admin learns that, nobody else learns anything.
  {
    route: 'POST /admin/webhooks/{id}/deliveries/{delivery_id}/redeliver',
    method: 'POST',
    path: (f) => `/api/v1/admin/webhooks/${f.webhookId}/deliveries/00000000-0000-4000-8000-000000000000/redeliver`,
    expect: [403, 403, 403, 403, 404, 401],
  },
  // docs/api.md#importing-from-other-tools: anyone signed in imports links of their own.
  {
    route: 'POST /links/import',
    method: 'POST',
    path: () => '/api/v1/links/import?dry_run=true',
    body: () => 'slug,url\n',
    headers: { 'content-type': 'text/csv' },
    expect: [200, 200, 200, 200, 200, 401],
  },
];

describe('authorization table: every endpoint × every relationship', () => {
  let s: TestServer;
  const actors = {} as Record<Exclude<Role, 'none'>, Actor>;
  before(async () => {
    s = await startApi();
    for (const role of ROLES) if (role !== 'none') actors[role] = await actor(s, role, { admin: role === 'admin' });
  });
  after(async () => s.stop());

  /** A fresh link (and friends) per request, so a delete or archive never leaks into the next row. */
  async function fixture(caller: Actor | null): Promise<Fixture> {
    const i = ++n;
    const tagName = `roster-${i}`;
    const view = await createLink(
      s.store,
      { slug: `table-${i}`, url: 'https://e.test', visibility: 'secure', tags: [tagName] },
      actors.owner.user.id,
    );
    await addOwner(s.store, view.id, actors.coowner.user.id);
    await addShare(s.store, view.id, actors.share.user.id, actors.owner.user.id);
    const extraOwner = await s.store.users.create({ email: `extra-owner-${i}@example.test` });
    const extraShare = await s.store.users.create({ email: `extra-share-${i}@example.test` });
    await addOwner(s.store, view.id, extraOwner.id);
    await addShare(s.store, view.id, extraShare.id, actors.owner.user.id);
    const candidate = await s.store.users.create({ email: `candidate-${i}@example.test` });
    const callerToken = caller ? (await s.store.tokens.create(caller.user.id, 'to-revoke')).token.id : null;
    const history = await s.store.linkEvents.page({ linkId: view.id, kinds: ['created'] }, { limit: 1 });
    const webhook = await s.store.webhooks.create({ url: 'https://hooks.example.test/', events: ['*'], secret: 'whsec_dGFibGU=' });
    return {
      linkId: view.id,
      tagSlug: tagName,
      extraOwnerId: extraOwner.id,
      extraShareId: extraShare.id,
      candidate,
      callerTokenId: callerToken,
      createdEventId: history.events[0]!.id,
      webhookId: webhook.id,
    };
  }

  for (const row of TABLE) {
    test(row.route, async () => {
      const got: number[] = [];
      for (const role of ROLES) {
        const caller = role === 'none' ? null : actors[role];
        const f = await fixture(caller);
        const r = await call(s, row.method, row.path(f), { as: caller, body: row.body?.(f), headers: row.headers });
        got.push(r.status);
        if (r.status >= 400) {
          assert.deepEqual(Object.keys(r.body ?? {}).sort(), ['code', 'error'], `${row.route} as ${role}: ${r.text}`);
        }
      }
      assert.deepEqual(
        Object.fromEntries(ROLES.map((role, i) => [role, got[i]])),
        Object.fromEntries(ROLES.map((role, i) => [role, row.expect[i]])),
      );
    });
  }

  test('the table covers every route this server registers under /api/v1', async () => {
    const documented = new Set(TABLE.map((r) => r.route.replace(/^#\d+ /, '').replace(/ \(.*\)$/, '')));
    // Other areas (stats, analytics, keywords, LLM suggestions, groups, whose rights follow a
    // group role rather than a link) test their own routes.
    const elsewhere = /\/stats|\/clicks|\/analytics|^GET \/keywords$|^POST \/links\/suggest$|^\w+ \/groups/;
    const registered = new Set<string>();
    const doc = (await s.app.inject({ method: 'GET', url: '/api/docs/swagger.json' })).json<{
      paths: Record<string, Record<string, unknown>>;
    }>();
    const paths = doc.paths;
    for (const [path, ops] of Object.entries(paths)) {
      for (const method of Object.keys(ops)) {
        const key = `${method.toUpperCase()} ${path}`;
        if (!elsewhere.test(key)) registered.add(key);
      }
    }
    for (const key of registered) assert.ok(documented.has(key), `${key} has no row in the authorization table`);
  });

  test('a token of another user cannot be revoked, and answers like one that does not exist', async () => {
    const theirs = await s.store.tokens.create(actors.other.user.id, 'not-yours');
    const r = await call(s, 'DELETE', `/api/v1/tokens/${theirs.token.id}`, { as: actors.owner });
    assert.equal(r.status, 404);
    const missing = await call(s, 'DELETE', '/api/v1/tokens/00000000-0000-4000-8000-000000000000', { as: actors.owner });
    assert.deepEqual(r.body, missing.body);
    assert.equal((await s.store.tokens.findById(theirs.token.id))?.revokedAt, null);
  });

  test('a share recipient never sees the roster of a secure link, in any response', async () => {
    const f = await fixture(null);
    const share = actors.share;
    const shares = await call(s, 'GET', `/api/v1/links/${f.linkId}/shares`, { as: share });
    assert.equal(shares.status, 403);
    const bodies = [
      await call(s, 'GET', `/api/v1/links/${f.linkId}`, { as: share }),
      await call(s, 'GET', '/api/v1/links', { as: share }),
      await call(s, 'GET', `/api/v1/tags/${f.tagSlug}/links`, { as: share }),
      shares,
    ];
    const extra = await s.store.users.findById(f.extraShareId);
    for (const r of bodies) {
      assert.ok(!r.text.includes(f.extraShareId), `no other recipient id in ${r.text.slice(0, 80)}`);
      assert.ok(!r.text.includes(extra!.email), 'no other recipient email');
      assert.ok(!r.text.includes('shared_by'), 'no share objects at all');
    }
  });

  test('the link resource is serialised through its schema: fields it does not list never leave the server', async () => {
    const f = await fixture(null);
    const view = (await s.store.links.view(f.linkId))!;
    const shares = await s.store.shares.list(f.linkId);
    // A handler that carelessly returned more than the resource: the roster, raw rows.
    const careless = {
      ...toLinkResource(view, Date.now(), undefined),
      shares,
      health_row: { last_error: 'secret' },
      owner_id: actors.owner.user.id,
    };
    const app = Fastify();
    for (const schema of NAMED_SCHEMAS) app.addSchema(schema);
    app.get('/careless', { schema: { response: { 200: ref(LinkSchema) } } }, async () => careless);
    await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const addr = app.server.address() as { port: number };
      const body = JSON.parse(await (await get(`http://127.0.0.1:${addr.port}/careless`)).text());
      assert.deepEqual(Object.keys(body).sort(), Object.keys(toLinkResource(view, Date.now(), undefined)).sort());
      assert.ok(!('health' in body), 'no health for a caller without CanView');
    } finally {
      await app.close();
    }
  });
});
