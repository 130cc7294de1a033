import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { AppError } from '../domain/errors.js';
import { isForeignKeyViolation, isUniqueViolation } from './dbErrors.js';
import type { Clock, LinkShare } from './types.js';

/** Share rosters (core.md §2.9): enforced at resolution only for secure links. */
export class ShareStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: Clock,
  ) {}

  async list(linkId: string): Promise<LinkShare[]> {
    const rows = await this.db
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

  async add(linkId: string, userId: string, sharedBy: string): Promise<void> {
    try {
      await this.db
        .insertInto('link_shares')
        .values({ link_id: linkId, user_id: userId, shared_by: sharedBy, created_at: this.now() })
        .execute();
    } catch (e) {
      if (isUniqueViolation(e)) throw new AppError('DUPLICATE_SHARE', 'link is already shared with this user');
      if (isForeignKeyViolation(e)) throw new AppError('NOT_FOUND', 'user not found');
      throw e;
    }
  }

  async remove(linkId: string, userId: string): Promise<void> {
    const r = await this.db.deleteFrom('link_shares').where('link_id', '=', linkId).where('user_id', '=', userId).executeTakeFirst();
    if (Number(r.numDeletedRows) === 0) throw new AppError('NOT_FOUND', 'share not found');
  }
}
