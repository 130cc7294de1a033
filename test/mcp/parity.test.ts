import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { DbDriver } from '../../src/config.js';
import { actor, call, startApi, type Actor } from '../api/support.js';
import type { TestServer } from '../helpers/server.js';
import { mcpClient, ok, tool } from './support.js';

/**
 * REST and MCP side by side
 * (docs/agents.md#rest-parity, docs/lifecycle.md#lifecycle-over-rest-and-mcp): the same operation through plain HTTP and through the SDK client must
 * give the same values and the same refusals, on every database. The only
 * differences allowed are the documented ones: MCP leaves out null and empty
 * members other than the lifecycle times (always sent, `null` when unset),
 * adds `short_url`, `version` (REST's ETag) and (for managers) `shared_with`, and uses its lowercase
 * error codes.
 */

const DRIVERS: Array<[DbDriver, string | undefined]> = [
  ['sqlite3', undefined],
  ['postgres', 'JOE_TEST_PG_DSN'],
  ['mysql', 'JOE_TEST_MYSQL_DSN'],
];

/** REST status → the MCP code of the same refusal. */
const REFUSAL: Record<number, string> = { 403: 'forbidden', 404: 'not_found', 409: 'duplicate_slug' };

const inDays = (d: number) => new Date(Date.now() + d * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');

/** Members MCP sends even when null (docs/agents.md#mcp-tools). */
const ALWAYS_SENT = ['expires_at', 'archived_at'];

/** A REST link resource in MCP's presentation: nulls and empties left out (but the lifecycle times), `short_url` added. */
function asMcp(rest: Record<string, unknown>, origin: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(rest)) {
    if (ALWAYS_SENT.includes(k)) {
      out[k] = v;
      continue;
    }
    if (v === null || v === '' || (Array.isArray(v) && v.length === 0)) continue;
    out[k] = v;
  }
  out.short_url = `${origin}/${String(rest.slug)}`;
  return out;
}

const LIST_ITEM_KEYS = [
  'id',
  'slug',
  'short_url',
  'url',
  'title',
  'description',
  'visibility',
  'expires_at',
  'archived_at',
  'lifecycle_state',
  'health',
  'health_checks_disabled',
];

function pick(o: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => k in o).map((k) => [k, o[k]]));
}

function without(o: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));
}

/** Fields that identify a twin rather than describe it; MCP's `version` is REST's ETag header, not a body member. */
const IDENTITY = ['id', 'slug', 'short_url', 'created_at', 'updated_at', 'version'];

