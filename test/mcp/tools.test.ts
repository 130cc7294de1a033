import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { actor, call, type Actor } from '../api/support.js';
import { eventually, get, sessionCookie, startTestServer, type TestServer } from '../helpers/server.js';
import { counter, mcpClient, ok, rawMcp, refused, tool } from './support.js';
import { createLink } from '../helpers/links.js';

/**
 * Every MCP tool's behaviour as an agent sees it
 * (docs/agents.md#mcp-tools, docs/agents.md#rest-parity, docs/agents.md#mcp-errors), through the SDK client against a running server.
 */

const inDays = (d: number) => new Date(Date.now() + d * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

describe('MCP tools', () => {
  let s: TestServer;
  const logLines: string[] = [];
  let alice: Actor;
  let bob: Actor;
  let carol: Actor;
  let admin: Actor;
  let asAlice: Client;
  let asBob: Client;
  let asCarol: Client;
  let asAdmin: Client;

  before(async () => {
    const logs = new Writable({
      write(chunk: Buffer, _enc, done) {
        logLines.push(
          ...chunk
            .toString('utf8')
            .split('\n')
            .filter((l) => l !== ''),
        );
        done();
      },
    });
    s = await startTestServer({ env: { JOE_API_RATE_LIMIT: '0' }, start: { logger: { level: 'info', stream: logs } } });
    alice = await actor(s, 'alice');
    bob = await actor(s, 'bob');
    carol = await actor(s, 'carol');
    admin = await actor(s, 'admin', { admin: true });
    await s.store.users.create({ email: 'joe@example.com', displayName: 'Joe' });
    [asAlice, asBob, asCarol, asAdmin] = await Promise.all([
      mcpClient(s, alice),
      mcpClient(s, bob),
      mcpClient(s, carol),
      mcpClient(s, admin),
    ]);
  });
  after(async () => {
    await Promise.all([asAlice, asBob, asCarol, asAdmin].map((c) => c?.close()));
    await s.stop();
  });

  describe('acceptance checks (docs/agents.md#mcp-tools)', () => {
    test('create_link with share_with makes a secure link shared with exactly those users', async () => {
      const p = await ok(asAlice, 'create_link', { slug: 'shared-doc', url: 'https://example.com/doc', share_with: ['joe@example.com'] });
      assert.equal(p.visibility, 'secure');
      assert.deepEqual(p.shared_with, ['joe@example.com']);
      assert.deepEqual(p.health, { status: 'unchecked', last_checked_at: null, last_status: null });
      assert.equal(p.health_checks_disabled, false);
      const shares = await s.store.shares.list(p.id);
      assert.deepEqual(
        shares.map((x) => [x.email, x.sharedBy]),
        [['joe@example.com', alice.user.id]],
        'shared_by is the caller',
      );
    });

    test('an unknown share_with email is unknown_user naming every unknown email, and nothing is written', async () => {
      const msg = await refused(
        asAlice,
        'create_link',
        {
          slug: 'not-shared',
          url: 'https://example.com/x',
          share_with: ['nobody@example.com', 'joe@example.com', ' ', 'ghost@example.com'],
        },
        'unknown_user',
      );
      assert.match(msg, /nobody@example\.com/);
      assert.match(msg, /ghost@example\.com/);
      assert.doesNotMatch(msg, /joe@example\.com/);
      assert.equal(await s.store.links.getBySlug('not-shared'), null);
    });

    test('a duplicate slug is a duplicate_slug tool error naming it, and the next call on the same token succeeds', async () => {
      await ok(asAlice, 'create_link', { slug: 'dup-me', url: 'https://example.com/1' });
      const msg = await refused(asAlice, 'create_link', { slug: 'dup-me', url: 'https://example.com/2' }, 'duplicate_slug');
      assert.match(msg, /dup-me/);
      const got = await ok(asAlice, 'get_link', { link: 'dup-me' });
      assert.equal(got.url, 'https://example.com/1', 'the first link is untouched');
    });

    test('each call counts once in joelinks_mcp_tool_calls_total by tool and outcome', async () => {
      const labels = (outcome: string) => ({ tool: 'create_link', outcome });
      const [success, error] = [
        await counter(s, 'joelinks_mcp_tool_calls_total', labels('success')),
        await counter(s, 'joelinks_mcp_tool_calls_total', labels('error')),
      ];
      await ok(asAlice, 'create_link', { slug: 'counted', url: 'https://example.com/c' });
      assert.equal(await counter(s, 'joelinks_mcp_tool_calls_total', labels('success')), success + 1);
      assert.equal(await counter(s, 'joelinks_mcp_tool_calls_total', labels('error')), error);
      await refused(asAlice, 'create_link', { slug: 'counted', url: 'https://example.com/c' }, 'duplicate_slug');
      assert.equal(await counter(s, 'joelinks_mcp_tool_calls_total', labels('error')), error + 1);
      assert.equal(await counter(s, 'joelinks_mcp_tool_calls_total', labels('success')), success + 1);
    });
  });

  test('one structured log entry per call with tool, user id and outcome, and never the token', async () => {
    const mark = logLines.length;
    await ok(asBob, 'list_keywords');
    await refused(asBob, 'get_link', { link: 'nothing-here' }, 'not_found');
    const entries = logLines
      .slice(mark)
      .map((l) => JSON.parse(l))
      .filter((e) => e.msg === 'mcp tool call');
    assert.deepEqual(
      entries.map((e) => [e.tool, e.user_id, e.outcome]),
      [
        ['list_keywords', bob.user.id, 'success'],
        ['get_link', bob.user.id, 'error'],
      ],
    );
    assert.ok(!logLines.some((l) => l.includes(bob.token) || l.includes(alice.token)), 'no token in any log line');
  });

  describe('create_link', () => {
    test('defaults to private; an explicit visibility wins; empty expires_at means never', async () => {
      const a = await ok(asAlice, 'create_link', { slug: 'c-default', url: 'https://example.com/a', expires_at: '' });
      assert.equal(a.visibility, 'private');
      assert.equal(a.expires_at, null, 'null = never expires');
      assert.equal(a.archived_at, null);
      assert.equal(a.lifecycle_state, 'active');
      const b = await ok(asAlice, 'create_link', {
        slug: 'c-public',
        url: 'https://example.com/b',
        visibility: 'public',
        share_with: ['joe@example.com'],
      });
      assert.equal(b.visibility, 'public', 'explicit visibility wins over the share_with default');
      const c = await ok(asAlice, 'create_link', { slug: 'c-blank-shares', url: 'https://example.com/c', share_with: ['', '  '] });
      assert.equal(c.visibility, 'private', 'blank emails are skipped');
      assert.equal(c.shared_with, undefined);
    });

    test('every field is stored: title, description, tags, expiry, health-check opt-out', async () => {
      const expires = inDays(30);
      const p = await ok(asAlice, 'create_link', {
        slug: 'c-full',
        url: 'https://jira.example.com/browse/$ticket',
        title: 'Jira',
        description: 'Tickets',
        tags: ['Engineering', 'tools', 'engineering'],
        expires_at: expires,
        health_checks_disabled: true,
      });
      assert.equal(p.url, 'https://jira.example.com/browse/$ticket');
      assert.equal(p.title, 'Jira');
      assert.equal(p.description, 'Tickets');
      assert.deepEqual(p.tags, ['Engineering', 'tools']);
      assert.equal(p.expires_at.slice(0, 19), expires.slice(0, 19));
      assert.equal(p.health_checks_disabled, true);
      assert.deepEqual(p.owners, [{ id: alice.user.id, email: alice.user.email, is_primary: true }]);
      assert.match(p.created_at, RFC3339);
      assert.match(p.updated_at, RFC3339);
      assert.equal(p.short_url, `${s.url}/c-full`);
    });

    test('invalid input is validation_failed with the REST message, in REST’s order', async () => {
      const cases: Array<[Record<string, unknown>, RegExp]> = [
        [{ slug: '', url: 'https://e.test' }, /^slug is required$/],
        [{ slug: 'ok-1', url: ' ' }, /^url is required$/],
        [{ slug: 'Bad', url: 'javascript:alert(1)' }, /slug must match/],
        [{ slug: 'mcp', url: 'https://e.test' }, /reserved/],
        [{ slug: 'ok-1', url: 'ftp://e.test' }, /http/],
        [{ slug: 'ok-1', url: 'https://e.test', title: 'x'.repeat(201) }, /title must be at most 200/],
        [{ slug: 'ok-1', url: 'https://e.test', description: 'x'.repeat(2001) }, /description must be at most 2000/],
        [{ slug: 'ok-1', url: 'https://e.test', tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, /at most 20 tags/],
        [{ slug: 'ok-1', url: 'https://e.test', tags: ["x');fetch('/evil')//"] }, /tag names must/],
        [{ slug: 'ok-1', url: 'https://e.test', visibility: 'hidden' }, /visibility must be one of/],
        [{ slug: 'ok-1', url: 'https://e.test', expires_at: '2001-01-01T00:00:00Z' }, /^expiration must be in the future$/],
        [{ slug: 'ok-1', url: 'https://e.test', expires_at: 'next tuesday' }, /RFC 3339.*2030-01-02T15:04:05Z/],
      ];
      for (const [args, message] of cases) {
        const msg = await refused(asAlice, 'create_link', args, 'validation_failed');
        assert.match(msg, message, JSON.stringify(args));
      }
      assert.equal(await s.store.links.getBySlug('ok-1'), null);
    });

    test('short_url follows the Host header and believes X-Forwarded-Proto only from a trusted proxy', async () => {
      const r = await rawMcp(
        s,
        alice,
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'create_link', arguments: { slug: 'retro-notes', url: 'https://e.test/r' } },
        },
        { host: 'go.example.com', 'x-forwarded-proto': 'https' },
      );
      assert.equal(r.body.result.structuredContent.short_url, 'http://go.example.com/retro-notes', 'plain HTTP from an untrusted peer');
      const proxied = await startTestServer({ env: { JOE_API_RATE_LIMIT: '0', JOE_TRUSTED_PROXIES: '127.0.0.1' } });
      try {
        const p = await actor(proxied, 'proxied');
        const via = await rawMcp(
          proxied,
          p,
          {
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name: 'create_link', arguments: { slug: 'retro-notes', url: 'https://e.test/r' } },
          },
          { host: 'go.example.com', 'x-forwarded-proto': 'https' },
        );
        assert.equal(via.body.result.structuredContent.short_url, 'https://go.example.com/retro-notes');
      } finally {
        await proxied.stop();
      }
    });
  });

  describe('get_link', () => {
    let link: { id: string; slug: string };
    before(async () => {
      link = await ok(asAlice, 'create_link', { slug: 'g-secure', url: 'https://example.com/g', share_with: [bob.user.email] });
    });

    test('looks a reference up as a slug first, then as an id', async () => {
      assert.equal((await ok(asAlice, 'get_link', { link: 'g-secure' })).id, link.id);
      assert.equal((await ok(asAlice, 'get_link', { link: link.id })).id, link.id);
      assert.equal((await ok(asAlice, 'get_link', { link: '  G-Secure ' })).id, link.id, 'trimmed, case-folded like the resolver');
      // A slug that happens to look like another link's id wins as a slug.
      const twin = await ok(asBob, 'create_link', { slug: link.id, url: 'https://example.com/twin', visibility: 'public' });
      assert.equal((await ok(asBob, 'get_link', { link: link.id })).id, twin.id);
    });

    test('blank and unknown references', async () => {
      assert.equal(await refused(asAlice, 'get_link', { link: '   ' }, 'validation_failed'), 'link reference (slug or id) is required');
      assert.match(await refused(asAlice, 'get_link', { link: 'no-such' }, 'not_found'), /no-such/);
      assert.match(await refused(asAlice, 'get_link', { link: '00000000-0000-4000-8000-000000000000' }, 'not_found'), /00000000/);
    });

    test('share recipients read it without the roster; strangers are forbidden; admins see everything', async () => {
      const owner = await ok(asAlice, 'get_link', { link: 'g-secure' });
      assert.deepEqual(owner.shared_with, [bob.user.email]);
      const recipient = await ok(asBob, 'get_link', { link: 'g-secure' });
      assert.equal(recipient.shared_with, undefined, 'recipients never see the roster');
      assert.ok(recipient.health, 'recipients are capable: health is shown');
      assert.equal(await refused(asCarol, 'get_link', { link: 'g-secure' }, 'forbidden'), 'you do not have access to this link');
      const byAdmin = await ok(asAdmin, 'get_link', { link: 'g-secure' });
      assert.deepEqual(byAdmin.shared_with, [bob.user.email]);
    });
  });

  describe('list_links', () => {
    let dave: Actor;
    let asDave: Client;
    before(async () => {
      dave = await actor(s, 'dave');
      asDave = await mcpClient(s, dave);
      for (const [slug, extra] of [
        ['l-beta', { title: 'Beta board', tags: ['Boards'] }],
        ['l-alpha', { description: 'has 100% literal', tags: ['boards'] }],
        ['l-gamma', { url: 'https://gamma.example.com/BETA' }],
      ] as const) {
        await ok(asDave, 'create_link', { slug, url: 'https://example.com/', visibility: 'public', ...extra });
        await new Promise((r) => setTimeout(r, 5));
      }
      await ok(asAlice, 'create_link', { slug: 'l-shared-to-dave', url: 'https://example.com/s', share_with: [dave.user.email] });
    });
    after(async () => asDave.close());

    test('mine by slug; q searches slug, URL, title and description literally; tag is a tag slug; q wins', async () => {
      const slugs = async (args: Record<string, unknown>) =>
        (await ok(asDave, 'list_links', args)).links.map((l: { slug: string }) => l.slug);
      assert.deepEqual(await slugs({}), ['l-alpha', 'l-beta', 'l-gamma']);
      assert.deepEqual(await slugs({ filter: 'mine' }), ['l-alpha', 'l-beta', 'l-gamma']);
      assert.deepEqual(await slugs({ q: 'BETA' }), ['l-beta', 'l-gamma'], 'slug/title and URL, case-insensitive');
      assert.deepEqual(await slugs({ q: '100%' }), ['l-alpha']);
      assert.deepEqual(await slugs({ q: '%' }), ['l-alpha'], '% matches literally');
      assert.deepEqual(await slugs({ tag: 'boards' }), ['l-alpha', 'l-beta']);
      assert.deepEqual(await slugs({ tag: 'Boards' }), ['l-alpha', 'l-beta'], 'a tag name finds its slug');
      assert.deepEqual(await slugs({ q: 'gamma', tag: 'boards' }), ['l-gamma'], 'q wins over tag');
      const out = await ok(asDave, 'list_links', {});
      assert.equal(out.count, out.links.length);
    });

    test('shared lists links shared with the caller and ignores q and tag; public is newest first', async () => {
      const shared = await ok(asDave, 'list_links', { filter: 'shared', q: 'zzz', tag: 'nothing' });
      assert.deepEqual(
        shared.links.map((l: { slug: string }) => l.slug),
        ['l-shared-to-dave'],
      );
      assert.equal(shared.count, 1);
      const pub = await ok(asCarol, 'list_links', { filter: 'public', q: 'example.com/' });
      const mine = pub.links.map((l: { slug: string }) => l.slug).filter((x: string) => x.startsWith('l-'));
      assert.deepEqual(mine, ['l-gamma', 'l-alpha', 'l-beta'], 'newest first');
    });

    test('list items carry lifecycle fields always and health only where the caller is capable', async () => {
      const pub = await ok(asCarol, 'list_links', { filter: 'public', q: 'l-beta' });
      const row = pub.links.find((l: { slug: string }) => l.slug === 'l-beta');
      assert.deepEqual(Object.keys(row).sort(), [
        'archived_at',
        'expires_at',
        'id',
        'lifecycle_state',
        'short_url',
        'slug',
        'title',
        'url',
        'visibility',
      ]);
      const own = (await ok(asDave, 'list_links', { q: 'l-beta' })).links[0];
      assert.deepEqual(Object.keys(own).sort(), [
        'archived_at',
        'expires_at',
        'health',
        'health_checks_disabled',
        'id',
        'lifecycle_state',
        'short_url',
        'slug',
        'title',
        'url',
        'visibility',
      ]);
    });

    test('unknown filter is validation_failed; limit defaults to 50, ≤ 0 means 50, above 200 means 200', async () => {
      assert.equal(
        await refused(asDave, 'list_links', { filter: 'everything' }, 'validation_failed'),
        'filter must be "mine", "shared", or "public"',
      );
      const many = await actor(s, 'many');
      for (let i = 0; i < 205; i++)
        await createLink(s.store, { slug: `m-${String(i).padStart(3, '0')}`, url: 'https://example.com/' }, many.user.id);
      const asMany = await mcpClient(s, many);
      try {
        assert.equal((await ok(asMany, 'list_links', {})).count, 50);
        assert.equal((await ok(asMany, 'list_links', { limit: 0 })).count, 50);
        assert.equal((await ok(asMany, 'list_links', { limit: -3 })).count, 50);
        assert.equal((await ok(asMany, 'list_links', { limit: 7 })).count, 7);
        const capped = await ok(asMany, 'list_links', { limit: 100000 });
        assert.equal(capped.count, 200);
        assert.equal(capped.links[199].slug, 'm-199');
      } finally {
        await asMany.close();
      }
    });
  });

  describe('update_link', () => {
    test('only the given fields change', async () => {
      await ok(asAlice, 'create_link', {
        slug: 'u-partial',
        url: 'https://example.com/u',
        title: 'T',
        description: 'D',
        tags: ['one'],
        visibility: 'public',
      });
      const p = await ok(asAlice, 'update_link', { link: 'u-partial', title: 'New title' });
      assert.equal(p.title, 'New title');
      assert.equal(p.description, 'D');
      assert.deepEqual(p.tags, ['one']);
      assert.equal(p.url, 'https://example.com/u');
      assert.equal(p.visibility, 'public');
      const v = await ok(asAlice, 'update_link', { link: 'u-partial', visibility: '' });
      assert.equal(v.visibility, 'public', 'empty visibility keeps the stored value');
    });

    test('expires_at: omitted keeps, null and "" clear, a past value is refused unless it is the stored one', async () => {
      const expires = inDays(10);
      await ok(asAlice, 'create_link', { slug: 'u-expiry', url: 'https://example.com/e', expires_at: expires });
      assert.equal((await ok(asAlice, 'update_link', { link: 'u-expiry', title: 'x' })).expires_at.slice(0, 19), expires.slice(0, 19));
      assert.equal((await ok(asAlice, 'update_link', { link: 'u-expiry', expires_at: null })).expires_at, null);
      await ok(asAlice, 'update_link', { link: 'u-expiry', expires_at: expires });
      assert.equal((await ok(asAlice, 'update_link', { link: 'u-expiry', expires_at: '' })).expires_at, null);
      assert.equal(
        await refused(asAlice, 'update_link', { link: 'u-expiry', expires_at: '2001-01-01T00:00:00Z' }, 'validation_failed'),
        'expiration must be in the future',
      );
      assert.match(await refused(asAlice, 'update_link', { link: 'u-expiry', expires_at: 'soon' }, 'validation_failed'), /RFC 3339/);
      // An expired link stays editable: its own stored expiry is accepted as is.
      const link = (await s.store.links.getBySlug('u-expiry'))!;
      // A whole second a day ago, from one reading of the clock.
      const past = Math.floor(Date.now() / 1000) * 1000 - 86_400_000;
      await s.store.db.kysely.updateTable('links').set({ expires_at: past }).where('id', '=', link.id).execute();
      const still = await ok(asAlice, 'update_link', { link: 'u-expiry', expires_at: new Date(past).toISOString(), title: 'kept' });
      assert.equal(still.lifecycle_state, 'expired');
      assert.equal(still.title, 'kept');
    });

    test('tags replace the set, [] clears it, duplicates collapse case-insensitively after validation of the raw list', async () => {
      await ok(asAlice, 'create_link', { slug: 'u-tags', url: 'https://example.com/t', tags: ['a', 'b'] });
      assert.deepEqual((await ok(asAlice, 'update_link', { link: 'u-tags', tags: ['Ops', 'ops', 'OPS', 'dev'] })).tags, ['Ops', 'dev']);
      assert.equal((await ok(asAlice, 'update_link', { link: 'u-tags', tags: [] })).tags, undefined, 'cleared (omitted when empty)');
      const raw = Array.from({ length: 21 }, () => 'same');
      assert.match(
        await refused(asAlice, 'update_link', { link: 'u-tags', tags: raw }, 'validation_failed'),
        /at most 20 tags/,
        'counted before de-duplication',
      );
    });

    test('url cannot be emptied; archived and health_checks_disabled toggle as in REST', async () => {
      await ok(asAlice, 'create_link', { slug: 'u-toggle', url: 'https://example.com/t', title: 'Keep' });
      assert.equal(await refused(asAlice, 'update_link', { link: 'u-toggle', url: '  ' }, 'validation_failed'), 'url cannot be empty');
      const archived = await ok(asAlice, 'update_link', { link: 'u-toggle', archived: true });
      assert.equal(archived.lifecycle_state, 'archived');
      assert.match(archived.archived_at, RFC3339);
      assert.deepEqual(archived.health, { status: 'unchecked', last_checked_at: null, last_status: null });
      const again = await ok(asAlice, 'update_link', { link: 'u-toggle', archived: true });
      assert.equal(again.archived_at, archived.archived_at, 're-archiving keeps the first archive time');
      const back = await ok(asAlice, 'update_link', { link: 'u-toggle', archived: false, health_checks_disabled: true });
      assert.equal(back.lifecycle_state, 'active');
      assert.equal(back.archived_at, null);
      assert.equal(back.health_checks_disabled, true);
      assert.equal(back.title, 'Keep');
    });

    test('share recipients and strangers are forbidden and change nothing', async () => {
      await ok(asAlice, 'create_link', { slug: 'u-guarded', url: 'https://example.com/g', share_with: [bob.user.email] });
      const before = await s.store.links.getBySlug('u-guarded');
      for (const [client, args] of [
        [asBob, { archived: true }],
        [asBob, { expires_at: null }],
        [asCarol, { title: 'mine now' }],
      ] as const) {
        assert.equal(
          await refused(client, 'update_link', { link: 'u-guarded', ...args }, 'forbidden'),
          'only owners and admins may update a link',
        );
      }
      assert.deepEqual(await s.store.links.getBySlug('u-guarded'), before);
      assert.equal((await ok(asAdmin, 'update_link', { link: 'u-guarded', title: 'by admin' })).title, 'by admin');
    });
  });

  describe('delete, shares and co-owners', () => {
    test('delete_link answers the slug; recipients and strangers are forbidden', async () => {
      await ok(asAlice, 'create_link', { slug: 'd-gone', url: 'https://example.com/d', share_with: [bob.user.email] });
      for (const client of [asBob, asCarol]) {
        assert.equal(await refused(client, 'delete_link', { link: 'd-gone' }, 'forbidden'), 'only owners and admins may delete a link');
      }
      assert.deepEqual(await ok(asAlice, 'delete_link', { link: 'd-gone' }), { deleted: true, slug: 'd-gone' });
      assert.equal(await s.store.links.getBySlug('d-gone'), null);
      await refused(asAlice, 'delete_link', { link: 'd-gone' }, 'not_found');
    });

    test('share_link and unshare_link keep the roster; unknown users, duplicates and non-owners are refused', async () => {
      await ok(asAlice, 'create_link', { slug: 's-roster', url: 'https://example.com/s', visibility: 'public' });
      assert.deepEqual(await ok(asAlice, 'share_link', { link: 's-roster', email: ` ${carol.user.email} ` }), {
        link: 's-roster',
        shared_with: [carol.user.email],
      });
      assert.deepEqual(
        (await ok(asAlice, 'share_link', { link: 's-roster', email: bob.user.email })).shared_with,
        [bob.user.email, carol.user.email].sort(),
      );
      assert.match(await refused(asAlice, 'share_link', { link: 's-roster', email: bob.user.email }, 'duplicate_share'), /already shared/);
      assert.match(
        await refused(asAlice, 'share_link', { link: 's-roster', email: 'nobody@example.com' }, 'unknown_user'),
        /nobody@example\.com/,
      );
      assert.match(
        await refused(asAlice, 'share_link', { link: 's-roster', email: ` ${bob.user.email.toUpperCase()} ` }, 'duplicate_share'),
        /already shared/,
        'the same person in another case',
      );
      assert.equal(await refused(asAlice, 'share_link', { link: 's-roster', email: ' ' }, 'validation_failed'), 'email is required');
      assert.equal(
        await refused(asBob, 'share_link', { link: 's-roster', email: admin.user.email }, 'forbidden'),
        'only owners and admins may manage shares',
      );
      assert.equal(
        await refused(asBob, 'unshare_link', { link: 's-roster', email: carol.user.email }, 'forbidden'),
        'only owners and admins may manage shares',
      );
      assert.deepEqual(await ok(asAlice, 'unshare_link', { link: 's-roster', email: carol.user.email }), {
        link: 's-roster',
        shared_with: [bob.user.email],
      });
      assert.deepEqual(
        await ok(asAlice, 'unshare_link', { link: 's-roster', email: carol.user.email }),
        { link: 's-roster', shared_with: [bob.user.email] },
        'idempotent',
      );
      assert.match(await refused(asAlice, 'unshare_link', { link: 's-roster', email: 'nobody@example.com' }, 'unknown_user'), /nobody/);
    });

    test('add_co_owner makes an owner who may then edit; existing owners are duplicate_owner', async () => {
      await ok(asAlice, 'create_link', { slug: 'o-co', url: 'https://example.com/o' });
      const r = await ok(asAlice, 'add_co_owner', { link: 'o-co', email: carol.user.email });
      assert.deepEqual(r, {
        link: 'o-co',
        owners: [
          { id: alice.user.id, email: alice.user.email, is_primary: true },
          { id: carol.user.id, email: carol.user.email, is_primary: false },
        ],
      });
      assert.equal((await ok(asCarol, 'update_link', { link: 'o-co', title: 'co-owned' })).title, 'co-owned');
      assert.match(
        await refused(asAlice, 'add_co_owner', { link: 'o-co', email: carol.user.email }, 'duplicate_owner'),
        /already an owner/,
      );
      assert.match(
        await refused(asAlice, 'add_co_owner', { link: 'o-co', email: alice.user.email }, 'duplicate_owner'),
        /already an owner/,
      );
      assert.equal(
        await refused(asBob, 'add_co_owner', { link: 'o-co', email: bob.user.email }, 'forbidden'),
        'only owners and admins may manage shares',
      );
    });
  });

  describe('get_link_stats and list_keywords', () => {
    test('totals as REST, recent newest first, referrer only when present, clicker names only for owners', async () => {
      const link = await ok(asAlice, 'create_link', {
        slug: 'st-clicks',
        url: 'https://example.com/st',
        visibility: 'public',
        share_with: [bob.user.email],
      });
      const carolCookie = await sessionCookie(s.store, carol.user);
      await get(`${s.url}/st-clicks`, { referer: 'https://news.example.org/item' });
      await new Promise((r) => setTimeout(r, 10));
      await get(`${s.url}/st-clicks`, { cookie: carolCookie });
      await eventually(async () => (await s.store.clicks.countForLink(link.id)) === 2);

      const owner = await ok(asAlice, 'get_link_stats', { link: 'st-clicks' });
      assert.equal(owner.link, 'st-clicks');
      assert.equal(owner.total, 2);
      assert.equal(owner.last_7d, 2);
      assert.equal(owner.last_30d, 2);
      assert.equal(owner.recent.length, 2);
      assert.deepEqual(Object.keys(owner.recent[0]).sort(), ['clicked_at', 'user'], 'newest first: the signed-in click, no referrer');
      assert.equal(owner.recent[0].user, carol.user.displayName);
      assert.deepEqual(Object.keys(owner.recent[1]).sort(), ['clicked_at', 'referrer']);
      assert.equal(owner.recent[1].referrer, 'https://news.example.org/item');
      assert.match(owner.recent[0].clicked_at, RFC3339);

      const recipient = await ok(asBob, 'get_link_stats', { link: 'st-clicks' });
      assert.equal(recipient.total, 2);
      assert.ok(
        recipient.recent.every((c: Record<string, unknown>) => c.user === undefined),
        'recipients never learn who clicked',
      );
      assert.equal(await refused(asCarol, 'get_link_stats', { link: 'st-clicks' }, 'forbidden'), 'you do not have access to this link');

      assert.equal((await ok(asAlice, 'get_link_stats', { link: 'st-clicks', limit: 1 })).recent.length, 1);
      const rest = await call(s, 'GET', `/api/v1/links/${link.id}/stats`, { as: alice });
      if (rest.status === 200) {
        assert.deepEqual(
          [rest.body.total, rest.body.last_7d, rest.body.last_30d],
          [owner.total, owner.last_7d, owner.last_30d],
          'same totals as REST',
        );
      }
    });

    test('list_keywords lists names in order', async () => {
      await s.store.keywords.create({ keyword: 'jira', urlTemplate: 'https://jira.example.com/browse/{slug}' });
      await s.store.keywords.create({ keyword: 'gh', urlTemplate: 'https://github.com/{slug}' });
      assert.deepEqual(await ok(asCarol, 'list_keywords'), { keywords: ['gh', 'jira'] });
      const rest = await call(s, 'GET', '/api/v1/keywords');
      assert.deepEqual(rest.body, ['gh', 'jira']);
    });
  });

  test('the result of every successful call is structured content plus the same JSON as text', async () => {
    const r = await tool(asAlice, 'list_links', { limit: 1 });
    assert.ok(r.ok);
    assert.equal(r.raw.content.length, 1);
  });
});
