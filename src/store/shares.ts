import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { AppError } from '../domain/errors.js';
import { isForeignKeyViolation, isUniqueViolation } from './dbErrors.js';
import type { Executor, LinkShare } from './types.js';

/** Share rosters (docs/links.md#shares): enforced at resolution only for secure links. */
export class ShareStore {
  constructor(private readonly db: Kysely<Database>) {}

  async list(linkId: string, db: Executor = this.db): Promise<LinkShare[]> {
    const rows = await db
      .selectFrom('link_shares')
      .innerJoin('users', 'users.id', 'link_shares.user_id')
      .select([
        'link_shares.link_id',
        'link_shares.user_id',
        'link_shares.shared_by',
        'link_shares.created_at',
        'users.email',
        'users.display_name',
      ])
      .where('link_shares.link_id', '=', linkId)
      .orderBy('link_shares.created_at')
      .orderBy('link_shares.user_id')
      .execute();
    return rows.map((r) => ({
      linkId: r.link_id,
      userId: r.user_id,
      email: r.email,
      displayName: r.display_name,
      sharedBy: r.shared_by,
      createdAt: Number(r.created_at),
    }));
  }

  /** Whether the link is shared with the user. */
  async exists(linkId: string, userId: string, db: Executor = this.db): Promise<boolean> {
    const row = await db
      .selectFrom('link_shares')
      .select('user_id')
      .where('link_id', '=', linkId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Shares the link with each user; an existing share is DUPLICATE_SHARE, an unknown user NOT_FOUND. */
  async insert(linkId: string, userIds: readonly string[], opts: { sharedBy: string; at: number }, tx: Executor): Promise<void> {
    if (userIds.length === 0) return;
    try {
      await tx
        .insertInto('link_shares')
        .values(userIds.map((u) => ({ link_id: linkId, user_id: u, shared_by: opts.sharedBy, created_at: opts.at })))
        .execute();
    } catch (e) {
      if (isUniqueViolation(e)) throw new AppError('DUPLICATE_SHARE', 'link is already shared with this user');
      if (isForeignKeyViolation(e)) throw new AppError('NOT_FOUND', 'user not found');
      throw e;
    }
  }

  /** Removes one share; whether there was one. */
  async delete(linkId: string, userId: string, tx: Executor): Promise<boolean> {
    const r = await tx.deleteFrom('link_shares').where('link_id', '=', linkId).where('user_id', '=', userId).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }
}