for (const [driver, env] of DRIVERS) {
  describe(`REST and MCP parity [${driver}]`, { skip: env !== undefined && !process.env[env] ? `${env} not set` : false }, () => {
    let s: TestServer;
    let alice: Actor;
    let bob: Actor;
    let carol: Actor;
    let admin: Actor;
    const clients = new Map<Actor, Client>();
    const mcp = (a: Actor) => clients.get(a)!;

    before(async () => {
      s = await startApi({ driver });
      alice = await actor(s, 'alice');
      bob = await actor(s, 'bob');
      carol = await actor(s, 'carol');
      admin = await actor(s, 'admin', { admin: true });
      for (const a of [alice, bob, carol, admin]) clients.set(a, await mcpClient(s, a));
    });
    after(async () => {
      for (const c of clients.values()) await c.close();
      await s.stop();
    });

    /** Reads one link both ways as `who` and asserts the two answers agree; returns the REST response. */
    async function readBoth(who: Actor, ref: string, id: string) {
      const rest = await call(s, 'GET', `/api/v1/links/${id}`, { as: who });
      const viaMcp = await tool(mcp(who), 'get_link', { link: ref });
      if (rest.status === 200) {
        assert.ok(viaMcp.ok, `${who.user.email} ${ref}: REST 200, MCP ${viaMcp.ok ? '' : viaMcp.code}`);
        const caps = await s.store.access.caps(rest.body.id, { id: who.user.id, isAdmin: who.user.role === 'admin' });
        const { shared_with: roster, version, ...rest_of } = viaMcp.payload;
        assert.deepEqual(rest_of, asMcp(rest.body, s.url), `${ref} as ${who.user.email}`);
        assert.equal(`"${version}"`, rest.headers.get('etag'), 'MCP’s version is REST’s ETag');
        if (caps.canManageShares) {
          const shares = await call(s, 'GET', `/api/v1/links/${id}/shares`, { as: who });
          const emails = shares.body.map((x: { email: string }) => x.email).sort();
          assert.deepEqual(roster ?? [], emails, 'the roster is REST’s share list');
        } else {
          assert.equal(roster, undefined, 'no roster without CanManageShares');
          const shares = await call(s, 'GET', `/api/v1/links/${id}/shares`, { as: who });
          assert.equal(shares.status, 403);
        }
      } else {
        assert.ok(!viaMcp.ok, `${ref}: REST ${rest.status}, MCP succeeded`);
        assert.equal(viaMcp.code, REFUSAL[rest.status], `${ref} as ${who.user.email}: REST ${rest.status}`);
      }
      return rest;
    }

    test('create: the same input gives the same link through both surfaces', async () => {
      const fields = {
        url: 'https://jira.example.com/browse/$ticket',
        title: 'Jira',
        description: 'Tickets <b>bold</b>',
        visibility: 'secure',
        tags: ['Engineering', 'tools', 'engineering'],
        expires_at: inDays(20),
        health_checks_disabled: true,
      };
      const rest = await call(s, 'POST', '/api/v1/links', { as: alice, body: { slug: 'twin-rest', ...fields } });
      assert.equal(rest.status, 201, rest.text);
      const viaMcp = await ok(mcp(alice), 'create_link', { slug: 'twin-mcp', ...fields });
      assert.deepEqual(without(viaMcp, IDENTITY), without(asMcp(rest.body, s.url), IDENTITY));
      // And each reads back identically through the other surface.
      await readBoth(alice, 'twin-rest', rest.body.id);
      await readBoth(alice, 'twin-mcp', viaMcp.id);
    });

    test('create: every refusal has the same message, REST code ↔ MCP code', async () => {
      await call(s, 'POST', '/api/v1/links', { as: alice, body: { slug: 'taken', url: 'https://e.test/' } });
      const cases: Array<Record<string, unknown>> = [
        { slug: '', url: 'https://e.test' },
        { slug: 'fine-1', url: '' },
        { slug: 'Bad Slug!', url: 'https://e.test' },
        { slug: 'api', url: 'https://e.test' },
        { slug: 'fine-1', url: 'mailto:x@y.z' },
        { slug: 'fine-1', url: 'https://e.test/$a/$a' },
        { slug: 'fine-1', url: 'https://e.test', title: 't'.repeat(201) },
        { slug: 'fine-1', url: 'https://e.test', description: 'd'.repeat(2001) },
        { slug: 'fine-1', url: 'https://e.test', tags: Array.from({ length: 21 }, (_, i) => `t${i}`) },
        { slug: 'fine-1', url: 'https://e.test', tags: ['<script>'] },
        { slug: 'fine-1', url: 'https://e.test', visibility: 'secret' },
        { slug: 'fine-1', url: 'https://e.test', expires_at: '2000-01-01T00:00:00Z' },
        { slug: 'taken', url: 'https://e.test/' },
      ];
      for (const body of cases) {
        const rest = await call(s, 'POST', '/api/v1/links', { as: alice, body: { visibility: 'private', ...body } });
        const viaMcp = await tool(mcp(alice), 'create_link', { visibility: 'private', ...body });
        assert.ok(!viaMcp.ok, JSON.stringify(body));
        const expected = rest.status === 409 ? 'duplicate_slug' : 'validation_failed';
        assert.equal(viaMcp.code, expected, `${JSON.stringify(body).slice(0, 80)}: REST ${rest.body.code}`);
        if (rest.status === 400) assert.equal(viaMcp.message, rest.body.error, `same message for ${rest.body.code}`);
      }
      assert.equal(await s.store.links.getBySlug('fine-1'), null);
    });

    test('get: every caller relation and unknown ids, field by field', async () => {
      const secure = await call(s, 'POST', '/api/v1/links', {
        as: alice,
        body: { slug: 'p-secure', url: 'https://e.test/s', visibility: 'secure', tags: ['x'] },
      });
      await call(s, 'POST', `/api/v1/links/${secure.body.id}/shares`, { as: alice, body: { email: bob.user.email } });
      const pub = await call(s, 'POST', '/api/v1/links', {
        as: alice,
        body: { slug: 'p-public', url: 'https://e.test/p', visibility: 'public' },
      });
      for (const who of [alice, bob, carol, admin]) {
        await readBoth(who, 'p-secure', secure.body.id);
        await readBoth(who, pub.body.id, pub.body.id);
      }
      const ghost = '00000000-0000-4000-8000-00000000dead';
      const r = await readBoth(alice, ghost, ghost);
      assert.equal(r.status, 404);
    });

    test('lifecycle and health: archived, expired, opted out and broken links read the same through both', async () => {
      const mk = async (slug: string, extra: Record<string, unknown> = {}) =>
        (await call(s, 'POST', '/api/v1/links', { as: alice, body: { slug, url: `https://e.test/${slug}`, ...extra } })).body as {
          id: string;
        };
      const archived = await mk('lc-archived');
      await call(s, 'PUT', `/api/v1/links/${archived.id}`, { as: alice, body: { archived: true } });
      const expired = await mk('lc-expired', { expires_at: inDays(3) });
      await s.store.db.kysely
        .updateTable('links')
        .set({ expires_at: Date.now() - 3_600_000 })
        .where('id', '=', expired.id)
        .execute();
      const broken = await mk('lc-broken', { visibility: 'secure' });
      await call(s, 'POST', `/api/v1/links/${broken.id}/shares`, { as: alice, body: { email: bob.user.email } });
      for (let i = 0; i < 3; i++) await s.store.health.record(broken.id, { kind: 'failure', status: 503, error: null }, 3_600_000);
      const optedOut = await mk('lc-opted-out', { health_checks_disabled: true });
      await s.store.health.record(optedOut.id, { kind: 'success', status: 200 }, 3_600_000);

      const states: Record<string, string> = {};
      for (const [slug, l] of [
        ['lc-archived', archived],
        ['lc-expired', expired],
        ['lc-broken', broken],
        ['lc-opted-out', optedOut],
      ] as const) {
        const r = await readBoth(alice, slug, l.id);
        states[slug] = `${r.body.lifecycle_state}/${r.body.health.status}`;
      }
      assert.deepEqual(states, {
        'lc-archived': 'archived/unchecked',
        'lc-expired': 'expired/unchecked',
        'lc-broken': 'active/broken',
        'lc-opted-out': 'active/unchecked',
      });
      const byRecipient = await readBoth(bob, 'lc-broken', broken.id);
      assert.equal(byRecipient.body.health.status, 'broken', 'a recipient sees the same health');
      assert.equal(typeof byRecipient.body.health.last_status, 'number');
    });

    test('lifecycle times: MCP always sends expires_at and archived_at, null when unset, REST’s strings when set', async () => {
      const erin = await actor(s, 'erin');
      clients.set(erin, await mcpClient(s, erin));
      const plain = await call(s, 'POST', '/api/v1/links', { as: erin, body: { slug: 'lt-plain', url: 'https://e.test/plain' } });
      assert.equal(plain.status, 201, plain.text);
      const got = await ok(mcp(erin), 'get_link', { link: 'lt-plain' });
      assert.ok('expires_at' in got && 'archived_at' in got, `get_link keys: ${Object.keys(got).join(',')}`);
      assert.equal(got.expires_at, null);
      assert.equal(got.archived_at, null);
      const listedPlain = (await ok(mcp(erin), 'list_links', { filter: 'mine' })).links.find(
        (l: { slug: string }) => l.slug === 'lt-plain',
      );
      assert.ok('expires_at' in listedPlain && 'archived_at' in listedPlain, `list_links keys: ${Object.keys(listedPlain).join(',')}`);
      assert.equal(listedPlain.expires_at, null);
      assert.equal(listedPlain.archived_at, null);

      // Milliseconds in the expiry, so a rounding or reformatting on either side would show.
      const expires = new Date(Date.now() + 9 * 86_400_000 + 123).toISOString();
      const dated = await call(s, 'POST', '/api/v1/links', {
        as: erin,
        body: { slug: 'lt-dated', url: 'https://e.test/dated', expires_at: expires },
      });
      assert.equal(dated.status, 201, dated.text);
      assert.equal((await call(s, 'PUT', `/api/v1/links/${dated.body.id}`, { as: erin, body: { archived: true } })).status, 200);
      const restOne = (await call(s, 'GET', `/api/v1/links/${dated.body.id}`, { as: erin })).body;
      const restRow = (await call(s, 'GET', '/api/v1/links', { as: erin })).body.links.find((l: { slug: string }) => l.slug === 'lt-dated');
      assert.match(restOne.expires_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
      assert.match(restOne.archived_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
      const mcpOne = await ok(mcp(erin), 'get_link', { link: 'lt-dated' });
      const mcpRow = (await ok(mcp(erin), 'list_links', { filter: 'mine' })).links.find((l: { slug: string }) => l.slug === 'lt-dated');
      for (const [label, viaMcp, rest] of [
        ['get_link', mcpOne, restOne],
        ['list_links', mcpRow, restRow],
      ] as const) {
        assert.equal(viaMcp.expires_at, rest.expires_at, `${label} expires_at`);
        assert.equal(viaMcp.archived_at, rest.archived_at, `${label} archived_at`);
        assert.equal(viaMcp.lifecycle_state, 'archived', label);
      }
    });

    test('update: full changes, toggles and refusals agree', async () => {
      const mkTwin = async (slug: string) =>
        (
          await call(s, 'POST', '/api/v1/links', {
            as: alice,
            body: { slug, url: 'https://e.test/old', title: 'Old', tags: ['old'], visibility: 'private', expires_at: inDays(5) },
          })
        ).body as { id: string };
      const r1 = await mkTwin('up-rest');
      const m1 = await mkTwin('up-mcp');
      await call(s, 'POST', `/api/v1/links/${r1.id}/shares`, { as: alice, body: { email: bob.user.email } });
      await call(s, 'POST', `/api/v1/links/${m1.id}/shares`, { as: alice, body: { email: bob.user.email } });
      const change = {
        url: 'https://e.test/new',
        title: 'New',
        description: 'Desc',
        tags: ['b', 'A', 'a'],
        visibility: 'public',
        expires_at: null,
        health_checks_disabled: true,
      };
      const rest = await call(s, 'PUT', `/api/v1/links/${r1.id}`, { as: alice, body: change });
      assert.equal(rest.status, 200, rest.text);
      const viaMcp = await ok(mcp(alice), 'update_link', { link: 'up-mcp', ...change });
      assert.deepEqual(without(viaMcp, [...IDENTITY, 'shared_with']), without(asMcp(rest.body, s.url), IDENTITY));

      const restArchive = await call(s, 'PUT', `/api/v1/links/${r1.id}`, { as: alice, body: { archived: true } });
      const mcpArchive = await ok(mcp(alice), 'update_link', { link: 'up-mcp', archived: true });
      assert.equal(mcpArchive.lifecycle_state, restArchive.body.lifecycle_state);
      assert.equal(mcpArchive.title, restArchive.body.title, 'toggles leave the content alone on both');
      assert.deepEqual(mcpArchive.tags, restArchive.body.tags);
      await readBoth(alice, 'up-mcp', m1.id);
      await readBoth(bob, 'up-rest', r1.id);

      for (const [who, body, args] of [
        [bob, { archived: false }, { archived: false }],
        [bob, { url: 'https://e.test/x', expires_at: null }, { expires_at: null }],
        [carol, { url: 'https://e.test/x' }, { url: 'https://e.test/x' }],
      ] as const) {
        const r = await call(s, 'PUT', `/api/v1/links/${r1.id}`, { as: who, body });
        const m = await tool(mcp(who), 'update_link', { link: 'up-mcp', ...args });
        assert.equal(r.status, 403);
        assert.ok(!m.ok && m.code === 'forbidden');
      }
      for (const bad of [
        { tags: ['ok', 'bad!tag'] },
        { visibility: 'nope' },
        { expires_at: '2001-02-03T04:05:06Z' },
        { title: 'x'.repeat(201) },
        { url: 'gopher://e.test' },
      ]) {
        const r = await call(s, 'PUT', `/api/v1/links/${r1.id}`, { as: alice, body: { url: 'https://e.test/new', ...bad } });
        const m = await tool(mcp(alice), 'update_link', { link: 'up-mcp', ...bad });
        assert.equal(r.status, 400, JSON.stringify(bad));
        assert.ok(!m.ok && m.code === 'validation_failed', JSON.stringify(bad));
        assert.equal(m.ok ? '' : m.message, r.body.error, JSON.stringify(bad));
      }
      const ghost = '00000000-0000-4000-8000-00000000beef';
      assert.equal((await call(s, 'PUT', `/api/v1/links/${ghost}`, { as: alice, body: { archived: true } })).status, 404);
      assert.equal(((await tool(mcp(alice), 'update_link', { link: ghost, archived: true })) as { code?: string }).code, 'not_found');
    });

    test('list and search: MCP mine + shared is REST’s own list, row by row; public rows match REST’s lookup', async () => {
      const dana = await actor(s, 'dana');
      clients.set(dana, await mcpClient(s, dana));
      for (const [slug, vis] of [
        ['ls-b', 'private'],
        ['ls-a', 'public'],
        ['ls-c', 'secure'],
      ] as const) {
        await call(s, 'POST', '/api/v1/links', {
          as: dana,
          body: { slug, url: `https://list.example/${slug}`, visibility: vis, title: slug.toUpperCase() },
        });
      }
      const other = await call(s, 'POST', '/api/v1/links', {
        as: alice,
        body: { slug: 'ls-from-alice', url: 'https://list.example/shared', visibility: 'secure' },
      });
      await call(s, 'POST', `/api/v1/links/${other.body.id}/shares`, { as: alice, body: { email: dana.user.email } });

      const rest = await call(s, 'GET', '/api/v1/links', { as: dana });
      const mine = await ok(mcp(dana), 'list_links', { filter: 'mine' });
      const shared = await ok(mcp(dana), 'list_links', { filter: 'shared' });
      const restRows = rest.body.links.map((l: Record<string, unknown>) => pick(asMcp(l, s.url), LIST_ITEM_KEYS));
      assert.deepEqual(
        [...mine.links, ...shared.links].sort((a, b) => (a.slug < b.slug ? -1 : 1)),
        restRows,
      );

      // Another user sees dana's public link only, with the same values REST's ?url= lookup gives, and no health.
      const pub = await ok(mcp(carol), 'list_links', { filter: 'public', q: 'list.example' });
      assert.deepEqual(
        pub.links.map((l: { slug: string }) => l.slug),
        ['ls-a'],
      );
      const lookup = await call(s, 'GET', `/api/v1/links?url=${encodeURIComponent('https://list.example/ls-a')}`, { as: carol });
      assert.deepEqual(pub.links[0], pick(asMcp(lookup.body.links[0], s.url), LIST_ITEM_KEYS));
      assert.equal(pub.links[0].health, undefined);
    });

    test('delete, shares and owners: same effects, same refusals', async () => {
      const mk = async (slug: string) =>
        (await call(s, 'POST', '/api/v1/links', { as: alice, body: { slug, url: 'https://e.test/d' } })).body as { id: string };
      const r = await mk('del-rest');
      const m = await mk('del-mcp');
      for (const [restPath, toolName] of [
        ['shares', 'share_link'],
        ['owners', 'add_co_owner'],
      ] as const) {
        const restOk = await call(s, 'POST', `/api/v1/links/${r.id}/${restPath}`, { as: alice, body: { email: carol.user.email } });
        const mcpOk = await tool(mcp(alice), toolName, { link: 'del-mcp', email: carol.user.email });
        assert.equal(restOk.status, 201);
        assert.ok(mcpOk.ok);
        const restDup = await call(s, 'POST', `/api/v1/links/${r.id}/${restPath}`, { as: alice, body: { email: carol.user.email } });
        const mcpDup = await tool(mcp(alice), toolName, { link: 'del-mcp', email: carol.user.email });
        assert.equal(restDup.status, 409);
        assert.ok(!mcpDup.ok && mcpDup.code === restDup.body.code.toLowerCase(), `${restDup.body.code} ↔ ${mcpDup.ok ? '' : mcpDup.code}`);
        const restUnknown = await call(s, 'POST', `/api/v1/links/${r.id}/${restPath}`, {
          as: alice,
          body: { email: 'nobody@example.com' },
        });
        const mcpUnknown = await tool(mcp(alice), toolName, { link: 'del-mcp', email: 'nobody@example.com' });
        assert.equal(restUnknown.status, 404);
        assert.ok(!mcpUnknown.ok && mcpUnknown.code === 'unknown_user');
        const restStranger = await call(s, 'POST', `/api/v1/links/${r.id}/${restPath}`, { as: bob, body: { email: bob.user.email } });
        const mcpStranger = await tool(mcp(bob), toolName, { link: 'del-mcp', email: bob.user.email });
        assert.equal(restStranger.status, 403);
        assert.ok(!mcpStranger.ok && mcpStranger.code === 'forbidden');
      }
      const restOwners = (await call(s, 'GET', `/api/v1/links/${r.id}/owners`, { as: alice })).body;
      const mcpOwners = (await ok(mcp(alice), 'get_link', { link: 'del-mcp' })).owners;
      assert.deepEqual(
        mcpOwners.map((o: { email: string; is_primary: boolean }) => [o.email, o.is_primary]),
        restOwners.map((o: { email: string; is_primary: boolean }) => [o.email, o.is_primary]),
      );

      for (const who of [bob]) {
        assert.equal((await call(s, 'DELETE', `/api/v1/links/${r.id}`, { as: who })).status, 403);
        const t = await tool(mcp(who), 'delete_link', { link: 'del-mcp' });
        assert.ok(!t.ok && t.code === 'forbidden');
      }
      // The co-owner added above may delete on both surfaces.
      assert.equal((await call(s, 'DELETE', `/api/v1/links/${r.id}`, { as: carol })).status, 204);
      assert.deepEqual(await ok(mcp(carol), 'delete_link', { link: m.id }), { deleted: true, slug: 'del-mcp' });
      assert.equal((await call(s, 'GET', `/api/v1/links/${r.id}`, { as: alice })).status, 404);
      await readBoth(alice, m.id, m.id);
      const again = await tool(mcp(alice), 'delete_link', { link: 'del-mcp' });
      assert.ok(!again.ok && again.code === 'not_found');
    });
  });
}
