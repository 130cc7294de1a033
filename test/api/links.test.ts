import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { get, sessionCookie, type TestServer } from '../helpers/server.js';
import { actor, assertError, call, createLink, snapshot, startApi, type Actor } from './support.js';
import { addOwner, addShare } from '../helpers/links.js';

const LINK_KEYS = [
  'aliases',
  'archived_at',
  'created_at',
  'default_url',
  'description',
  'expires_at',
  'forward_path_and_query',
  'health',
  'health_checks_disabled',
  'id',
  'lifecycle_state',
  'owners',
  'slug',
  'tags',
  'title',
  'updated_at',
  'url',
  'visibility',
];
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
const inDays = (d: number) => new Date(Date.now() + d * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');

describe('REST links: create, read, update, delete', () => {
  let s: TestServer;
  let alice: Actor;
  let bob: Actor;
  let carol: Actor;
  before(async () => {
    s = await startApi();
    alice = await actor(s, 'alice');
    bob = await actor(s, 'bob');
    carol = await actor(s, 'carol');
  });
  after(async () => s.stop());

  test('POST creates the link with the caller as primary owner and answers the full resource', async () => {
    const r = await call(s, 'POST', '/api/v1/links', {
      as: alice,
      body: {
        slug: 'jira',
        url: 'https://jira.example.com/browse/$ticket',
        title: 'Jira',
        description: 'Tickets',
        visibility: 'secure',
        tags: ['Engineering', 'tools', 'engineering'],
        expires_at: '2099-01-01T00:00:00Z',
      },
    });
    assert.equal(r.status, 201, r.text);
    assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(Object.keys(r.body).sort(), LINK_KEYS);
    assert.equal(r.body.url, 'https://jira.example.com/browse/$ticket', 'templates are returned raw');
    assert.equal(r.body.visibility, 'secure');
    assert.equal(r.body.expires_at.slice(0, 19), '2099-01-01T00:00:00');
    assert.equal(r.body.archived_at, null);
    assert.equal(r.body.lifecycle_state, 'active');
    assert.deepEqual(r.body.health, { status: 'unchecked', last_checked_at: null, last_status: null });
    assert.equal(r.body.health_checks_disabled, false);
    assert.deepEqual(r.body.tags, ['Engineering', 'tools'], 'duplicates collapse, first spelling wins, by name');
    assert.deepEqual(r.body.owners, [{ id: alice.user.id, email: alice.user.email, is_primary: true }]);
    assert.match(r.body.created_at, RFC3339);
    assert.match(r.body.updated_at, RFC3339);

    const got = await call(s, 'GET', `/api/v1/links/${r.body.id}`, { as: alice });
    assert.equal(got.status, 200);
    assert.deepEqual(got.body, r.body);
  });

  test('POST refuses bad input with the documented code, in the documented order, writing nothing', async () => {
    const long = (n: number) => 'x'.repeat(n);
    const cases: Array<[string, unknown, string, RegExp?]> = [
      ['no body', undefined, 'BAD_REQUEST'],
      ['empty object', {}, 'BAD_REQUEST', /^slug is required$/],
      ['empty slug', { slug: '', url: 'https://e.test' }, 'BAD_REQUEST', /^slug is required$/],
      ['no url', { slug: 'fine' }, 'BAD_REQUEST', /^url is required$/],
      ['slug is checked before url', { slug: 'Bad', url: 'javascript:alert(1)' }, 'INVALID_SLUG'],
      [
        'reserved slug',
        { slug: 'links', url: 'https://e.test' },
        'INVALID_SLUG',
        /reserved.*admin, api, auth, dashboard, healthz, links, mcp, metrics, notifications, readyz, s, static, u/,
      ],
      ['long slug', { slug: long(129), url: 'https://e.test' }, 'INVALID_SLUG'],
      ['bad scheme', { slug: 'ok-1', url: 'ftp://e.test' }, 'INVALID_URL'],
      ['no host', { slug: 'ok-1', url: 'https://' }, 'INVALID_URL'],
      ['repeated variable', { slug: 'ok-1', url: 'https://e.test/$a/$a' }, 'INVALID_URL'],
      ['long title', { slug: 'ok-1', url: 'https://e.test', title: long(201) }, 'INVALID_FIELD_LENGTH'],
      ['long description', { slug: 'ok-1', url: 'https://e.test', description: long(2001) }, 'INVALID_FIELD_LENGTH'],
      ['21 tags', { slug: 'ok-1', url: 'https://e.test', tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, 'TOO_MANY_TAGS'],
      ['script tag name', { slug: 'ok-1', url: 'https://e.test', tags: ["x');fetch('/evil')//"] }, 'INVALID_TAG_NAME'],
      [
        'tags are checked before visibility',
        { slug: 'ok-1', url: 'https://e.test', tags: ['<b>'], visibility: 'hidden' },
        'INVALID_TAG_NAME',
      ],
      ['bad visibility', { slug: 'ok-1', url: 'https://e.test', visibility: 'hidden' }, 'INVALID_VISIBILITY'],
      ['past expiry', { slug: 'ok-1', url: 'https://e.test', expires_at: '2001-01-01T00:00:00Z' }, 'INVALID_EXPIRES_AT'],
      ['expiry now-ish', { slug: 'ok-1', url: 'https://e.test', expires_at: inDays(0) }, 'INVALID_EXPIRES_AT'],
      ['not a timestamp', { slug: 'ok-1', url: 'https://e.test', expires_at: 'tomorrow' }, 'BAD_REQUEST', /^invalid request body/],
      [
        'timestamp without offset',
        { slug: 'ok-1', url: 'https://e.test', expires_at: '2099-01-01T00:00:00' },
        'BAD_REQUEST',
        /^invalid request body/,
      ],
      [
        'impossible date',
        { slug: 'ok-1', url: 'https://e.test', expires_at: '2099-02-30T00:00:00Z' },
        'BAD_REQUEST',
        /^invalid request body/,
      ],
      ['number for url', { slug: 'ok-1', url: 5 }, 'BAD_REQUEST', /^invalid request body: url/],
      ['null title', { slug: 'ok-1', url: 'https://e.test', title: null }, 'BAD_REQUEST', /^invalid request body: title/],
      ['string for tags', { slug: 'ok-1', url: 'https://e.test', tags: 'a,b' }, 'BAD_REQUEST', /^invalid request body: tags/],
      ['number in tags', { slug: 'ok-1', url: 'https://e.test', tags: ['a', 7] }, 'BAD_REQUEST', /^invalid request body: tags\[1\]/],
      ['string for a boolean', { slug: 'ok-1', url: 'https://e.test', health_checks_disabled: 'true' }, 'BAD_REQUEST'],
      ['array body', [], 'BAD_REQUEST', /^invalid request body/],
      ['malformed JSON', '{"slug":', 'BAD_REQUEST', /^invalid request body/],
    ];
    const before = await snapshot(s);
    for (const [why, body, code, message] of cases) {
      const r = await call(s, 'POST', '/api/v1/links', { as: alice, body, headers: body === undefined ? {} : undefined });
      assertError(r, 400, code, why);
      if (message) assert.match(r.body.error, message, why);
    }
    assert.equal(await snapshot(s), before, 'no rejected request wrote anything');
  });

  test('200 multi-byte characters make a valid title', async () => {
    const link = await createLink(s, alice, { slug: 'emoji-title', title: '🎉'.repeat(200) });
    assert.equal([...(link.title as string)].length, 200);
  });

  test('a taken slug is 409 SLUG_CONFLICT, also when the holder is archived', async () => {
    const first = await createLink(s, alice, { slug: 'taken' });
    assertError(await call(s, 'POST', '/api/v1/links', { as: bob, body: { slug: 'taken', url: 'https://b.test' } }), 409, 'SLUG_CONFLICT');
    assert.equal((await call(s, 'PUT', `/api/v1/links/${first.id}`, { as: alice, body: { archived: true } })).status, 200);
    assertError(await call(s, 'POST', '/api/v1/links', { as: bob, body: { slug: 'taken', url: 'https://b.test' } }), 409, 'SLUG_CONFLICT');
  });

  test('unknown fields are ignored: no owner, id, timestamps or archive state can be smuggled in', async () => {
    const r = await call(s, 'POST', '/api/v1/links', {
      as: alice,
      body: {
        slug: 'smuggle',
        url: 'https://e.test',
        archived: true,
        archived_at: '2020-01-01T00:00:00Z',
        id: '00000000-0000-4000-8000-000000000000',
        owners: [{ id: bob.user.id }],
        owner_id: bob.user.id,
        created_at: '2001-01-01T00:00:00Z',
      },
    });
    assert.equal(r.status, 201, r.text);
    assert.notEqual(r.body.id, '00000000-0000-4000-8000-000000000000');
    assert.equal(r.body.archived_at, null);
    assert.equal(r.body.lifecycle_state, 'active');
    assert.deepEqual(
      r.body.owners.map((o: { id: string }) => o.id),
      [alice.user.id],
    );
    assert.notEqual(r.body.created_at.slice(0, 4), '2001');
  });

  test('health_checks_disabled on create opts the new link out', async () => {
    const link = await createLink(s, alice, { slug: 'opted-out', health_checks_disabled: true });
    assert.equal(link.health_checks_disabled, true);
    const row = await s.store.links.get(link.id);
    assert.equal(row?.healthChecksDisabled, true);
  });

  test('PUT is a full update: omitted title, description and tags are cleared; visibility and expiry are kept; slug is ignored', async () => {
    const link = await createLink(s, alice, {
      slug: 'full-update',
      title: 'T',
      description: 'D',
      tags: ['a', 'b'],
      visibility: 'private',
      expires_at: '2098-05-05T05:05:05Z',
    });
    const r = await call(s, 'PUT', `/api/v1/links/${link.id}`, { as: alice, body: { url: 'https://changed.test', slug: 'renamed' } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.slug, 'full-update');
    assert.equal(r.body.url, 'https://changed.test');
    assert.equal(r.body.title, '');
    assert.equal(r.body.description, '');
    assert.deepEqual(r.body.tags, []);
    assert.equal(r.body.visibility, 'private');
    assert.equal(r.body.expires_at.slice(0, 19), '2098-05-05T05:05:05');
    assert.ok(Date.parse(r.body.updated_at) >= Date.parse(link.updated_at as string));

    const empty = await call(s, 'PUT', `/api/v1/links/${link.id}`, {
      as: alice,
      body: { url: 'https://changed.test', visibility: '', title: 'New', tags: ['c'] },
    });
    assert.equal(empty.body.visibility, 'private', 'empty visibility keeps the stored value');
    assert.deepEqual(empty.body.tags, ['c']);

    const cleared = await call(s, 'PUT', `/api/v1/links/${link.id}`, {
      as: alice,
      body: { url: 'https://changed.test', expires_at: null, visibility: 'public' },
    });
    assert.equal(cleared.body.expires_at, null);
    assert.equal(cleared.body.visibility, 'public');
    assertError(await call(s, 'PUT', `/api/v1/links/${link.id}`, { as: alice, body: {} }), 400, 'BAD_REQUEST', 'empty body');
    assert.equal((await call(s, 'PUT', `/api/v1/links/${link.id}`, { as: alice, body: {} })).body.error, 'url is required');
  });

  test('PUT with only archived or health_checks_disabled toggles just that', async () => {
    const link = await createLink(s, alice, { slug: 'toggles', title: 'Keep me', tags: ['keep'] });
    const archived = await call(s, 'PUT', `/api/v1/links/${link.id}`, { as: alice, body: { archived: true } });
    assert.equal(archived.status, 200, archived.text);
    assert.equal(archived.body.lifecycle_state, 'archived');
    assert.match(archived.body.archived_at, RFC3339);
    assert.equal(archived.body.title, 'Keep me');
    assert.deepEqual(archived.body.tags, ['keep']);
    const again = await call(s, 'PUT', `/api/v1/links/${link.id}`, { as: alice, body: { archived: true, slug: 'ignored' } });
    assert.equal(
      again.body.archived_at,
      archived.body.archived_at,
      're-archiving keeps the first time; slug does not make it a full update',
    );
    const active = await call(s, 'PUT', `/api/v1/links/${link.id}`, { as: alice, body: { archived: false } });
    assert.equal(active.body.lifecycle_state, 'active');
    assert.equal(active.body.archived_at, null);
    assert.equal(active.body.title, 'Keep me');
    const optOut = await call(s, 'PUT', `/api/v1/links/${link.id}`, { as: alice, body: { health_checks_disabled: true } });
    assert.equal(optOut.body.health_checks_disabled, true);
    assert.deepEqual(optOut.body.tags, ['keep']);
  });

  test('aliases and forwarding: set on create, changed alone by PUT, kept by a full update that omits them, 409 ALIAS_CONFLICT on a taken name', async () => {
    const r = await call(s, 'POST', '/api/v1/links', {
      as: alice,
      body: { slug: 'handbook', url: 'https://handbook.test/', aliases: ['hb', 'guide'], forward_path_and_query: true },
    });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.body.aliases, ['guide', 'hb'], 'sorted');
    assert.equal(r.body.forward_path_and_query, true);
    const id = r.body.id as string;

    const taken = await call(s, 'POST', '/api/v1/links', { as: bob, body: { slug: 'hb', url: 'https://other.test/' } });
    assertError(taken, 409, 'SLUG_CONFLICT', 'a slug that is another link’s alias');
    const before = await snapshot(s);
    const clash = await call(s, 'POST', '/api/v1/links', { as: bob, body: { slug: 'bobs', url: 'https://b.test/', aliases: ['guide'] } });
    assertError(clash, 409, 'ALIAS_CONFLICT', 'an alias that is another link’s alias');
    assert.equal(clash.body.error, 'alias is already taken: "guide"');
    assertError(
      await call(s, 'POST', '/api/v1/links', { as: bob, body: { slug: 'bobs', url: 'https://b.test/', aliases: ['handbook'] } }),
      409,
      'ALIAS_CONFLICT',
      'an alias that is another link’s slug',
    );
    assertError(
      await call(s, 'POST', '/api/v1/links', { as: bob, body: { slug: 'bobs', url: 'https://b.test/', aliases: ['Bad Name'] } }),
      400,
      'INVALID_ALIAS',
    );
    assertError(
      await call(s, 'POST', '/api/v1/links', { as: bob, body: { slug: 'bobs', url: 'https://b.test/', aliases: 'hb' } }),
      400,
      'BAD_REQUEST',
      'aliases must be an array',
    );
    assert.deepEqual(await snapshot(s), before, 'refusals wrote nothing');

    const onlyAliases = await call(s, 'PUT', `/api/v1/links/${id}`, { as: alice, body: { aliases: ['hb'] } });
    assert.equal(onlyAliases.status, 200, onlyAliases.text);
    assert.deepEqual(onlyAliases.body.aliases, ['hb']);
    assert.equal(onlyAliases.body.url, 'https://handbook.test/', 'aliases alone change nothing else');
    const full = await call(s, 'PUT', `/api/v1/links/${id}`, { as: alice, body: { url: 'https://handbook.test/v2' } });
    assert.deepEqual(full.body.aliases, ['hb'], 'a full update that omits aliases keeps them');
    assert.equal(full.body.forward_path_and_query, true, 'and keeps forwarding');
    const off = await call(s, 'PUT', `/api/v1/links/${id}`, { as: alice, body: { forward_path_and_query: false } });
    assert.equal(off.body.forward_path_and_query, false);
    const freed = await call(s, 'POST', '/api/v1/links', { as: bob, body: { slug: 'bobs', url: 'https://b.test/', aliases: ['guide'] } });
    assert.equal(freed.status, 201, 'a removed alias is free for another link');
    assertError(
      await call(s, 'PUT', `/api/v1/links/${id}`, { as: alice, body: { aliases: ['hb', 'guide'] } }),
      409,
      'ALIAS_CONFLICT',
      'PUT answers 409 too',
    );
  });

  test('any other field makes it a full update, so archive plus a past expiry is refused whole', async () => {
    const link = await createLink(s, alice, { slug: 'not-half', title: 'Stay' });
    const before = await snapshot(s);
    const r = await call(s, 'PUT', `/api/v1/links/${link.id}`, { as: alice, body: { archived: true, expires_at: '2000-01-01T00:00:00Z' } });
    assertError(r, 400, 'BAD_REQUEST');
    assert.equal(r.body.error, 'url is required');
    assert.equal(await snapshot(s), before);
    assert.equal((await call(s, 'GET', `/api/v1/links/${link.id}`, { as: alice })).body.lifecycle_state, 'active');
  });

  test('an expired link stays editable when its stored expiry is sent back unchanged; another past value is refused', async () => {
    const link = await createLink(s, alice, { slug: 'was-valid', expires_at: inDays(1) });
    const past = Date.UTC(2020, 0, 1, 12, 0, 0);
    await s.store.db.kysely.updateTable('links').set({ expires_at: past }).where('id', '=', link.id).execute();
    const got = await call(s, 'GET', `/api/v1/links/${link.id}`, { as: alice });
    assert.equal(got.body.lifecycle_state, 'expired');
    assert.equal(got.body.expires_at, '2020-01-01T12:00:00.000Z');
    const same = await call(s, 'PUT', `/api/v1/links/${link.id}`, {
      as: alice,
      body: { url: 'https://e.test/new', expires_at: '2020-01-01T12:00:00Z' },
    });
    assert.equal(same.status, 200, same.text);
    assert.equal(same.body.url, 'https://e.test/new');
    assert.equal(same.body.lifecycle_state, 'expired');
    assertError(
      await call(s, 'PUT', `/api/v1/links/${link.id}`, { as: alice, body: { url: 'https://e.test', expires_at: '2020-01-02T12:00:00Z' } }),
      400,
      'INVALID_EXPIRES_AT',
    );
  });

  test('sub-second expiry is stored at whole seconds and a read value round-trips', async () => {
    const link = await createLink(s, alice, { slug: 'subsecond' });
    const wanted = `${inDays(3).slice(0, 19)}.987+02:00`;
    const r = await call(s, 'PUT', `/api/v1/links/${link.id}`, { as: alice, body: { url: 'https://e.test', expires_at: wanted } });
    assert.equal(r.status, 200, r.text);
    assert.equal(Date.parse(r.body.expires_at) % 1000, 0);
    assert.equal(Date.parse(r.body.expires_at), Math.floor(Date.parse(wanted) / 1000) * 1000);
    const again = await call(s, 'PUT', `/api/v1/links/${link.id}`, {
      as: alice,
      body: { url: 'https://e.test', expires_at: r.body.expires_at },
    });
    assert.equal(again.status, 200);
    assert.equal(again.body.expires_at, r.body.expires_at);
  });

  test('a share recipient reads but cannot update, toggle or delete', async () => {
    const link = await createLink(s, alice, { slug: 'shared-ro', expires_at: inDays(10), visibility: 'secure' });
    await addShare(s.store, link.id, bob.user.id, alice.user.id);
    const before = await snapshot(s);
    const read = await call(s, 'GET', `/api/v1/links/${link.id}`, { as: bob });
    assert.equal(read.status, 200);
    assert.ok('health' in read.body, 'share recipients hold CanView and see health');
    assertError(
      await call(s, 'PUT', `/api/v1/links/${link.id}`, { as: bob, body: { url: 'https://e.test', expires_at: null } }),
      403,
      'FORBIDDEN',
    );
    assertError(await call(s, 'PUT', `/api/v1/links/${link.id}`, { as: bob, body: { health_checks_disabled: true } }), 403, 'FORBIDDEN');
    assertError(await call(s, 'PUT', `/api/v1/links/${link.id}`, { as: bob, body: { archived: true } }), 403, 'FORBIDDEN');
    assertError(await call(s, 'DELETE', `/api/v1/links/${link.id}`, { as: bob }), 403, 'FORBIDDEN');
    assert.equal(await snapshot(s), before);
  });

  test('checks run in the order authenticate → exists → capability → validate', async () => {
    const link = await createLink(s, alice, { slug: 'order' });
    const bad = { url: 5 };
    const unknown = '7b0e6f4c-0000-4000-8000-000000000000';
    assertError(await call(s, 'PUT', `/api/v1/links/${unknown}`, { as: null, body: bad }), 401, 'UNAUTHORIZED', 'no token first');
    assertError(await call(s, 'PUT', `/api/v1/links/${unknown}`, { as: carol, body: bad }), 404, 'NOT_FOUND', 'then existence');
    assertError(await call(s, 'PUT', `/api/v1/links/${link.id}`, { as: carol, body: bad }), 403, 'FORBIDDEN', 'then capability');
    assertError(
      await call(s, 'PUT', `/api/v1/links/${link.id}`, { as: carol, body: '{not json' }),
      403,
      'FORBIDDEN',
      'even unparseable bodies',
    );
    assertError(await call(s, 'PUT', `/api/v1/links/${link.id}`, { as: alice, body: bad }), 400, 'BAD_REQUEST', 'then validation');
  });

  test('DELETE answers 204 with no body, cascades, and frees the slug', async () => {
    const link = await createLink(s, alice, { slug: 'doomed', tags: ['gone'] });
    await addShare(s.store, link.id, bob.user.id, alice.user.id);
    await addOwner(s.store, link.id, carol.user.id);
    const r = await call(s, 'DELETE', `/api/v1/links/${link.id}`, { as: carol });
    assert.equal(r.status, 204);
    assert.equal(r.text, '');
    assertError(await call(s, 'GET', `/api/v1/links/${link.id}`, { as: alice }), 404, 'NOT_FOUND');
    const k = s.store.db.kysely;
    for (const table of ['link_owners', 'link_tags', 'link_shares'] as const) {
      assert.equal((await k.selectFrom(table).select('link_id').where('link_id', '=', link.id).execute()).length, 0, table);
    }
    await createLink(s, bob, { slug: 'doomed' });
  });

  test('GET /links?url= lists own and public matches newest first, with health only where the caller is capable', async () => {
    const url = 'https://same.example/page';
    const mine = await createLink(s, carol, { slug: 'url-mine', url, visibility: 'private' });
    await new Promise((r) => setTimeout(r, 5)); // newest first needs distinct creation times
    const theirsPublic = await createLink(s, alice, { slug: 'url-public', url });
    await createLink(s, alice, { slug: 'url-private', url, visibility: 'private' });
    await createLink(s, alice, { slug: 'url-other', url: `${url}?x` });
    const r = await call(s, 'GET', `/api/v1/links?url=${encodeURIComponent(url)}`, { as: carol });
    assert.equal(r.status, 200);
    assert.equal(r.body.next_cursor, null);
    assert.deepEqual(
      r.body.links.map((l: { slug: string }) => l.slug),
      ['url-public', 'url-mine'],
    );
    const pub = r.body.links.find((l: { id: string }) => l.id === theirsPublic.id);
    assert.ok(!('health' in pub) && !('health_checks_disabled' in pub), 'a stranger gets no health keys');
    for (const k of ['expires_at', 'archived_at', 'lifecycle_state']) assert.ok(k in pub, `${k} is always present`);
    const own = r.body.links.find((l: { id: string }) => l.id === mine.id);
    assert.ok('health' in own && 'health_checks_disabled' in own);
  });

  test('broken health surfaces to capable callers and is frozen to unchecked once archived or opted out', async () => {
    const link = await createLink(s, alice, { slug: 'flaky-dest', url: 'https://flaky.example/' });
    for (let i = 0; i < 3; i++) await s.store.health.record(link.id, { kind: 'failure', status: 502, error: null }, 3_600_000);
    await addShare(s.store, link.id, bob.user.id, alice.user.id);
    for (const who of [alice, bob]) {
      const r = await call(s, 'GET', `/api/v1/links/${link.id}`, { as: who });
      assert.equal(r.body.health.status, 'broken');
      assert.equal(r.body.health.last_status, 502);
      assert.match(r.body.health.last_checked_at, RFC3339);
    }
    const opted = await call(s, 'PUT', `/api/v1/links/${link.id}`, { as: alice, body: { health_checks_disabled: true } });
    assert.deepEqual(opted.body.health, { status: 'unchecked', last_checked_at: null, last_status: null });
    await call(s, 'PUT', `/api/v1/links/${link.id}`, { as: alice, body: { health_checks_disabled: false } });
    const archived = await call(s, 'PUT', `/api/v1/links/${link.id}`, { as: alice, body: { archived: true } });
    assert.deepEqual(archived.body.health, { status: 'unchecked', last_checked_at: null, last_status: null });
  });

  test('GET /links/suggest ranks prefix, substring, then title matches, and hides what the caller may not discover', async () => {
    const dave = await actor(s, 'dave');
    await createLink(s, dave, { slug: 'jirafe' });
    await createLink(s, dave, { slug: 'fiji-trip' });
    await createLink(s, dave, { slug: 'dox', title: 'Jira runbook' });
    await createLink(s, alice, { slug: 'jingle', visibility: 'private' });
    const archived = await createLink(s, dave, { slug: 'jinx' });
    await call(s, 'PUT', `/api/v1/links/${archived.id}`, { as: dave, body: { archived: true } });
    const r = await call(s, 'GET', '/api/v1/links/suggest?q=JI&limit=10', { as: dave });
    assert.equal(r.status, 200, r.text);
    const slugs = r.body.suggestions.map((x: { slug: string }) => x.slug);
    assert.ok(!slugs.includes('jingle'), 'another user’s private link');
    assert.ok(!slugs.includes('jinx'), 'archived');
    assert.deepEqual(
      slugs.filter((x: string) => ['jirafe', 'fiji-trip', 'dox'].includes(x)),
      ['jirafe', 'fiji-trip', 'dox'],
    );
    assert.ok(slugs.indexOf('jirafe') < slugs.indexOf('fiji-trip'));
    assert.deepEqual((await call(s, 'GET', '/api/v1/links/suggest?q=', { as: dave })).body, { suggestions: [] });
    assert.ok((await call(s, 'GET', '/api/v1/links/suggest?q=j&limit=50', { as: dave })).body.suggestions.length <= 10);
    assert.ok((await call(s, 'GET', '/api/v1/links/suggest?q=j', { as: dave })).body.suggestions.length <= 5);
    for (const limit of ['abc', '0', '-1', '1.5', '']) {
      const bad = await call(s, 'GET', `/api/v1/links/suggest?q=j&limit=${limit}`, { as: dave });
      assertError(bad, 400, 'BAD_REQUEST', `limit=${limit}`);
      assert.equal(bad.body.error, 'limit must be a positive integer');
    }
    const cookie = await sessionCookie(s.store, dave.user);
    assertError(
      await call(s, 'GET', '/api/v1/links/suggest?q=j', { headers: { cookie } }),
      401,
      'UNAUTHORIZED',
      'a session is no credential here',
    );
  });
});

describe('REST links: a default destination (docs/links.md#default-destination)', () => {
  let s: TestServer;
  let dee: Actor;
  before(async () => {
    s = await startApi();
    dee = await actor(s, 'dee');
  });
  after(async () => s.stop());

  const put = (id: string, body: unknown) => call(s, 'PUT', `/api/v1/links/${id}`, { as: dee, body });

  test('create, get and list carry default_url; a visit with no value follows it', async () => {
    const r = await call(s, 'POST', '/api/v1/links', {
      as: dee,
      body: { slug: 'drive', url: 'https://drive.test/search?q=$q', default_url: ' https://drive.test/ ' },
    });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.default_url, 'https://drive.test/', 'trimmed as url is');
    assert.equal((await call(s, 'GET', `/api/v1/links/${r.body.id}`, { as: dee })).body.default_url, 'https://drive.test/');
    const list = await call(s, 'GET', '/api/v1/links', { as: dee });
    assert.equal(list.body.links.find((l: { slug: string }) => l.slug === 'drive').default_url, 'https://drive.test/');
    const plain = await createLink(s, dee, { slug: 'no-default', url: 'https://nd.test/$x' });
    assert.equal(plain.default_url, null, 'none: null');
    const visit = await get(`${s.url}/drive`);
    assert.equal(visit.status, 302);
    assert.equal(visit.headers.get('location'), 'https://drive.test/');
  });

  test('refusals are 400 in the error shape and write nothing', async () => {
    const before = await snapshot(s);
    const refused = async (body: Record<string, unknown>, code: string, message: string | RegExp) => {
      const r = await call(s, 'POST', '/api/v1/links', { as: dee, body: { slug: 'refused', ...body } });
      assertError(r, 400, code, JSON.stringify(body));
      if (typeof message === 'string') assert.ok(r.body.error.includes(message), r.text);
      else assert.match(r.body.error, message);
    };
    await refused(
      { url: 'https://plain.test/', default_url: 'https://d.test/' },
      'INVALID_URL',
      'default_url is only for a url with $placeholders',
    );
    await refused({ url: 'https://t.test/$x', default_url: 'https://d.test/$x' }, 'INVALID_URL', 'default_url must be one destination');
    await refused(
      { url: 'https://t.test/$x', default_url: 'ftp://d.test/' },
      'INVALID_URL',
      'default_url must start with http:// or https://',
    );
    await refused({ url: 'https://t.test/$x', default_url: 'https://d.test/\u0000' }, 'BAD_REQUEST', /NUL/);
    assert.equal(await snapshot(s), before, 'nothing written');
  });

  test('update: alone it changes only itself; null clears it; leaving url without placeholders is refused while it stays', async () => {
    const link = await createLink(s, dee, { slug: 'repo', url: 'https://git.test/$org/$repo', title: 'Repos' });
    const set = await put(link.id, { default_url: 'https://git.test/' });
    assert.equal(set.status, 200, set.text);
    assert.equal(set.body.default_url, 'https://git.test/');
    assert.equal(set.body.title, 'Repos', 'a body of default_url alone changes only it');
    const kept = await put(link.id, { url: 'https://git.test/$org/$repo?tab=1', title: 'Repos' });
    assert.equal(kept.body.default_url, 'https://git.test/', 'a full update without it keeps it');

    const before = await snapshot(s);
    assertError(await put(link.id, { url: 'https://git.test/', title: 'Repos' }), 400, 'INVALID_URL', 'placeholders gone, default kept');
    assert.equal(await snapshot(s), before, 'nothing written');

    const both = await put(link.id, { url: 'https://git.test/', title: 'Repos', default_url: null });
    assert.equal(both.status, 200, both.text);
    assert.equal(both.body.default_url, null);
    assert.equal(both.body.url, 'https://git.test/');
  });

  test('history records a change of it with before and after, and restore brings it back', async () => {
    const link = await createLink(s, dee, { slug: 'wiki-search', url: 'https://wiki.test/?q=$q', default_url: 'https://wiki.test/' });
    assert.equal((await put(link.id, { default_url: 'https://wiki.test/home' })).status, 200);
    assert.equal((await put(link.id, { default_url: null })).status, 200);
    const events = (await call(s, 'GET', `/api/v1/links/${link.id}/history`, { as: dee })).body.events;
    assert.deepEqual(events[0].changes, { default_url: { from: 'https://wiki.test/home', to: null } });
    assert.deepEqual(events[1].changes, { default_url: { from: 'https://wiki.test/', to: 'https://wiki.test/home' } });
    assert.deepEqual(events[2].changes.default_url, { from: null, to: 'https://wiki.test/' });
    const r = await call(s, 'POST', `/api/v1/links/${link.id}/history/${events[1].id}/restore`, { as: dee });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.default_url, 'https://wiki.test/home');
    const visit = await get(`${s.url}/wiki-search`);
    assert.equal(visit.headers.get('location'), 'https://wiki.test/home');
  });
});
