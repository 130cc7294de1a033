import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import type { User } from '../../src/store/types.js';
import { call, actor, createLink, type Actor } from '../api/support.js';
import { CLI_ARGS } from '../helpers/cli.js';
import type { TestServer } from '../helpers/server.js';
import { mcpClient, ok, refused } from '../mcp/support.js';
import { clientFor, startWebServer } from '../web/support.js';
import { sessionCookie } from '../helpers/server.js';

/**
 * One rule for naming a person by email on every surface
 * (docs/links.md#finding-people-by-email): the web form, REST, MCP and the
 * CLI all find the same user for an address in any case with stray spaces,
 * and all refuse an address that names no one.
 */

describe('finding people by email, on every surface', () => {
  let s: TestServer;
  let alice: Actor;
  let carol: User;
  const typed = (u: User) => `  ${u.email.toUpperCase()} `;
  const ownerIds = async (linkId: string) => (await s.store.owners.list(linkId)).map((o) => o.userId).sort();
  const shareIds = async (linkId: string) => (await s.store.shares.list(linkId)).map((x) => x.userId).sort();

  before(async () => {
    s = await startWebServer({ env: { JOE_API_RATE_LIMIT: '0' } });
    alice = await actor(s, 'alice');
    carol = await s.store.users.create({ email: `Carol.Smith-${process.pid}@Example.test`, displayName: 'Carol' });
  });
  after(async () => s.stop());

  test('web: the co-owner and share forms', async () => {
    const web = clientFor(s, alice.user, await sessionCookie(s.store, alice.user));
    const link = await createLink(s, alice, { slug: 'web-email', visibility: 'secure' });
    const owner = await web.send('POST', `/dashboard/links/${link.id}/owners`, { email: typed(carol) }, { htmx: true });
    assert.equal(owner.status, 200, owner.body);
    assert.deepEqual(await ownerIds(link.id), [alice.user.id, carol.id].sort());

    const other = await createLink(s, alice, { slug: 'web-email-share', visibility: 'secure' });
    const share = await web.send('POST', `/dashboard/links/${other.id}/shares`, { email: typed(carol) }, { htmx: true });
    assert.equal(share.status, 200, share.body);
    assert.deepEqual(await shareIds(other.id), [carol.id]);

    const nobody = await web.send('POST', `/dashboard/links/${other.id}/shares`, { email: 'nobody@example.test' }, { htmx: true });
    assert.match(nobody.body, /Nobody with that email has signed in yet\./);
    assert.deepEqual(await shareIds(other.id), [carol.id]);
  });

  test('REST: owners and shares', async () => {
    const link = await createLink(s, alice, { slug: 'rest-email', visibility: 'secure' });
    const owner = await call(s, 'POST', `/api/v1/links/${link.id}/owners`, { as: alice, body: { email: typed(carol) } });
    assert.equal(owner.status, 201, owner.text);
    assert.equal(owner.body.id, carol.id);
    const share = await call(s, 'POST', `/api/v1/links/${link.id}/shares`, { as: alice, body: { email: typed(carol) } });
    assert.equal(share.status, 201, share.text);
    assert.deepEqual(await shareIds(link.id), [carol.id]);
    const nobody = await call(s, 'POST', `/api/v1/links/${link.id}/owners`, { as: alice, body: { email: 'nobody@example.test' } });
    assert.equal(nobody.status, 404, nobody.text);
  });

  test('MCP: add_co_owner and share_link', async () => {
    const agent = await mcpClient(s, alice);
    try {
      const link = await createLink(s, alice, { slug: 'mcp-email', visibility: 'secure' });
      await ok(agent, 'add_co_owner', { link: 'mcp-email', email: typed(carol) });
      assert.deepEqual(await ownerIds(link.id), [alice.user.id, carol.id].sort());
      await ok(agent, 'share_link', { link: 'mcp-email', email: typed(carol) });
      assert.deepEqual(await shareIds(link.id), [carol.id]);
      await refused(agent, 'share_link', { link: 'mcp-email', email: 'nobody@example.test' }, 'unknown_user');
    } finally {
      await agent.close();
    }
  });

  test('CLI: links create --owner', async () => {
    const { config } = s.database;
    const run = (owner: string) =>
      spawnSync(
        process.execPath,
        [...CLI_ARGS, 'links', 'create', '--slug', `cli-${owner.length}`, '--url', 'https://c.test', '--owner', owner],
        {
          env: { ...process.env, JOE_DB_DRIVER: config.driver, JOE_DB_DSN: config.dsn },
          encoding: 'utf8',
        },
      );
    const made = run(typed(carol));
    assert.equal(made.status, 0, made.stderr);
    const slug = /^created (\S+)/.exec(made.stdout)?.[1];
    assert.ok(slug, made.stdout);
    const link = await s.store.links.getBySlug(slug);
    assert.deepEqual(await ownerIds(link!.id), [carol.id]);
    const refusedRun = run('nobody@example.test');
    assert.notEqual(refusedRun.status, 0);
    assert.match(refusedRun.stderr, /no user with email nobody@example\.test/);
  });
});
