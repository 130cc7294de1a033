import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { markDaysOfLinks, markDaysOfUser } from './rollupMarks.js';
import { inListChunks } from './sql.js';
import type { Clock, Executor } from './types.js';

/**
 * The SQL of deleting a user account and disposing of their links, each step
 * for the caller's transaction; the links application layer decides the
 * rules and the order (src/links/accounts.ts).
 */
export class UserDeletionStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: Clock = Date.now,
  ) {}

  /** How many links `userId` is primary owner of: the "owns N link(s)" of the delete dialog. */
  async primaryLinkCount(userId: string): Promise<number> {
    const r = await this.db
      .selectFrom('link_owners')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', userId)
      .where('is_primary', '=', 1)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  /**
   * A write first: it locks the user's row before anything is read, so on
   * MySQL and SQLite no link or share of theirs can appear mid-deletion.
   * Whether the user exists.
   */
  async lockUser(userId: string, now: number, tx: Executor): Promise<boolean> {
    const touched = await tx.updateTable('users').set({ updated_at: now }).where('id', '=', userId).executeTakeFirst();
    return Number(touched.numUpdatedRows) > 0;
  }

  /** Links the user owns: `primary` as primary owner, `co` as co-owner. */
  async ownedLinkIds(userId: string, tx: Executor): Promise<{ primary: string[]; co: string[] }> {
    const rows = await tx.selectFrom('link_owners').select(['link_id', 'is_primary']).where('user_id', '=', userId).execute();
    return {
      primary: rows.filter((r) => Number(r.is_primary) === 1).map((r) => r.link_id),
      co: rows.filter((r) => Number(r.is_primary) !== 1).map((r) => r.link_id),
    };
  }

  /** Links shared with the user. */
  async sharedLinkIds(userId: string, tx: Executor): Promise<string[]> {
    return (await tx.selectFrom('link_shares').select('link_id').where('user_id', '=', userId).execute()).map((r) => r.link_id);
  }

  /**
   * For each of `linkIds`, its longest-standing co-owner other than `exceptId` (a person):
   * who becomes primary owner when the primary owner goes. Links without one are absent.
   */
  async oldestCoOwners(linkIds: readonly string[], exceptId: string, tx: Executor): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const ids of inListChunks(linkIds)) {
      const rows = await tx
        .selectFrom('link_owners')
        .select(['link_id', 'user_id'])
        .where('link_id', 'in', ids)
        .where('is_primary', '=', 0)
        .where('user_id', '!=', exceptId)
        .orderBy('link_id')
        .orderBy('created_at')
        .orderBy('user_id')
        .execute();
      for (const r of rows) if (!out.has(r.link_id)) out.set(r.link_id, r.user_id);
    }
    return out;
  }

  /**
   * The primary ownership of `linkIds` moves from `fromId` to `toId`; a co-ownership `toId`
   * held on one of them folds into the primary row.
   */
  async movePrimary(fromId: string, toId: string, linkIds: readonly string[], now: number, tx: Executor): Promise<void> {
    for (const ids of inListChunks(linkIds)) {
      // The new owner's own co-ownership would collide with the primary row moving in.
      await tx.deleteFrom('link_owners').where('user_id', '=', toId).where('link_id', 'in', ids).execute();
      await tx
        .updateTable('link_owners')
        .set({ user_id: toId })
        .where('user_id', '=', fromId)
        .where('is_primary', '=', 1)
        .where('link_id', 'in', ids)
        .execute();
      await tx.updateTable('links').set({ updated_at: now }).where('id', 'in', ids).execute();
    }
  }

  /** The shares `fromId` granted are granted by `toId` from now on; one to themselves on a link they own means nothing and goes. */
  async regrantShares(fromId: string, toId: string, tx: Executor): Promise<void> {
    await tx.updateTable('link_shares').set({ shared_by: toId }).where('shared_by', '=', fromId).execute();
    // A share to oneself on a link one owns means nothing; elsewhere it still grants access and stays.
    await tx
      .deleteFrom('link_shares')
      .where('user_id', '=', toId)
      .where('shared_by', '=', toId)
      .where('link_id', 'in', (eb) => eb.selectFrom('link_owners').select('link_owners.link_id').where('link_owners.user_id', '=', toId))
      .execute();
  }

  /** The groups whose only manager `userId` is. */
  async groupsManagedAlone(userId: string, tx: Executor): Promise<string[]> {
    const rows = await tx
      .selectFrom('group_members as mine')
      .select('mine.group_id')
      .where('mine.user_id', '=', userId)
      .where('mine.role', '=', 'manager')
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('group_members as other')
              .select('other.group_id')
              .whereRef('other.group_id', '=', 'mine.group_id')
              .where('other.role', '=', 'manager')
              .where('other.user_id', '!=', userId),
          ),
        ),
      )
      .execute();
    return rows.map((r) => r.group_id);
  }

  /** Makes `userId` a manager of each group, joining those they are not in. */
  async makeManager(groupIds: readonly string[], userId: string, now: number, tx: Executor): Promise<void> {
    for (const groupId of groupIds) {
      // Read first: MySQL counts only rows an UPDATE changed, not those it matched.
      const member = await tx
        .selectFrom('group_members')
        .select('role')
        .where('group_id', '=', groupId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      if (member) {
        await tx
          .updateTable('group_members')
          .set({ role: 'manager' })
          .where('group_id', '=', groupId)
          .where('user_id', '=', userId)
          .execute();
      } else {
        await tx.insertInto('group_members').values({ group_id: groupId, user_id: userId, role: 'manager', created_at: now }).execute();
      }
    }
  }

  /**
   * Deletes links (owners, tags, shares, clicks and health rows cascade with
   * each), marking the closed days their clicks lay on dirty first
   * (docs/analytics.md#rollups).
   */
  async deleteLinks(linkIds: readonly string[], tx: Executor): Promise<void> {
    await markDaysOfLinks(tx, this.now(), linkIds);
    for (const ids of inListChunks(linkIds)) await tx.deleteFrom('links').where('id', 'in', ids).execute();
  }

  /** Revokes the shares the user granted. */
  async deleteGrantsBy(userId: string, tx: Executor): Promise<void> {
    await tx.deleteFrom('link_shares').where('shared_by', '=', userId).execute();
  }

  /**
   * Deletes the account: its remaining owner rows, then the user row, which
   * cascades tokens, login tokens and shares received; the user's clicks stay,
   * with their user id cleared — so the closed days they lay on are marked
   * dirty first: their signed-in/anonymous split changes (docs/analytics.md#rollups).
   */
  async deleteAccount(userId: string, tx: Executor): Promise<void> {
    await markDaysOfUser(tx, this.now(), userId);
    await tx.deleteFrom('link_owners').where('user_id', '=', userId).execute();
    await tx.deleteFrom('users').where('id', '=', userId).execute();
  }
}
