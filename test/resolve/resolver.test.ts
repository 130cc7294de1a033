import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { Resolver, type ResolveRequest, type Resolution, type ViewerSource } from '../../src/resolve/resolver.js';
import type { User } from '../../src/store/types.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { addShare, createLink, removeShare } from '../helpers/links.js';

/**
 * The resolver itself, on every database: on an SQLite file every kind of
 * resolution comes back synchronously (no promise turn on the redirect
 * path); on PostgreSQL and MySQL the same steps come back as a promise with
 * the same answer.
 */
describeEachDatabase('the resolver', (ctx) => {
  let resolver: Resolver;
  let owner: User;
  let stranger: User;
  const tokens = new Map<string, string>();

  before(async () => {
    const { store, clock } = ctx();
    resolver = new Resolver(store);
    owner = await store.users.create({ email: 'owner@resolver.test', displayName: 'Owner' });
    stranger = await store.users.create({ email: 'stranger@resolver.test', displayName: 'Stranger' });
    const recipient = await store.users.create({ email: 'recipient@resolver.test', displayName: 'Recipient' });
    for (const u of [owner, stranger, recipient]) {
      const token = `${u.displayName.padEnd(43, 'x')}`.slice(0, 43);
      await store.sessions.create(token, { userId: u.id, role: u.role, createdAt: clock.now }, clock.now + 3_600_000);
      tokens.set(u.displayName, token);
    }
    await createLink(store, { slug: 'plain', url: 'https://plain.test/' }, owner.id);
    const vault = await createLink(store, { slug: 'vault', url: 'https://vault.test/', visibility: 'secure' }, owner.id);
    await addShare(store, vault.id, recipient.id, owner.id);
    await createLink(store, { slug: 'jira', url: 'https://jira.test/browse/$ticket' }, owner.id);
    await store.keywords.create({ keyword: 'wiki', urlTemplate: 'https://wiki.test/{slug}' });
  });

  const session = (name: string): ViewerSource => ({ kind: 'session', token: tokens.get(name)! });
  const ask = (path: string, viewer: ViewerSource, host = 'go.example.test'): Promise<Resolution> => {
    const req: ResolveRequest = { path, host, viewer };
    const answer = resolver.resolve(req);
    const { driver, config } = ctx();
    const onFile = driver === 'sqlite3' && config.dsn !== ':memory:';
    assert.equal(answer instanceof Promise, !onFile, `${path}: ${onFile ? 'synchronous on an SQLite file' : 'a promise'}`);
    return Promise.resolve(answer);
  };

  test('a plain link for anyone, the click naming the signed-in user', async () => {
    assert.deepEqual(await ask('plain', { kind: 'anonymous' }), {
      kind: 'redirect',
      location: 'https://plain.test/',
      linkId: (await ctx().store.links.getBySlug('plain'))!.id,
      userId: null,
      htmxAware: true,
    });
    const signedIn = await ask('plain', session('Owner'));
    assert.equal(signedIn.kind === 'redirect' && signedIn.userId, owner.id);
  });

  test('a secure link: sign in, forbidden, or through for its owner and recipient', async () => {
    assert.deepEqual(await ask('vault', { kind: 'anonymous' }), { kind: 'login' });
    assert.deepEqual(await ask('vault', session('Stranger')), { kind: 'forbidden' });
    assert.equal((await ask('vault', session('Owner'))).kind, 'redirect');
    assert.equal((await ask('vault', session('Recipient'))).kind, 'redirect');
    assert.equal((await ask('vault', { kind: 'known', user: stranger })).kind, 'forbidden', 'a viewer the web layer knows');
  });

  test('templates, keyword paths and keyword hosts', async () => {
    const filled = await ask('jira/ABC-1', session('Owner'));
    assert.equal(filled.kind === 'redirect' && filled.location, 'https://jira.test/browse/ABC-1');
    const byHost = await ask('Some/Page', { kind: 'anonymous' }, 'wiki');
    assert.deepEqual(byHost, { kind: 'redirect', location: 'https://wiki.test/Some/Page', linkId: null, userId: null, htmxAware: false });
    const byPath = await ask('wiki/Home', { kind: 'anonymous' });
    assert.equal(byPath.kind === 'redirect' && byPath.location, 'https://wiki.test/Home');
  });

  test('misses, an unknown session, and a forward-auth user never seen are told apart', async () => {
    assert.deepEqual(await ask('nothing', session('Owner')), { kind: 'not_found', slug: 'nothing', offerCreate: true });
    const unknown: ViewerSource = { kind: 'session', token: 'n'.repeat(43) };
    assert.equal((await ask('plain', unknown)).kind === 'redirect' && 'anonymous', 'anonymous');
    assert.deepEqual(await ask('plain', { kind: 'proxied', email: 'new@resolver.test' }), { kind: 'handoff' });
    const known = await ask('vault', { kind: 'proxied', email: ' OWNER@resolver.test ' });
    assert.equal(known.kind === 'redirect' && known.userId, owner.id, 'the email rule: trimmed, any case');
  });

  test('a secure link reads the session and what its user holds afresh on every request', async () => {
    const { store, clock } = ctx();
    const vault = (await store.links.getBySlug('vault'))!;
    const guest = await store.users.create({ email: 'guest@resolver.test', displayName: 'Guest' });
    const token = 'g'.repeat(43);
    await store.sessions.create(token, { userId: guest.id, role: guest.role, createdAt: clock.now }, clock.now + 60_000);
    const guestSession: ViewerSource = { kind: 'session', token };
    assert.deepEqual(await ask('vault', guestSession), { kind: 'forbidden' });
    await addShare(store, vault.id, guest.id, owner.id);
    const through = await ask('vault', guestSession);
    assert.equal(through.kind === 'redirect' && through.userId, guest.id, 'a new share applies at once');
    await removeShare(store, vault.id, guest.id);
    assert.deepEqual(await ask('vault', guestSession), { kind: 'forbidden' }, 'so does a revoked one');
    await store.users.setRole(guest.id, 'admin', 'manual');
    assert.equal((await ask('vault', guestSession)).kind, 'redirect', 'an admin sees every link');
    await store.users.setRole(guest.id, 'user', 'manual');
    assert.deepEqual(await ask('vault', guestSession), { kind: 'forbidden' }, 'and a demoted one no longer');
    clock.now += 60_000;
    assert.deepEqual(await ask('vault', guestSession), { kind: 'login' }, 'an expired session is nobody');
    clock.now -= 60_000;
    await store.sessions.delete(token);
    assert.deepEqual(await ask('vault', guestSession), { kind: 'login' }, 'a signed-out one too');
    assert.deepEqual(await ask('vault', { kind: 'session', token: 'n'.repeat(43) }), { kind: 'login' });
  });

  test('a session whose user was deleted is handed back to the web layer, secure link or not', async () => {
    const { store, db, clock } = ctx();
    const gone = await store.users.create({ email: 'gone@resolver.test', displayName: 'Gone' });
    const token = 'd'.repeat(43);
    await store.sessions.create(token, { userId: gone.id, role: gone.role, createdAt: clock.now }, clock.now + 60_000);
    await db.kysely.deleteFrom('users').where('id', '=', gone.id).execute();
    assert.deepEqual(await ask('vault', { kind: 'session', token }), { kind: 'handoff' });
    assert.deepEqual(await ask('plain', { kind: 'session', token }), { kind: 'handoff' });
  });
});
