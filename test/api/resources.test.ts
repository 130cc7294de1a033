import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sha256Hex } from '../../src/domain/secrets.js';
import { get, type TestServer } from '../helpers/server.js';
import { actor, assertError, call, createLink, startApi, type Actor } from './support.js';
import { addShare } from '../helpers/links.js';
import { viewerOf } from '../../src/store/types.js';

const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
/** Orders by creation time need distinct milliseconds. */
const tick = () => new Promise((r) => setTimeout(r, 5));

describe('REST owners, shares, tags, tokens, admin and config', () => {
  let s: TestServer;
  let alice: Actor;
  let bob: Actor;
  let admin: Actor;
  before(async () => {
    s = await startApi({ env: { JOE_SHORT_KEYWORD: '' } });
    alice = await actor(s, 'alice');
    bob = await actor(s, 'bob');
    admin = await actor(s, 'root', { admin: true });
  });
  after(async () => s.stop());

  test('co-owners: add by email (any case), list primary first, primary cannot be removed', async () => {
    const link = await createLink(s, alice, { slug: 'owned-together' });
    const base = `/api/v1/links/${link.id}/owners`;
    const added = await call(s, 'POST', base, { as: alice, body: { email: bob.user.email } });
    assert.equal(added.status, 201, added.text);
    assert.deepEqual(added.body, { id: bob.user.id, email: bob.user.email, is_primary: false });
    assertError(await call(s, 'POST', base, { as: alice, body: { email: bob.user.email } }), 409, 'DUPLICATE_OWNER');
    assertError(
      await call(s, 'POST', base, { as: alice, body: { email: ` ${bob.user.email.toUpperCase()} ` } }),
      409,
      'DUPLICATE_OWNER',
      'the same person in another case',
    );
    assertError(await call(s, 'POST', base, { as: alice, body: { email: 'nobody@example.test' } }), 404, 'NOT_FOUND');
    const missing = await call(s, 'POST', base, { as: alice, body: { email: '' } });
    assertError(missing, 400, 'BAD_REQUEST');
    assert.equal(missing.body.error, 'email is required');
    assertError(await call(s, 'POST', base, { as: alice, body: {} }), 400, 'BAD_REQUEST');

    const list = await call(s, 'GET', base, { as: bob });
    assert.equal(list.status, 200, 'a co-owner manages owners too');
    assert.deepEqual(
      list.body.map((o: { id: string }) => o.id),
      [alice.user.id, bob.user.id],
    );
    assert.equal(list.body[0].is_primary, true);

    assertError(await call(s, 'DELETE', `${base}/${alice.user.id}`, { as: bob }), 400, 'PRIMARY_OWNER_PROTECTED');
    assertError(await call(s, 'DELETE', `${base}/${admin.user.id}`, { as: bob }), 404, 'NOT_FOUND', 'not an owner');
    assertError(await call(s, 'DELETE', `${base}/not-a-uuid`, { as: bob }), 404, 'NOT_FOUND');
    assert.equal((await call(s, 'DELETE', `${base}/${bob.user.id}`, { as: alice })).status, 204);
    assert.deepEqual(
      (await call(s, 'GET', base, { as: alice })).body.map((o: { id: string }) => o.id),
      [alice.user.id],
    );
  });

  test('shares: add by email, list oldest first with the granter, remove', async () => {
    const link = await createLink(s, alice, { slug: 'for-friends', visibility: 'secure' });
    const base = `/api/v1/links/${link.id}/shares`;
    const r = await call(s, 'POST', base, { as: alice, body: { email: bob.user.email } });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(Object.keys(r.body).sort(), ['created_at', 'display_name', 'email', 'link_id', 'shared_by', 'user_id']);
    assert.equal(r.body.link_id, link.id);
    assert.equal(r.body.user_id, bob.user.id);
    assert.equal(r.body.shared_by, alice.user.id);
    assert.equal(r.body.display_name, bob.user.displayName);
    assert.match(r.body.created_at, RFC3339);
    assertError(await call(s, 'POST', base, { as: alice, body: { email: bob.user.email } }), 409, 'DUPLICATE_SHARE');
    await tick();
    await call(s, 'POST', base, { as: alice, body: { email: admin.user.email } });
    const list = await call(s, 'GET', base, { as: admin });
    assert.deepEqual(
      list.body.map((x: { user_id: string }) => x.user_id),
      [bob.user.id, admin.user.id],
    );
    assert.equal((await call(s, 'GET', `/api/v1/links/${link.id}`, { as: bob })).status, 200, 'the share grants CanView');
    assert.equal((await call(s, 'DELETE', `${base}/${bob.user.id}`, { as: alice })).status, 204);
    assertError(await call(s, 'DELETE', `${base}/${bob.user.id}`, { as: alice }), 404, 'NOT_FOUND');
    assertError(await call(s, 'GET', `/api/v1/links/${link.id}`, { as: bob }), 403, 'FORBIDDEN', 'access ends with the share');
  });

  test('tags count only what the caller may see; a tag on invisible links looks missing', async () => {
    const carol = await actor(s, 'carol');
    await createLink(s, carol, { slug: 'tag-pub-1', tags: ['Visible Tag'] });
    await createLink(s, carol, { slug: 'tag-priv-1', tags: ['Visible Tag', 'Hidden Tag'], visibility: 'private' });
    const expired = await createLink(s, carol, { slug: 'tag-old', tags: ['Visible Tag', 'Dead Tag'] });
    await s.store.db.kysely
      .updateTable('links')
      .set({ expires_at: Date.UTC(2020, 0, 1) })
      .where('id', '=', expired.id)
      .execute();
    const archived = await createLink(s, carol, { slug: 'tag-shelved', tags: ['Visible Tag', 'Dead Tag'] });
    await s.store.db.kysely
      .updateTable('links')
      .set({ archived_at: Date.UTC(2020, 0, 1) })
      .where('id', '=', archived.id)
      .execute();

    const seen = async (who: Actor) =>
      Object.fromEntries(
        (await call(s, 'GET', '/api/v1/tags?limit=200', { as: who })).body.tags.map((t: { slug: string; link_count: number }) => [
          t.slug,
          t.link_count,
        ]),
      );
    const slugs = async (who: Actor, tag: string) =>
      (await call(s, 'GET', `/api/v1/tags/${tag}/links`, { as: who })).body.links?.map((l: { slug: string }) => l.slug);

    // A stranger: someone else's expired and archived links are gone, as on the tag browser.
    const bobs = await seen(bob);
    assert.equal(bobs['visible-tag'], 1, 'only the live public link');
    assert.equal(bobs['hidden-tag'], undefined);
    assert.equal(bobs['dead-tag'], undefined, 'a tag on nothing but dead links looks missing');
    assert.deepEqual(await slugs(bob, 'visible-tag'), ['tag-pub-1']);
    const dead = await call(s, 'GET', '/api/v1/tags/dead-tag/links', { as: bob });
    assertError(dead, 404, 'NOT_FOUND');
    assert.deepEqual(dead.body, (await call(s, 'GET', '/api/v1/tags/no-such-tag/links', { as: bob })).body);

    // Their owner still sees them, as the tag browser shows them badged.
    const carols = await seen(carol);
    assert.equal(carols['visible-tag'], 4);
    assert.equal(carols['hidden-tag'], 1);
    assert.equal(carols['dead-tag'], 2);
    assert.deepEqual(await slugs(carol, 'visible-tag'), ['tag-old', 'tag-priv-1', 'tag-pub-1', 'tag-shelved']);
    // An admin holds every link.
    assert.equal((await seen(admin))['visible-tag'], 4);
    assert.deepEqual(await slugs(admin, 'dead-tag'), ['tag-old', 'tag-shelved']);

    // The tag browser counts and lists exactly what REST does, for each of them.
    for (const who of [bob, carol, admin]) {
      const listed = await s.store.tags.listWithCounts(viewerOf(who.user));
      assert.deepEqual(
        Object.fromEntries(listed.filter((t) => t.slug.endsWith('-tag')).map((t) => [t.slug, t.linkCount])),
        Object.fromEntries(Object.entries(await seen(who)).filter(([k]) => k.endsWith('-tag'))),
      );
    }

    const list = await call(s, 'GET', '/api/v1/tags/visible-tag/links', { as: bob });
    assert.equal(list.status, 200);
    assert.equal(list.body.next_cursor, null);
    assert.ok(
      list.body.links.every((l: Record<string, unknown>) => !('health' in l)),
      'not Bob’s links: no health',
    );
    const hidden = await call(s, 'GET', '/api/v1/tags/hidden-tag/links', { as: bob });
    const missing = await call(s, 'GET', '/api/v1/tags/no-such-tag/links', { as: bob });
    assertError(hidden, 404, 'NOT_FOUND');
    assert.deepEqual(hidden.body, missing.body, 'indistinguishable');
    assert.equal((await call(s, 'GET', '/api/v1/tags/hidden-tag/links', { as: admin })).body.links.length, 1);
    assertError(await call(s, 'GET', '/api/v1/tags/no-such-tag/links', { as: admin }), 404, 'NOT_FOUND');
    assertError(await call(s, 'GET', '/api/v1/tags/%00/links', { as: admin }), 400, 'BAD_REQUEST');
  });

  test('tokens: create shows the token once, list never does, revoke stops it', async () => {
    const created = await call(s, 'POST', '/api/v1/tokens', { as: alice, body: { name: 'deploy', expires_at: '2099-01-01T00:00:00Z' } });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(Object.keys(created.body).sort(), ['created_at', 'expires_at', 'id', 'name', 'token']);
    assert.match(created.body.token, /^jl_[0-9A-Za-z]+$/);
    await tick();
    const forever = await call(s, 'POST', '/api/v1/tokens', { as: alice, body: { name: 'forever', expires_at: null } });
    assert.ok(!('expires_at' in forever.body), 'omitted when it never expires');

    assertError(await call(s, 'POST', '/api/v1/tokens', { as: alice, body: { name: '  ' } }), 400, 'BAD_REQUEST');
    assert.equal((await call(s, 'POST', '/api/v1/tokens', { as: alice, body: {} })).body.error, 'name is required');
    assertError(
      await call(s, 'POST', '/api/v1/tokens', { as: alice, body: { name: 'x', expires_at: '2001-01-01T00:00:00Z' } }),
      400,
      'BAD_REQUEST',
    );
    assertError(await call(s, 'POST', '/api/v1/tokens', { as: alice, body: { name: 'x', expires_at: 'soon' } }), 400, 'BAD_REQUEST');

    // The new token works, and is used once so last_used_at appears.
    assert.equal((await call(s, 'GET', '/api/v1/users/me', { as: created.body.token })).body.id, alice.user.id);
    const list = await call(s, 'GET', '/api/v1/tokens', { as: alice });
    assert.equal(list.status, 200);
    const names = list.body.tokens.map((t: { name: string }) => t.name);
    assert.deepEqual(names.slice(0, 2), ['forever', 'deploy'], 'newest first');
    assert.ok(!list.text.includes(created.body.token) && !list.text.includes(sha256Hex(created.body.token)), 'neither token nor hash');
    for (const t of list.body.tokens) {
      for (const k of Object.keys(t)) assert.ok(['id', 'name', 'created_at', 'last_used_at', 'expires_at'].includes(k), k);
      if ('last_used_at' in t) assert.match(t.last_used_at, RFC3339);
    }

    assert.equal((await call(s, 'DELETE', `/api/v1/tokens/${created.body.id}`, { as: alice })).status, 204);
    assertError(await call(s, 'GET', '/api/v1/users/me', { as: created.body.token }), 401, 'UNAUTHORIZED');
    const after = await call(s, 'GET', '/api/v1/tokens', { as: alice });
    assert.ok(
      after.body.tokens.some((t: { id: string }) => t.id === created.body.id),
      'revoked tokens stay listed',
    );
    assertError(await call(s, 'DELETE', '/api/v1/tokens/garbage', { as: alice }), 404, 'NOT_FOUND');
  });

  test('admin: users by display name, role changes are manual, unknown ids and bad roles refused', async () => {
    const target = await s.store.users.create({ email: 'promote-me@example.test', displayName: 'Promote Me' });
    const r = await call(s, 'PUT', `/api/v1/admin/users/${target.id}/role`, { as: admin, body: { role: 'admin' } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.role, 'admin');
    assert.equal(r.body.role_source, 'manual');
    assert.equal((await s.store.users.findById(target.id))?.role, 'admin');
    for (const role of ['root', '', 'ADMIN'])
      assertError(await call(s, 'PUT', `/api/v1/admin/users/${target.id}/role`, { as: admin, body: { role } }), 400, 'BAD_REQUEST', role);
    assertError(await call(s, 'PUT', `/api/v1/admin/users/${target.id}/role`, { as: admin, body: {} }), 400, 'BAD_REQUEST');
    assertError(
      await call(s, 'PUT', '/api/v1/admin/users/7b0e6f4c-0000-4000-8000-000000000000/role', { as: admin, body: { role: 'user' } }),
      404,
      'NOT_FOUND',
    );
    assertError(await call(s, 'PUT', '/api/v1/admin/users/nope/role', { as: admin, body: { role: 'user' } }), 404, 'NOT_FOUND');
    const forbidden = await call(s, 'PUT', `/api/v1/admin/users/${alice.user.id}/role`, { as: alice, body: { role: 'admin' } });
    assertError(forbidden, 403, 'FORBIDDEN');
    assert.equal(forbidden.body.error, 'forbidden');
    assert.equal((await s.store.users.findById(alice.user.id))?.role, 'user', 'nobody promotes themselves');

    // A demoted admin loses admin routes on the very next request.
    await call(s, 'PUT', `/api/v1/admin/users/${target.id}/role`, { as: admin, body: { role: 'user' } });
    const { plaintext } = await s.store.tokens.create(target.id, 't');
    assertError(await call(s, 'GET', '/api/v1/admin/users', { as: plaintext }), 403, 'FORBIDDEN');
  });

  test('admin link-health lists exactly the broken report, without last_error', async () => {
    const broken = await createLink(s, alice, { slug: 'dead-end', url: 'https://dead.example/' });
    const fine = await createLink(s, alice, { slug: 'alive', url: 'https://alive.example/' });
    for (let i = 0; i < 4; i++)
      await s.store.health.record(broken.id, { kind: 'failure', status: null, error: 'connect ECONNREFUSED secret-detail' }, 3_600_000);
    await s.store.health.record(fine.id, { kind: 'success', status: 200 }, 3_600_000);
    const r = await call(s, 'GET', '/api/v1/admin/link-health', { as: admin });
    assert.equal(r.status, 200);
    assert.deepEqual(
      r.body.links.map((l: { slug: string }) => l.slug),
      ['dead-end'],
    );
    const row = r.body.links[0];
    assert.deepEqual(Object.keys(row).sort(), ['consecutive_failures', 'id', 'last_checked_at', 'last_status', 'owners', 'slug', 'url']);
    assert.equal(row.consecutive_failures, 4);
    assert.equal(row.last_status, null);
    assert.deepEqual(row.owners, [{ id: alice.user.id, email: alice.user.email, is_primary: true }]);
    assert.ok(!r.text.includes('secret-detail'));
  });

  test('config and keyword templates', async () => {
    const cfg = await get(`${s.url}/api/v1/config`, { host: 'go.example.com:8080' });
    assert.equal(cfg.status, 200);
    assert.deepEqual(JSON.parse(await cfg.text()), { short_keyword: 'go' });
    const withBadToken = await get(`${s.url}/api/v1/config`, { host: 'links.corp.test', authorization: 'Bearer nonsense' });
    assert.deepEqual(JSON.parse(await withBadToken.text()), { short_keyword: 'links' }, 'credentials are never inspected');

    await s.store.keywords.create({ keyword: 'zz', urlTemplate: 'https://z.test/{slug}' });
    await s.store.keywords.create({ keyword: 'gh', urlTemplate: 'https://github.com/{slug}' });
    const t = await call(s, 'GET', '/api/v1/keywords/templates', { as: bob });
    assert.deepEqual(t.body, [
      { keyword: 'gh', url_template: 'https://github.com/{slug}' },
      { keyword: 'zz', url_template: 'https://z.test/{slug}' },
    ]);
  });

  test('GET /links lists own and shared links for users and everything for admins', async () => {
    const dan = await actor(s, 'dan');
    const own = await createLink(s, dan, { slug: 'dan-own', visibility: 'private' });
    const shared = await createLink(s, alice, { slug: 'dan-shared', visibility: 'secure' });
    await addShare(s.store, shared.id, dan.user.id, alice.user.id);
    await createLink(s, alice, { slug: 'dan-not-mine' });
    const mine = await call(s, 'GET', '/api/v1/links?limit=200', { as: dan });
    assert.deepEqual(
      mine.body.links.map((l: { slug: string }) => l.slug),
      ['dan-own', 'dan-shared'],
    );
    assert.ok(mine.body.links.every((l: Record<string, unknown>) => 'health' in l));
    const all = await call(s, 'GET', '/api/v1/links?limit=200', { as: admin });
    assert.ok(all.body.links.some((l: { slug: string }) => l.slug === 'dan-not-mine'));
    assert.ok(all.body.links.some((l: { id: string }) => l.id === own.id));
  });
});
