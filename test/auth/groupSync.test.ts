import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { asSystem } from '../../src/links/index.js';
import type { Store } from '../../src/store/index.js';
import { get, startTestServer, type RawResponse, type TestServer } from '../helpers/server.js';
import { login, newBrowser, startOidcProvider, type TestProvider } from './support/oidcProvider.js';
import { startProbedServer, type ProbedServer } from './support/probes.js';

/**
 * Group membership from sign-in (docs/groups.md#members-from-sign-in): the groups an OIDC
 * claim or a forward-auth header names decide a person's membership of the groups an admin
 * marked synced, and of no other group.
 */

/** The groups `email` is a member of, by name, with their role. */
async function membership(store: Store, email: string): Promise<string[]> {
  const user = await store.users.findByEmail(email);
  assert.ok(user, `${email} exists`);
  const out: string[] = [];
  for (const name of ['eng', 'ops', 'design', 'docs', 'unknown']) {
    const g = await store.groups.byName(name);
    const role = g ? await store.groups.role(g.id, user.id) : null;
    if (role) out.push(`${name}:${role}`);
  }
  return out;
}

/** eng and ops follow sign-in; design (which Alice and Bob joined by hand) and docs do not. */
async function seedGroups(s: TestServer, handMembers: string[]): Promise<void> {
  const op = asSystem('test');
  for (const name of ['eng', 'ops', 'design', 'docs']) await s.links.createGroup(op, { name });
  for (const email of handMembers) {
    await s.store.users.create({ email, displayName: email.split('@')[0]! });
    await s.links.addGroupMember(op, 'design', email);
  }
  await s.links.updateGroup(op, 'eng', { managedBySignIn: true });
  await s.links.updateGroup(op, 'ops', { managedBySignIn: true });
}

describe('OIDC sign-in keeps synced groups in step with the groups claim', () => {
  let idp: TestProvider;
  let s: TestServer;
  before(async () => {
    idp = await startOidcProvider();
    s = await startTestServer({ env: idp.env() });
    await seedGroups(s, ['alice@example.com']);
  });
  after(async () => {
    await s.stop();
    await idp.stop();
  });

  const signIn = async (sub: string, groups: unknown) => {
    idp.accounts.set(sub, { email: `${sub}@example.com`, email_verified: true, name: sub, groups });
    const r = await login(s.url, newBrowser(), sub);
    assert.equal(r.status, 302, await r.text());
  };

  test('a sign-in joins the synced groups the claim names, as member; other groups are untouched', async () => {
    await signIn('alice', ['ENG', 'design', 'docs', 'unknown']);
    assert.deepEqual(await membership(s.store, 'alice@example.com'), ['eng:member', 'design:member']);
    assert.equal(await s.store.groups.byName('unknown'), null, 'a claim value no group has creates none');
  });

  test('the next sign-in with the claim changed leaves and joins accordingly; hand-made memberships stay', async () => {
    await signIn('alice', ['ops']);
    assert.deepEqual(await membership(s.store, 'alice@example.com'), ['ops:member', 'design:member']);
    await signIn('alice', ['ops', 'eng']);
    assert.deepEqual(await membership(s.store, 'alice@example.com'), ['eng:member', 'ops:member', 'design:member']);
  });

  test('a claim that is absent or not a list names no group', async () => {
    await signIn('bob', ['eng']);
    assert.deepEqual(await membership(s.store, 'bob@example.com'), ['eng:member']);
    await signIn('bob', 'eng');
    assert.deepEqual(await membership(s.store, 'bob@example.com'), []);
    await signIn('bob', ['eng']);
    await signIn('bob', undefined);
    assert.deepEqual(await membership(s.store, 'bob@example.com'), []);
  });

  test('a group handed back to its managers keeps its members and no longer follows sign-in', async () => {
    await signIn('cleo', ['eng']);
    await s.links.updateGroup(asSystem('test'), 'eng', { managedBySignIn: false });
    await signIn('cleo', []);
    assert.deepEqual(await membership(s.store, 'cleo@example.com'), ['eng:member']);
    await s.links.updateGroup(asSystem('test'), 'eng', { managedBySignIn: true });
  });
});

describe('forward-auth keeps synced groups in step with JOE_FORWARD_AUTH_GROUPS_HEADER', () => {
  let p: ProbedServer;
  const EMAIL = 'x-forwarded-email';
  const GROUPS = 'remote-groups';
  const cookieOf = (r: RawResponse) =>
    /^session=([^;]+)/.exec((r.headers.raw['set-cookie'] ?? []).find((c) => c.startsWith('session=')) ?? '')?.[1];
  before(async () => {
    p = await startProbedServer({
      JOE_AUTH_PROXY_HEADER: 'X-Forwarded-Email',
      JOE_FORWARD_AUTH_GROUPS_HEADER: 'Remote-Groups',
      JOE_TRUSTED_PROXIES: '127.0.0.1, ::1',
    });
    await seedGroups(p.s, ['dana@corp.io']);
  });
  after(async () => p.s.stop());

  test('the login applies the header; a changed header applies on the next request of the same session', async () => {
    const first = await get(`${p.s.url}/dashboard/probe`, { [EMAIL]: 'dana@corp.io', [GROUPS]: 'eng, Design,unknown' });
    assert.equal(first.status, 200);
    const token = cookieOf(first);
    assert.ok(token);
    assert.deepEqual(await membership(p.s.store, 'dana@corp.io'), ['eng:member', 'design:member']);

    const changed = await get(`${p.s.url}/dashboard/probe`, { [EMAIL]: 'dana@corp.io', [GROUPS]: 'ops', cookie: `session=${token}` });
    assert.equal(changed.status, 200);
    assert.equal(cookieOf(changed), undefined, 'the same session: no new login');
    assert.deepEqual(await membership(p.s.store, 'dana@corp.io'), ['ops:member', 'design:member']);

    const none = await get(`${p.s.url}/dashboard/probe`, { [EMAIL]: 'dana@corp.io', cookie: `session=${token}` });
    assert.equal(none.status, 200);
    assert.deepEqual(await membership(p.s.store, 'dana@corp.io'), ['design:member'], 'no header names no group');
  });

  test('an unchanged header is not applied again until it changes or the person signs in anew', async () => {
    const first = await get(`${p.s.url}/dashboard/probe`, { [EMAIL]: 'eli@corp.io', [GROUPS]: 'eng' });
    const token = cookieOf(first)!;
    assert.deepEqual(await membership(p.s.store, 'eli@corp.io'), ['eng:member']);
    // Taken out behind sign-in's back (an admin handing the group back and forth, say).
    const eli = (await p.s.store.users.findByEmail('eli@corp.io'))!;
    const eng = (await p.s.store.groups.byName('eng'))!;
    await p.s.store.transaction((tx) => p.s.store.groups.removeMember(eng.id, eli.id, tx));

    const same = await get(`${p.s.url}/dashboard/probe`, { [EMAIL]: 'eli@corp.io', [GROUPS]: ' ENG ', cookie: `session=${token}` });
    assert.equal(same.status, 200);
    assert.deepEqual(await membership(p.s.store, 'eli@corp.io'), [], 'the same groups: nothing read, nothing written');

    const again = await get(`${p.s.url}/dashboard/probe`, { [EMAIL]: 'eli@corp.io', [GROUPS]: 'eng' });
    assert.ok(cookieOf(again), 'a new login');
    assert.deepEqual(await membership(p.s.store, 'eli@corp.io'), ['eng:member']);
  });
});
