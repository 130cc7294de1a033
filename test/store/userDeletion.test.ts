import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { AppError, type ErrorCode } from '../../src/domain/errors.js';
import type { Store } from '../../src/store/index.js';
import type { LinkAction, UserDeletion } from '../../src/links/index.js';
import type { User } from '../../src/store/types.js';
import { describeEachDatabase, type DbContext } from '../helpers/databases.js';
import { addOwner, addShare, createLink, deleteUser, removeShare } from '../helpers/links.js';

/** Admin deletion of a user with link disposition (docs/auth.md#deleting-a-user), on every database. */

let seq = 0;
const unique = (prefix: string): string => `${prefix}-${++seq}`;

const newUser = (store: Store, displayName?: string, role: 'user' | 'admin' = 'user'): Promise<User> =>
  store.users.create({ email: `${unique('del')}@example.com`, displayName, role });

const newLink = (store: Store, owner: User, shareWith: User[] = [], extra: { tags?: string[]; visibility?: string } = {}) =>
  createLink(store, { slug: unique('dl'), url: 'https://e.test', ...extra }, owner.id, { shareWith: shareWith.map((u) => u.id) });

function isAppError(code: ErrorCode, message?: string): (e: unknown) => boolean {
  return (e) => {
    assert.ok(e instanceof AppError, `expected AppError ${code}, got ${String(e)}`);
    assert.equal(e.code, code);
    if (message !== undefined) assert.equal(e.message, message);
    return true;
  };
}

async function ownerRows(c: DbContext, linkId: string): Promise<Array<[string, number]>> {
  const rows = await c.db.kysely
    .selectFrom('link_owners')
    .select(['user_id', 'is_primary'])
    .where('link_id', '=', linkId)
    .orderBy('is_primary', 'desc')
    .orderBy('user_id')
    .execute();
  return rows.map((r) => [r.user_id, Number(r.is_primary)]);
}

async function shareRows(c: DbContext, linkId: string): Promise<Array<[string, string]>> {
  const rows = await c.db.kysely
    .selectFrom('link_shares')
    .select(['user_id', 'shared_by'])
    .where('link_id', '=', linkId)
    .orderBy('user_id')
    .execute();
  return rows.map((r) => [r.user_id, r.shared_by]);
}

