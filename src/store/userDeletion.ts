import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { AppError } from '../domain/errors.js';
import { retryOnDeadlock, translateDbError } from './dbErrors.js';
import type { Clock } from './types.js';
import { inListChunks } from './sql.js';

/** What happens to the links a deleted user is primary owner of (core.md §2.12). */
export type LinkAction = 'reassign' | 'delete';

export interface UserDeletion {
  linkAction: LinkAction;
  /** Links whose primary ownership moved to the acting admin. */
  reassignedLinks: number;
  /** Links deleted along with the user. */
  deletedLinks: number;
}

const LINK_ACTION_REQUIRED = 'link_action required (reassign or delete)';

/**
 * Admin deletion of a user with disposition of their links, in one
 * transaction (core.md §2.12).
 */
export class UserDeletionStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: Clock,
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
   * Deletes `targetId` on behalf of admin `actingAdminId`. With `reassign`
   * the admin becomes primary owner of the target's links and grantor of the
   * target's shares; with `delete` those links go (cascading) and the
   * target's grants on surviving links are revoked. Either way the target's
   * co-ownerships, tokens, received shares and the user row go; their clicks
   * stay, anonymised. Without an action it defaults to `delete` only when the
   * target is primary owner of nothing.
   */
  async deleteUser(targetId: string, actingAdminId: string, linkAction?: LinkAction): Promise<UserDeletion> {
    if (targetId === actingAdminId) throw new AppError('BAD_REQUEST', 'cannot delete yourself');
    if (linkAction !== undefined && linkAction !== 'reassign' && linkAction !== 'delete') {
      throw new AppError('BAD_REQUEST', LINK_ACTION_REQUIRED, 'link_action');
    }
    try {
      // Repeatable read: on PostgreSQL a link or share the target commits
      // concurrently then fails this transaction (and the retry sees it)
      // instead of being silently cascaded away without its disposition.
      return await retryOnDeadlock(() =>
        this.db
          .transaction()
          .setIsolationLevel('repeatable read')
          .execute((trx) => this.deleteIn(trx, targetId, actingAdminId, linkAction)),
      );
    } catch (e) {
      if (e instanceof AppError) throw e;
      translateDbError(e);
    }
  }

  private async deleteIn(trx: Transaction<Database>, targetId: string, adminId: string, linkAction?: LinkAction): Promise<UserDeletion> {
    const now = this.now();
    // A write first: it locks the target's row before anything is read, so on
    // MySQL and SQLite no link or share of theirs can appear mid-deletion.
    const touched = await trx.updateTable('users').set({ updated_at: now }).where('id', '=', targetId).executeTakeFirst();
    if (Number(touched.numUpdatedRows) === 0) throw new AppError('NOT_FOUND', 'user not found');
    const admin = await trx.selectFrom('users').select('role').where('id', '=', adminId).executeTakeFirst();
    if (admin?.role !== 'admin') throw new AppError('FORBIDDEN', 'only an admin may delete users');

    const primary = (
      await trx.selectFrom('link_owners').select('link_id').where('user_id', '=', targetId).where('is_primary', '=', 1).execute()
    ).map((r) => r.link_id);
    if (primary.length > 0 && linkAction === undefined) throw new AppError('BAD_REQUEST', LINK_ACTION_REQUIRED, 'link_action');
    const action: LinkAction = linkAction ?? 'delete';

    if (action === 'reassign') {
      for (const ids of inListChunks(primary)) {
        // (1) The admin's own co-ownership would collide with the primary row moving in.
        await trx.deleteFrom('link_owners').where('user_id', '=', adminId).where('link_id', 'in', ids).execute();
      }
      // (2) The target's primary rows become the admin's.
      await trx.updateTable('link_owners').set({ user_id: adminId }).where('user_id', '=', targetId).where('is_primary', '=', 1).execute();
      for (const ids of inListChunks(primary)) {
        await trx.updateTable('links').set({ updated_at: now }).where('id', 'in', ids).execute();
      }
      // (3) Grants the target made now come from the admin.
      await trx.updateTable('link_shares').set({ shared_by: adminId }).where('shared_by', '=', targetId).execute();
      // (4) A share to oneself on a link one owns means nothing; elsewhere it still grants access and stays.
      await trx
        .deleteFrom('link_shares')
        .where('user_id', '=', adminId)
        .where('shared_by', '=', adminId)
        .where('link_id', 'in', (eb) =>
          eb.selectFrom('link_owners').select('link_owners.link_id').where('link_owners.user_id', '=', adminId),
        )
        .execute();
    } else {
      for (const ids of inListChunks(primary)) {
        // Owners, tags, shares, clicks and health rows cascade with each link.
        await trx.deleteFrom('links').where('id', 'in', ids).execute();
      }
      await trx.deleteFrom('link_shares').where('shared_by', '=', targetId).execute();
    }

    await trx.deleteFrom('link_owners').where('user_id', '=', targetId).execute();
    // Cascades api_tokens, login tokens and shares received; link_clicks.user_id becomes NULL.
    await trx.deleteFrom('users').where('id', '=', targetId).execute();
    return {
      linkAction: action,
      reassignedLinks: action === 'reassign' ? primary.length : 0,
      deletedLinks: action === 'delete' ? primary.length : 0,
    };
  }
}
