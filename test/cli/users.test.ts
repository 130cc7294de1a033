import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { connect, type Db } from '../../src/db/connect.js';
import { migrateUp } from '../../src/db/migrate.js';
import { asSystem } from '../../src/links/index.js';
import { createStore, type Store } from '../../src/store/index.js';
import type { User } from '../../src/store/types.js';
import { CLI_ARGS } from '../helpers/cli.js';
import { addOwner, createLink, linkService } from '../helpers/links.js';

/**
 * `joe-links users delete` as an operator runs it (docs/auth.md#deleting-a-user): the links
 * the user was primary owner of go to a co-owner or the successor, or are deleted on request,
 * and the command says where they went. Refusals change nothing.
 */

describe('joe-links users delete', () => {
  let dir: string;
  let dsn: string;
  let db: Db;
  let store: Store;
  const run = (...args: string[]) =>
    spawnSync(process.execPath, [...CLI_ARGS, 'users', ...args], {
      cwd: dir,
      env: { ...process.env, JOE_DB_DSN: dsn },
      encoding: 'utf8',
    });
  const user = (email: string) => store.users.create({ email, displayName: email.split('@')[0]! });
  const primaryOf = async (slug: string) => {
    const link = await store.links.getBySlug(slug);
    if (!link) return null;
    const view = await store.links.view(link.id);
    return view!.owners.find((o) => o.isPrimary)!.email;
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'joe-links-users-'));
    dsn = join(dir, 'users.db');
    db = connect({ driver: 'sqlite3', dsn });
    await migrateUp(db);
    store = createStore(db);
  });
  after(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('with --successor the links go on and the command counts where', async () => {
    const ann = await user('ann@example.test');
    const ben = await user('ben@example.test');
    const cat = await user('cat@example.test');
    await createLink(store, { slug: 'solo', url: 'https://solo.test' }, ann.id);
    const team = await createLink(store, { slug: 'team', url: 'https://team.test' }, ann.id);
    await addOwner(store, team.id, ben.id);
    const bens = await createLink(store, { slug: 'bens', url: 'https://bens.test' }, ben.id);
    await addOwner(store, bens.id, ann.id);
    await linkService(store).createGroup(asSystem('test'), { name: 'eng' }, ann);

    const r = run('delete', 'ann@example.test', '--successor', 'cat@example.test');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(
      r.stdout,
      [
        `deleted ann@example.test (${ann.id})`,
        '1 link(s) they were primary owner of went to cat@example.test',
        '1 link(s) they were primary owner of went to a co-owner',
        '1 group(s) they managed alone are now managed by cat@example.test',
        '1 link(s) they co-owned lost them as co-owner',
        '',
      ].join('\n'),
    );
    assert.equal(await store.users.findById(ann.id), null);
    assert.equal(await primaryOf('solo'), 'cat@example.test');
    assert.equal(await primaryOf('team'), 'ben@example.test');
    assert.equal(await primaryOf('bens'), 'ben@example.test');
    const eng = (await store.groups.byName('eng'))!;
    assert.equal(await store.groups.role(eng.id, cat.id), 'manager');
  });

  test('with --delete-links their links go; a user by id who owns nothing needs neither option', async () => {
    const dee = await user('dee@example.test');
    await createLink(store, { slug: 'dees', url: 'https://dees.test' }, dee.id);
    const r = run('delete', 'dee@example.test', '--delete-links');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^1 link\(s\) they were primary owner of were deleted$/m);
    assert.equal(await primaryOf('dees'), null);
    assert.equal(await store.users.findById(dee.id), null);

    const eve = await user('eve@example.test');
    const byId = run('delete', eve.id);
    assert.equal(byId.status, 0, byId.stderr);
    assert.match(byId.stdout, /^deleted eve@example.test/);
    assert.equal(await store.users.findById(eve.id), null);
  });

  test('bad input is one line naming the problem, a non-zero exit, and nothing changed', async () => {
    const fay: User = await user('fay@example.test');
    await createLink(store, { slug: 'fays', url: 'https://fays.test' }, fay.id);
    const refusals: [string[], string][] = [
      [
        ['delete', 'fay@example.test'],
        'joe-links: fay@example.test is primary owner of links: pass --successor <email> to hand them on, or --delete-links to delete them\n',
      ],
      [
        ['delete', 'fay@example.test', '--successor', 'nobody@example.test'],
        'joe-links: no user with email nobody@example.test (--successor)\n',
      ],
      [
        ['delete', 'fay@example.test', '--successor', 'fay@example.test'],
        'joe-links: --successor: the successor cannot be the user being deleted\n',
      ],
      [
        ['delete', 'fay@example.test', '--successor', 'ben@example.test', '--delete-links'],
        'joe-links: --successor and --delete-links exclude each other: a successor takes over the links\n',
      ],
      [['delete', 'nobody@example.test'], 'joe-links: no user with email nobody@example.test\n'],
      [['delete', '00000000-0000-4000-8000-000000000000'], 'joe-links: no user with id 00000000-0000-4000-8000-000000000000\n'],
    ];
    for (const [args, message] of refusals) {
      const r = run(...args);
      assert.equal(r.status, 1, args.join(' '));
      assert.equal(r.stderr, message, args.join(' '));
      assert.equal(r.stdout, '');
    }
    assert.ok(await store.users.findById(fay.id));
    assert.equal(await primaryOf('fays'), 'fay@example.test');
  });
});
