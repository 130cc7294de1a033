import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase } from '../helpers/databases.js';

describeEachDatabase('sign-in identity store', (ctx) => {
  const ISS = 'https://idp.example';
  const USER = { role: 'user', roleSource: 'manual' } as const;

  test('the first OIDC login inserts, later ones refresh profile fields and never the role', async () => {
    const { store, clock } = ctx();
    const created = await store.identities.upsertOidc(
      { issuer: ISS, subject: 'o-1', email: 'olga@x.io', emailVerified: true, name: 'Olga Berg' },
      USER,
    );
    assert.equal(created.provider, ISS);
    assert.equal(created.subject, 'o-1');
    assert.equal(created.displayNameSlug, 'olga-berg');
    assert.equal(created.role, 'user');
    await store.users.setRole(created.id, 'admin', 'manual');
    clock.now += 1000;
    const again = await store.identities.upsertOidc(
      { issuer: ISS, subject: 'o-1', email: 'olga.berg@x.io', emailVerified: true, name: "Olga O'Berg" },
      { role: 'user', roleSource: 'config' },
    );
    assert.equal(again.id, created.id);
    assert.equal(again.email, 'olga.berg@x.io');
    assert.equal(again.displayName, "Olga O'Berg");
    assert.equal(again.displayNameSlug, 'olga-oberg');
    assert.equal(again.role, 'admin');
    assert.equal(again.roleSource, 'manual');
    assert.equal(again.updatedAt, clock.now);
    const blank = await store.identities.upsertOidc(
      { issuer: ISS, subject: 'o-1', email: 'olga.berg@x.io', emailVerified: true, name: '' },
      USER,
    );
    assert.equal(blank.displayName, "Olga O'Berg", 'an empty name claim keeps the name');
  });

  test('a new row can start as a configured admin, and profile slugs get -2 on collision', async () => {
    const { store } = ctx();
    const one = await store.identities.upsertOidc(
      { issuer: ISS, subject: 'p-1', email: 'p1@x.io', emailVerified: true, name: 'Pat Doe' },
      { role: 'admin', roleSource: 'config' },
    );
    const two = await store.identities.upsertOidc(
      { issuer: ISS, subject: 'p-2', email: 'p2@x.io', emailVerified: true, name: 'Pat Doe' },
      USER,
    );
    assert.equal(one.role, 'admin');
    assert.equal(one.roleSource, 'config');
    assert.equal(one.displayNameSlug, 'pat-doe');
    assert.equal(two.displayNameSlug, 'pat-doe-2');
    const noName = await store.identities.upsertOidc(
      { issuer: ISS, subject: 'p-3', email: 'quinn@x.io', emailVerified: false, name: '' },
      USER,
    );
    assert.equal(noName.displayName, 'quinn');
  });

  test('a verified email adopts the matching local account; an unverified one does not', async () => {
    const { store } = ctx();
    const local = await store.users.create({ email: 'Rita@X.io', displayName: 'Rita' });
    const tok = await store.tokens.create(local.id, 'kept');
    const stranger = await store.identities.upsertOidc(
      { issuer: ISS, subject: 'r-evil', email: 'rita@x.io', emailVerified: false, name: 'Rita?' },
      USER,
    );
    assert.notEqual(stranger.id, local.id, 'an unverified email never takes over an account');
    const adopted = await store.identities.upsertOidc(
      { issuer: ISS, subject: 'r-1', email: 'rita@x.io', emailVerified: true, name: 'Rita Real' },
      USER,
    );
    assert.equal(adopted.id, local.id);
    assert.equal(adopted.provider, ISS);
    assert.equal(adopted.subject, 'r-1');
    assert.equal(adopted.email, 'rita@x.io');
    assert.equal((await store.tokens.authenticate(tok.plaintext))?.user.id, local.id, 'tokens stay with the account');
    const again = await store.identities.upsertOidc(
      { issuer: ISS, subject: 'r-2', email: 'rita@x.io', emailVerified: true, name: 'Rita Two' },
      USER,
    );
    assert.notEqual(again.id, local.id, 'an adopted account is no longer local, so it is not adopted twice');
  });

  test('concurrent first logins of one identity make one row', async () => {
    const { store, db } = ctx();
    const id = { issuer: ISS, subject: 'race-1', email: 'race@x.io', emailVerified: true, name: 'Race Person' };
    const users = await Promise.all(Array.from({ length: 5 }, () => store.identities.upsertOidc(id, USER)));
    assert.equal(new Set(users.map((u) => u.id)).size, 1);
    const rows = await db.kysely.selectFrom('users').select('id').where('subject', '=', 'race-1').execute();
    assert.equal(rows.length, 1);
  });

  test('forward-auth finds or creates a local user named after the email', async () => {
    const { store } = ctx();
    const made = await store.identities.findOrCreateLocal('Sam.Lee@Example.com');
    assert.equal(made.provider, 'local');
    assert.equal(made.subject, 'sam.lee@example.com');
    assert.equal(made.displayName, 'Sam.Lee');
    assert.equal((await store.identities.findOrCreateLocal('sam.lee@example.com')).id, made.id);
    const oidc = await store.identities.upsertOidc(
      { issuer: ISS, subject: 't-1', email: 'tia@x.io', emailVerified: true, name: 'Tia' },
      USER,
    );
    assert.equal((await store.identities.findOrCreateLocal('tia@x.io')).id, oidc.id, 'an existing account with the email is used');
    const racers = await Promise.all(Array.from({ length: 5 }, () => store.identities.findOrCreateLocal('uma@x.io')));
    assert.equal(new Set(racers.map((u) => u.id)).size, 1);
  });

  test('configuration role writes and the bootstrap admin', async () => {
    const { store, db } = ctx();
    const v = await store.users.create({ email: 'vic@x.io' });
    await store.identities.setRoleFromConfig(v.id, 'admin');
    const promoted = await store.users.findById(v.id);
    assert.equal(promoted?.role, 'admin');
    assert.equal(promoted?.roleSource, 'config');
    assert.equal(await store.identities.ensureBootstrapAdmin('admin@localhost'), null, 'an admin exists');

    await db.kysely.updateTable('users').set({ role: 'user' }).execute();
    const boot = await store.identities.ensureBootstrapAdmin('admin@localhost');
    assert.equal(boot?.action, 'created');
    assert.equal(boot?.user.role, 'admin');
    assert.equal(boot?.user.roleSource, 'manual');
    assert.equal(boot?.user.provider, 'local');

    await db.kysely.updateTable('users').set({ role: 'user' }).execute();
    const again = await store.identities.ensureBootstrapAdmin('vic@x.io');
    assert.equal(again?.action, 'promoted');
    assert.equal(again?.user.id, v.id);
    assert.equal(again?.user.roleSource, 'manual');
  });
});
