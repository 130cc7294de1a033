import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { connect, type Db } from '../../src/db/connect.js';
import { migrateUp } from '../../src/db/migrate.js';
import { createStore, type Store } from '../../src/store/index.js';
import { asSystem } from '../../src/links/index.js';
import { CLI_ARGS } from '../helpers/cli.js';
import { linkService } from '../helpers/links.js';

/**
 * `joe-links groups …` as an operator runs it (docs/groups.md): the compiled command against
 * a database file, read back through the store; refusals are one line naming the problem, a
 * non-zero exit, and nothing written.
 */

describe('joe-links groups', () => {
  let dir: string;
  let dsn: string;
  let db: Db;
  let store: Store;
  const run = (...args: string[]) =>
    spawnSync(process.execPath, [...CLI_ARGS, 'groups', ...args], {
      cwd: dir,
      env: { ...process.env, JOE_DB_DSN: dsn },
      encoding: 'utf8',
    });
  const members = async (name: string) => {
    const g = await store.groups.byName(name);
    assert.ok(g, `group ${name} exists`);
    return (await store.groups.members(g.id)).map((m) => `${m.email}:${m.role}`);
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'joe-links-groups-'));
    dsn = join(dir, 'groups.db');
    db = connect({ driver: 'sqlite3', dsn });
    await migrateUp(db);
    store = createStore(db);
    await store.users.create({ email: 'ann@example.test', displayName: 'Ann' });
    await store.users.create({ email: 'ben@example.test', displayName: 'Ben' });
  });
  after(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('create, add and remove members, list, show and delete a group', async () => {
    const created = run('create', 'platform', '--description', 'The platform team', '--manager', 'ann@example.test');
    assert.equal(created.status, 0, created.stderr);
    assert.match(created.stdout, /^created group platform \([0-9a-f-]{36}\), managed by ann@example.test\n$/);
    assert.deepEqual(await members('platform'), ['ann@example.test:manager']);

    const added = run('add-member', 'platform', 'BEN@example.test ');
    assert.equal(added.status, 0, added.stderr);
    assert.equal(added.stdout, 'added ben@example.test to platform as member\n');
    assert.deepEqual(await members('platform'), ['ann@example.test:manager', 'ben@example.test:member']);

    assert.equal(run('create', 'ops').status, 0, 'a group without a manager, left to the admins');
    assert.deepEqual(await members('ops'), []);
    assert.equal(run('add-member', 'ops', 'ben@example.test', '--role', 'manager').status, 0);
    assert.deepEqual(await members('ops'), ['ben@example.test:manager']);

    const list = run('list');
    assert.equal(list.status, 0, list.stderr);
    assert.equal(list.stdout, 'ops\t1\tmanual\t\nplatform\t2\tmanual\tThe platform team\n');

    const show = run('show', 'platform');
    assert.equal(show.status, 0, show.stderr);
    assert.equal(
      show.stdout,
      'platform\tmembers managed by hand\tThe platform team\nann@example.test\tmanager\tAnn\nben@example.test\tmember\tBen\n',
    );

    const removed = run('remove-member', 'platform', 'ben@example.test');
    assert.equal(removed.status, 0, removed.stderr);
    assert.deepEqual(await members('platform'), ['ann@example.test:manager']);

    const deleted = run('delete', 'ops');
    assert.equal(deleted.status, 0, deleted.stderr);
    assert.equal(deleted.stdout, 'deleted group ops\n');
    assert.equal(await store.groups.byName('ops'), null);
  });

  test('bad input is one line naming the problem, a non-zero exit, and nothing changed', async () => {
    assert.equal(run('create', 'eng', '--manager', 'ann@example.test').status, 0);
    const before = await members('eng');
    const refusals: [string[], RegExp][] = [
      [['create', 'Bad Name'], /^joe-links: group name must be 1 to 128 lowercase letters/],
      [['create', 'eng'], /^joe-links: a group named "eng" already exists\n$/],
      [['create', 'other', '--manager', 'nobody@example.test'], /^joe-links: no user with email nobody@example.test/],
      [['show', 'nope'], /^joe-links: no group named nope\n$/],
      [['delete', 'nope'], /^joe-links: no group named nope\n$/],
      [['add-member', 'eng', 'nobody@example.test'], /^joe-links: no user with email nobody@example.test\n$/],
      [['add-member', 'eng', 'ann@example.test'], /^joe-links: ann@example.test is already a member of eng\n$/],
      [['add-member', 'eng', 'ben@example.test', '--role', 'owner'], /^joe-links: role must be member or manager\n$/],
      [['remove-member', 'eng', 'ben@example.test'], /^joe-links: ben@example.test is not a member of eng\n$/],
      [['add-member', 'nope', 'ben@example.test'], /^joe-links: no group named nope\n$/],
    ];
    for (const [args, message] of refusals) {
      const r = run(...args);
      assert.notEqual(r.status, 0, args.join(' '));
      assert.match(r.stderr, message, args.join(' '));
      assert.equal(r.stdout, '', args.join(' '));
    }
    assert.deepEqual(await members('eng'), before);
    assert.equal(await store.groups.byName('other'), null);
    assert.equal(await store.groups.byName('bad name'), null);
  });

  test('the members of a group that follows sign-in are not edited by hand', async () => {
    assert.equal(run('create', 'staff').status, 0);
    assert.equal(run('add-member', 'staff', 'ann@example.test').status, 0);
    await linkService(store).updateGroup(asSystem('test'), 'staff', { managedBySignIn: true });
    assert.match(run('list').stdout, /^staff\t1\tsynced\t$/m);
    assert.match(run('show', 'staff').stdout, /^staff\tmembers follow sign-in\t/);

    for (const args of [
      ['add-member', 'staff', 'ben@example.test'],
      ['remove-member', 'staff', 'ann@example.test'],
    ]) {
      const r = run(...args);
      assert.equal(r.status, 1, args.join(' '));
      assert.equal(r.stderr, "joe-links: the members of staff follow sign-in's groups and cannot be changed here\n");
    }
    assert.deepEqual(await members('staff'), ['ann@example.test:member']);
  });
});