/** Every row that mentions `userId` in a user-referencing column, by table. */
async function rowsMentioning(c: DbContext, userId: string): Promise<Record<string, number>> {
  const count = async (table: string, column: string): Promise<number> => {
    const r = await c.db.kysely
      .selectFrom(table as 'users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where(column as 'id', '=', userId)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  };
  return {
    users: await count('users', 'id'),
    link_owners: await count('link_owners', 'user_id'),
    link_shares_received: await count('link_shares', 'user_id'),
    link_shares_granted: await count('link_shares', 'shared_by'),
    link_clicks: await count('link_clicks', 'user_id'),
    api_tokens: await count('api_tokens', 'user_id'),
    login_tokens: await count('login_tokens', 'user_id'),
  };
}

/** The three counts every deletion answers with; the finer counts have tests of their own. */
const summary = (r: UserDeletion) => ({ linkAction: r.linkAction, reassignedLinks: r.reassignedLinks, deletedLinks: r.deletedLinks });

const NOTHING = {
  users: 0,
  link_owners: 0,
  link_shares_received: 0,
  link_shares_granted: 0,
  link_clicks: 0,
  api_tokens: 0,
  login_tokens: 0,
};

async function addClick(c: DbContext, linkId: string, userId: string | null): Promise<string> {
  const id = randomUUID();
  await c.store.clicks.insertBatch([
    { id, link_id: linkId, user_id: userId, ip_hash: '0'.repeat(64), user_agent: 'ua', referrer: null, clicked_at: c.clock.now },
  ]);
  return id;
}

async function addTokens(c: DbContext, userId: string): Promise<void> {
  await c.db.kysely
    .insertInto('api_tokens')
    .values({
      id: randomUUID(),
      user_id: userId,
      name: 'cli',
      token_hash: randomUUID().replace(/-/g, ''),
      last_used_at: null,
      expires_at: null,
      created_at: c.clock.now,
      revoked_at: null,
    })
    .execute();
  await c.db.kysely
    .insertInto('login_tokens')
    .values({
      id: randomUUID(),
      user_id: userId,
      token_hash: randomUUID().replace(/-/g, ''),
      expires_at: c.clock.now + 60_000,
      created_at: c.clock.now,
      used_at: null,
    })
    .execute();
}

async function clickUser(c: DbContext, clickId: string): Promise<string | null | undefined> {
  const r = await c.db.kysely.selectFrom('link_clicks').select('user_id').where('id', '=', clickId).executeTakeFirst();
  return r === undefined ? undefined : r.user_id;
}

describeEachDatabase('user deletion', (ctx) => {
  test('acceptance: T primary on 2 links, admin deletes with reassign → admin is primary of both, T is gone', async () => {
    const c = ctx();
    const admin = await newUser(c.store, 'Admin', 'admin');
    const t = await newUser(c.store, 'Target');
    const l1 = await newLink(c.store, t);
    const l2 = await newLink(c.store, t);
    assert.equal(await c.store.userAdmin.primaryLinkCount(t.id), 2);
    const result = summary(await deleteUser(c.store, t.id, admin.id, 'reassign'));
    assert.deepEqual(result, { linkAction: 'reassign', reassignedLinks: 2, deletedLinks: 0 });
    for (const l of [l1, l2]) {
      assert.deepEqual(await ownerRows(c, l.id), [[admin.id, 1]]);
      assert.deepEqual(
        (await c.store.owners.list(l.id)).map((o) => [o.userId, o.isPrimary]),
        [[admin.id, true]],
      );
    }
    assert.equal(await c.store.users.findById(t.id), null);
    assert.equal(await c.store.userAdmin.primaryLinkCount(admin.id), 2);
  });

  test('reassign: admin co-ownership folds into the primary row; co-owners, grants and clicks carry over', async () => {
    const c = ctx();
    const { store, clock } = c;
    const admin = await newUser(store, 'Admin', 'admin');
    const t = await newUser(store, 'Target');
    const co = await newUser(store, 'Co');
    const reader = await newUser(store, 'Reader');
    const other = await newUser(store, 'Other');
    const stranger = await newUser(store, 'Stranger');

    // L: T primary, admin and then co as co-owners, shared by T with reader and with the admin.
    // The admin, its longest-standing co-owner, takes it over.
    const l = await newLink(store, t, [reader, admin], { tags: ['kept'], visibility: 'secure' });
    await addOwner(store, l.id, admin.id);
    clock.now += 1;
    await addOwner(store, l.id, co.id);
    const clickOnL = await addClick(c, l.id, t.id);
    // M: other's link, T co-owns it and shared it with the admin and with the stranger.
    const m = await newLink(store, other, [], { visibility: 'secure' });
    await addOwner(store, m.id, t.id);
    await addShare(store, m.id, admin.id, t.id);
    await addShare(store, m.id, stranger.id, t.id);
    // N: other shared it with T; T's received share goes with T.
    const n = await newLink(store, other, [t]);
    // An unrelated grant by the admin stays as it was.
    const own = await newLink(store, admin, [reader]);
    await addTokens(c, t.id);

    const t0 = clock.now;
    clock.now = t0 + 5_000;
    try {
      assert.deepEqual(summary(await deleteUser(store, t.id, admin.id, 'reassign')), {
        linkAction: 'reassign',
        reassignedLinks: 1,
        deletedLinks: 0,
      });
    } finally {
      clock.now = t0;
    }

    assert.deepEqual(await ownerRows(c, l.id), [
      [admin.id, 1],
      [co.id, 0],
    ]);
    assert.equal((await store.owners.list(l.id)).filter((o) => o.isPrimary).length, 1, 'exactly one primary');
    // T's grant to reader now comes from the admin; T's grant to the admin became a self-share on a link the admin owns, and went.
    assert.deepEqual(await shareRows(c, l.id), [[reader.id, admin.id]]);
    assert.equal((await store.links.get(l.id))!.updatedAt, t0 + 5_000, 'the ownership change counts as a mutation');
    assert.deepEqual(
      (await store.links.view(l.id))!.tags.map((tag) => tag.slug),
      ['kept'],
    );
    // On M the admin owns nothing, so the admin→admin share still grants access and stays.
    assert.deepEqual(await ownerRows(c, m.id), [[other.id, 1]]);
    const expectedOnM: Array<[string, string]> = [
      [admin.id, admin.id],
      [stranger.id, admin.id],
    ];
    assert.deepEqual(
      await shareRows(c, m.id),
      expectedOnM.sort((a, b) => (a[0] < b[0] ? -1 : 1)),
    );
    assert.deepEqual(await shareRows(c, n.id), []);
    assert.deepEqual(await shareRows(c, own.id), [[reader.id, admin.id]]);
    // The click survives, anonymised.
    assert.equal(await clickUser(c, clickOnL), null);
    assert.deepEqual(await rowsMentioning(c, t.id), NOTHING);
  });

  test("delete: the target's primary links and everything hanging off them go; co-owned links survive without T", async () => {
    const c = ctx();
    const { store, db, clock } = c;
    const admin = await newUser(store, 'Admin', 'admin');
    const t = await newUser(store, 'Target');
    const co = await newUser(store, 'Co');
    const reader = await newUser(store, 'Reader');
    const other = await newUser(store, 'Other');
    const l = await newLink(store, t, [reader], { tags: ['delete-mode'] });
    await addOwner(store, l.id, co.id);
    await addClick(c, l.id, reader.id);
    await db.kysely
      .insertInto('link_health')
      .values({
        link_id: l.id,
        last_checked_at: clock.now,
        last_status: 200,
        last_error: null,
        consecutive_failures: 0,
        next_check_at: null,
        skipped: 0,
      })
      .execute();
    const l2 = await newLink(store, t);
    const m = await newLink(store, other, [co]);
    await addOwner(store, m.id, t.id);
    await addShare(store, m.id, reader.id, t.id);
    const clickOnM = await addClick(c, m.id, t.id);
    await addTokens(c, t.id);

    assert.deepEqual(summary(await deleteUser(store, t.id, admin.id, 'delete')), {
      linkAction: 'delete',
      reassignedLinks: 0,
      deletedLinks: 2,
    });

    for (const gone of [l, l2]) {
      assert.equal(await store.links.get(gone.id), null);
      for (const table of ['link_owners', 'link_tags', 'link_shares', 'link_clicks', 'link_health'] as const) {
        const r = await db.kysely.selectFrom(table).select('link_id').where('link_id', '=', gone.id).execute();
        assert.equal(r.length, 0, `${table} still references a deleted link`);
      }
    }
    assert.ok(await store.tags.findBySlug('delete-mode'), 'tags are global and stay');
    assert.deepEqual(await ownerRows(c, m.id), [[other.id, 1]]);
    // T's grant on the surviving link is revoked; the owner's own grant stays.
    assert.deepEqual(await shareRows(c, m.id), [[co.id, other.id]]);
    assert.equal(await clickUser(c, clickOnM), null);
    assert.deepEqual(await rowsMentioning(c, t.id), NOTHING);
    assert.ok(await store.users.findById(co.id));
    assert.ok(await store.users.findById(reader.id));
  });

  test('no primary links: the action defaults to delete and still clears co-ownerships and grants', async () => {
    const c = ctx();
    const { store } = c;
    const admin = await newUser(store, 'Admin', 'admin');
    const t = await newUser(store, 'Target');
    const other = await newUser(store, 'Other');
    const reader = await newUser(store, 'Reader');
    const m = await newLink(store, other, [t]);
    await addOwner(store, m.id, t.id);
    await removeShare(store, m.id, t.id);
    await addShare(store, m.id, reader.id, t.id);
    assert.equal(await store.userAdmin.primaryLinkCount(t.id), 0);
    assert.deepEqual(summary(await deleteUser(store, t.id, admin.id)), { linkAction: 'delete', reassignedLinks: 0, deletedLinks: 0 });
    assert.ok(await store.links.get(m.id));
    assert.deepEqual(await ownerRows(c, m.id), [[other.id, 1]]);
    assert.deepEqual(await shareRows(c, m.id), []);
    assert.deepEqual(await rowsMentioning(c, t.id), NOTHING);
  });

  test('refusals change nothing: self-delete, missing link_action, bad action, unknown target, non-admin actor', async () => {
    const c = ctx();
    const { store, clock } = c;
    const admin = await newUser(store, 'Admin', 'admin');
    const plain = await newUser(store, 'Plain');
    const t = await newUser(store, 'Target');
    const l = await newLink(store, t, [plain]);
    await addTokens(c, t.id);
    const before = await rowsMentioning(c, t.id);
    const t0 = clock.now;
    clock.now = t0 + 1_000;
    try {
      await assert.rejects(deleteUser(store, admin.id, admin.id, 'delete'), isAppError('BAD_REQUEST', 'cannot delete yourself'));
      await assert.rejects(deleteUser(store, t.id, admin.id), isAppError('BAD_REQUEST', 'link_action required (reassign or delete)'));
      await assert.rejects(
        deleteUser(store, t.id, admin.id, 'archive' as LinkAction),
        isAppError('BAD_REQUEST', 'link_action required (reassign or delete)'),
      );
      await assert.rejects(deleteUser(store, randomUUID(), admin.id, 'delete'), isAppError('NOT_FOUND'));
      await assert.rejects(deleteUser(store, t.id, plain.id, 'reassign'), isAppError('FORBIDDEN'));
    } finally {
      clock.now = t0;
    }
    assert.ok(await store.users.findById(admin.id));
    const target = (await store.users.findById(t.id))!;
    assert.equal(target.updatedAt, t.updatedAt, 'the lock-taking write of a refused deletion was rolled back');
    assert.deepEqual(await rowsMentioning(c, t.id), before);
    assert.deepEqual(await ownerRows(c, l.id), [[t.id, 1]]);
    assert.deepEqual(await shareRows(c, l.id), [[plain.id, t.id]]);
  });

  test('a user primary on more links than one IN-list holds is handled completely', async () => {
    const c = ctx();
    const { store, db, clock } = c;
    const admin = await newUser(store, 'Admin', 'admin');
    const keeper = await newUser(store, 'Keeper');
    const dropper = await newUser(store, 'Dropper');
    const bulk = async (owner: User, count: number, coOwner?: User): Promise<string[]> => {
      const ids = Array.from({ length: count }, () => randomUUID());
      for (let i = 0; i < ids.length; i += 200) {
        const slice = ids.slice(i, i + 200);
        await db.kysely
          .insertInto('links')
          .values(
            slice.map((id) => ({
              id,
              slug: `bulk-${id}`,
              url: 'https://bulk.test',
              title: '',
              description: '',
              visibility: 'public',
              created_at: clock.now,
              updated_at: clock.now,
              expires_at: null,
              archived_at: null,
            })),
          )
          .execute();
        await db.kysely
          .insertInto('link_owners')
          .values(slice.map((id) => ({ link_id: id, user_id: owner.id, is_primary: 1, created_at: clock.now })))
          .execute();
        if (coOwner) {
          await db.kysely
            .insertInto('link_owners')
            .values(slice.map((id) => ({ link_id: id, user_id: coOwner.id, is_primary: 0, created_at: clock.now })))
            .execute();
        }
      }
      return ids;
    };
    const kept = await bulk(keeper, 1001, admin);
    const dropped = await bulk(dropper, 501);
    assert.deepEqual(summary(await deleteUser(store, keeper.id, admin.id, 'reassign')), {
      linkAction: 'reassign',
      reassignedLinks: 1001,
      deletedLinks: 0,
    });
    assert.equal(await store.userAdmin.primaryLinkCount(admin.id), 1001);
    const adminRows = await db.kysely.selectFrom('link_owners').select(['link_id', 'is_primary']).where('user_id', '=', admin.id).execute();
    assert.equal(adminRows.length, 1001);
    assert.ok(adminRows.every((r) => Number(r.is_primary) === 1));
    assert.equal(new Set(adminRows.map((r) => r.link_id)).size, kept.length);
    assert.deepEqual(summary(await deleteUser(store, dropper.id, admin.id, 'delete')), {
      linkAction: 'delete',
      reassignedLinks: 0,
      deletedLinks: 501,
    });
    const left = await db.kysely.selectFrom('links').select('id').where('id', 'in', dropped.slice(0, 500)).execute();
    assert.equal(left.length, 0);
    assert.equal(await store.links.get(dropped[500]!), null);
  });

  test('links the target creates while being deleted are never left without an owner', async () => {
    const c = ctx();
    const { store, db } = c;
    const admin = await newUser(store, 'Admin', 'admin');
    const t = await newUser(store, 'Racer');
    await newLink(store, t);
    const slugs = Array.from({ length: 6 }, () => unique('racing'));
    const [deletion, ...creates] = await Promise.allSettled([
      deleteUser(store, t.id, admin.id, 'reassign'),
      ...slugs.map((slug) => createLink(store, { slug, url: 'https://race.test' }, t.id)),
    ]);
    assert.equal(deletion!.status, 'fulfilled', String((deletion as PromiseRejectedResult).reason));
    for (const r of creates) if (r.status === 'rejected') isAppError('NOT_FOUND')(r.reason);
    for (const slug of slugs) {
      const link = await store.links.getBySlug(slug);
      if (!link) continue;
      assert.deepEqual(await ownerRows(c, link.id), [[admin.id, 1]], `${slug} lost its owner`);
    }
    const orphans = await db.kysely
      .selectFrom('links')
      .select('slug')
      .where((eb) =>
        eb.not(eb.exists(eb.selectFrom('link_owners').select('link_owners.link_id').whereRef('link_owners.link_id', '=', 'links.id'))),
      )
      .execute();
    assert.deepEqual(orphans, []);
    assert.equal(await store.users.findById(t.id), null);
  });
});
