import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { DbDriver } from '../../src/config.js';
import { actor, call, startApi, type Actor } from '../api/support.js';
import type { TestServer } from '../helpers/server.js';
import { mcpClient, ok } from './support.js';

/**
 * Discovery through MCP never shows a link to someone who may not discover it
 * (docs/links.md#visibility, docs/links.md#autocomplete-and-search): another user's private and secure links stay out of
 * every list and search, whatever is searched for, and expired or archived
 * links never appear among public links — for admins neither.
 */

const DRIVERS: Array<[DbDriver, string | undefined]> = [
  ['sqlite3', undefined],
  ['postgres', 'JOE_TEST_PG_DSN'],
  ['mysql', 'JOE_TEST_MYSQL_DSN'],
];

/** A marker that appears in every field of the hidden links, so any leak is findable. */
const SECRET = 'zqxsecret';

for (const [driver, env] of DRIVERS) {
  describe(`MCP discovery never leaks [${driver}]`, { skip: env !== undefined && !process.env[env] ? `${env} not set` : false }, () => {
    let s: TestServer;
    let owner: Actor;
    let recipient: Actor;
    let stranger: Actor;
    let admin: Actor;
    let asRecipient: Client;
    let asStranger: Client;
    let asAdmin: Client;
    let asOwner: Client;
    const hidden = new Set<string>();

    before(async () => {
      s = await startApi({ driver });
      owner = await actor(s, 'owner');
      recipient = await actor(s, 'recipient');
      stranger = await actor(s, 'stranger');
      admin = await actor(s, 'admin', { admin: true });
      asOwner = await mcpClient(s, owner);
      asRecipient = await mcpClient(s, recipient);
      asStranger = await mcpClient(s, stranger);
      asAdmin = await mcpClient(s, admin);
      const mk = async (slug: string, visibility: string, extra: Record<string, unknown> = {}) => {
        const r = await call(s, 'POST', '/api/v1/links', {
          as: owner,
          body: {
            slug,
            url: `https://${SECRET}.example/${slug}?q=100%25_x`,
            title: `${SECRET} ${slug}`,
            description: `about ${SECRET} 100%_x`,
            tags: [`${SECRET}-tag`],
            visibility,
            ...extra,
          },
        });
        assert.equal(r.status, 201, r.text);
        return r.body.id as string;
      };
      await mk(`${SECRET}-private`, 'private');
      const secure = await mk(`${SECRET}-secure`, 'secure');
      await call(s, 'POST', `/api/v1/links/${secure}/shares`, { as: owner, body: { email: recipient.user.email } });
      await mk(`${SECRET}-public`, 'public');
      const expired = await mk(`${SECRET}-public-expired`, 'public', { expires_at: new Date(Date.now() + 86_400_000).toISOString() });
      await s.store.db.kysely
        .updateTable('links')
        .set({ expires_at: Date.now() - 60_000 })
        .where('id', '=', expired)
        .execute();
      const archived = await mk(`${SECRET}-public-archived`, 'public');
      await call(s, 'PUT', `/api/v1/links/${archived}`, { as: owner, body: { archived: true } });
      for (const slug of ['private', 'secure', 'public-expired', 'public-archived']) hidden.add(`${SECRET}-${slug}`);
    });
    after(async () => {
      await Promise.all([asOwner, asRecipient, asStranger, asAdmin].map((c) => c.close()));
      await s.stop();
    });

    const slugs = async (client: Client, args: Record<string, unknown>) =>
      (await ok(client, 'list_links', args)).links.map((l: { slug: string }) => l.slug) as string[];

    test('a stranger finds only the active public link, by any field', async () => {
      for (const q of [SECRET, `${SECRET}-private`, `${SECRET}-secure`, 'about', '100%_x', `${SECRET}.example`, 'expired', 'archived']) {
        for (const filter of ['public', 'mine', 'shared', undefined]) {
          const got = await slugs(asStranger, { q, ...(filter ? { filter } : {}) });
          const leaked = got.filter((x) => hidden.has(x));
          assert.deepEqual(leaked, [], `q=${q} filter=${filter}`);
          if (filter === 'public' && `${SECRET}-public about 100%_x ${SECRET}.example`.includes(q))
            assert.deepEqual(got, [`${SECRET}-public`], `q=${q}`);
        }
      }
      assert.deepEqual(await slugs(asStranger, { tag: `${SECRET}-tag` }), [], 'tags of others’ links find nothing');
      assert.deepEqual(await slugs(asStranger, { filter: 'shared' }), []);
    });

    test('no search string, however crafted, surfaces a hidden link to a stranger', async () => {
      const pieces = [
        SECRET,
        '-private',
        '-secure',
        'expired',
        'archived',
        '%',
        '_',
        '\\',
        "'",
        '"',
        ' OR 1=1 --',
        '100',
        '*',
        '[',
        ']',
        '^',
        '$',
      ];
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.oneof(fc.constantFrom(...pieces), fc.string({ maxLength: 6 })), { maxLength: 4 }).map((parts) => parts.join('')),
          fc.constantFrom('public', 'mine', 'shared'),
          async (q, filter) => {
            const got = await slugs(asStranger, { q, filter });
            assert.deepEqual(
              got.filter((x) => hidden.has(x) || (x.startsWith(SECRET) && filter !== 'public')),
              [],
              `q=${JSON.stringify(q)} filter=${filter}`,
            );
          },
        ),
        { numRuns: 60 },
      );
    });

    test('a share recipient sees the shared link under "shared" only, never among public links', async () => {
      assert.deepEqual(await slugs(asRecipient, { filter: 'shared' }), [`${SECRET}-secure`]);
      assert.deepEqual(await slugs(asRecipient, { filter: 'public', q: SECRET }), [`${SECRET}-public`]);
      assert.deepEqual(await slugs(asRecipient, { q: SECRET }), [], 'mine is what they own');
    });

    test('public excludes expired and archived links for their owner and for admins too; mine keeps them', async () => {
      assert.deepEqual(await slugs(asOwner, { filter: 'public', q: SECRET }), [`${SECRET}-public`]);
      assert.deepEqual(await slugs(asAdmin, { filter: 'public', q: SECRET }), [`${SECRET}-public`]);
      assert.deepEqual((await slugs(asOwner, { q: SECRET })).sort(), [...hidden, `${SECRET}-public`].sort(), 'mine: every lifecycle state');
      assert.deepEqual(await slugs(asAdmin, { q: SECRET }), [], 'an admin’s "mine" is what they own, not everything');
    });

    test('public rows carry no health and nothing from the owner’s side', async () => {
      const rows = (await ok(asStranger, 'list_links', { filter: 'public', q: SECRET })).links;
      assert.equal(rows.length, 1);
      assert.equal(rows[0].health, undefined);
      assert.equal(rows[0].health_checks_disabled, undefined);
      assert.equal(rows[0].shared_with, undefined);
      assert.equal(rows[0].owners, undefined);
    });

    test('reading a hidden link by name is refused without its content', async () => {
      for (const slug of [`${SECRET}-private`, `${SECRET}-secure`]) {
        const r = (await asStranger.callTool({ name: 'get_link', arguments: { link: slug } })) as {
          isError?: boolean;
          content: Array<{ text: string }>;
        };
        assert.equal(r.isError, true);
        assert.equal(JSON.parse(r.content[0]!.text).code, 'forbidden');
        assert.ok(!r.content[0]!.text.includes('example/'), 'no URL in the refusal');
      }
    });
  });
}
