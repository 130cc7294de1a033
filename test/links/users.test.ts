import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { AppError } from '../../src/domain/errors.js';
import { asSystem, asUser, UserService } from '../../src/links/index.js';
import { describeEachDatabase } from '../helpers/databases.js';

/**
 * Accounts added and roles set by hand through their one service
 * (docs/auth.md#local-mode, docs/auth.md#roles-and-admin-grants), on every
 * database: the email rule, who may do it, and nothing written on a refusal.
 */

describeEachDatabase('user service', (ctx) => {
  const operator = asSystem('cli');

  test('invalid emails are refused', async () => {
    const { store } = ctx();
    const users = new UserService(store);
    const before = await store.users.count();
    for (const email of ['', 'no-at-sign', 'two@@example.com', 'sp ace@example.com', `${'a'.repeat(250)}@e.co`]) {
      await assert.rejects(
        users.create(operator, { email }),
        (e) => e instanceof AppError && e.code === 'BAD_REQUEST' && e.message === `invalid email address: "${email}"`,
        email,
      );
    }
    await assert.rejects(users.create(operator, { email: 'n\u0000l@example.com' }), {
      code: 'BAD_REQUEST',
      message: 'email must not contain NUL characters',
    });
    await assert.rejects(users.create(operator, { email: 'nul@example.com', displayName: 'N\u0000' }), {
      code: 'BAD_REQUEST',
      message: 'name must not contain NUL characters',
    });
    assert.equal(await store.users.count(), before, 'nothing was inserted');
  });

  test('a local account with the trimmed email, a manual role and the local part as its default name', async () => {
    const { store } = ctx();
    const users = new UserService(store);
    const made = await users.create(operator, { email: '  Dana.Dev@Example.com ', role: 'admin' });
    assert.equal(made.email, 'Dana.Dev@Example.com');
    assert.equal(made.displayName, 'Dana.Dev');
    assert.equal(made.role, 'admin');
    assert.equal(made.roleSource, 'manual');
    assert.equal(made.provider, 'local');
    assert.equal(made.subject, 'dana.dev@example.com');
    await assert.rejects(
      users.create(operator, { email: 'dana.dev@example.com' }),
      /a user with email dana\.dev@example\.com already exists/,
    );
  });

  test('setRole: by hand, kept as manual; an unknown id is not found', async () => {
    const { store } = ctx();
    const users = new UserService(store);
    const admin = await store.users.create({ email: `role-admin-${randomUUID()}@example.test`, role: 'admin' });
    const target = await store.users.create({ email: `role-target-${randomUUID()}@example.test` });
    await store.identities.setRoleFromConfig(target.id, 'user');
    const promoted = await users.setRole(asUser(admin, 'api'), target.id, 'admin');
    assert.equal(promoted.role, 'admin');
    assert.equal(promoted.roleSource, 'manual');
    const notFound = (e: unknown) => e instanceof AppError && e.code === 'NOT_FOUND' && e.message === 'user not found';
    await assert.rejects(users.setRole(operator, randomUUID(), 'admin'), notFound);
    await assert.rejects(users.setRole(operator, 'not-an-id', 'admin'), notFound);
  });

  test('only admins and the operator add accounts or set roles', async () => {
    const { store } = ctx();
    const users = new UserService(store);
    const user = await store.users.create({ email: `plain-${randomUUID()}@example.test` });
    const before = await store.users.count();
    const forbidden = (e: unknown) => e instanceof AppError && e.code === 'FORBIDDEN' && e.status === 403;
    await assert.rejects(users.create(asUser(user, 'web'), { email: `new-${randomUUID()}@example.test` }), forbidden);
    await assert.rejects(users.setRole(asUser(user, 'api'), user.id, 'admin'), forbidden);
    assert.equal(await store.users.count(), before);
    assert.equal((await store.users.findById(user.id))!.role, 'user');
  });
});
