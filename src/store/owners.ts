import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { AppError } from '../domain/errors.js';
import { isForeignKeyViolation, isUniqueViolation } from './dbErrors.js';
import type { Executor, LinkOwner } from './types.js';

/** Owners and co-owners of links (docs/links.md#owners). "Owner" means any link_owners row. */
export class OwnerStore {
  constructor(private readonly db: Kysely<Database>) {}

  /** Owners of many links, each list primary first, then by display name. */
  async forLinks(linkIds: readonly string[], db: Executor = this.db): Promise<Map<string, LinkOwner[]>> {
    const out = new Map<string, LinkOwner[]>();
    if (linkIds.length === 0) return out;
    const rows = await db
      .selectFrom('link_owners')
      .innerJoin('users', 'users.id', 'link_owners.user_id')
      .select([
        'link_owners.link_id',
        'link_owners.user_id',
        'link_owners.is_primary',
        'users.email',
        'users.display_name',
        'users.display_name_slug',
      ])
      .where('link_owners.link_id', 'in', [...new Set(linkIds)])
      .orderBy('link_owners.is_primary', 'desc')
      .orderBy('users.display_name')
      .orderBy('users.id')
      .execute();
    for (const r of rows) {
      const list = out.get(r.link_id) ?? [];
      list.push({
        userId: r.user_id,
        email: r.email,
        displayName: r.display_name,
        displayNameSlug: r.display_name_slug,
        isPrimary: Number(r.is_primary) === 1,
      });
      out.set(r.link_id, list);
    }
    return out;
  }

  async list(linkId: string, db: Executor = this.db): Promise<LinkOwner[]> {
    return (await this.forLinks([linkId], db)).get(linkId) ?? [];
  }

  /** The owner row of one user on one link, if any. */
  async membership(linkId: string, userId: string, db: Executor = this.db): Promise<{ isPrimary: boolean } | null> {
    const row = await db
      .selectFrom('link_owners')
      .select('is_primary')
      .where('link_id', '=', linkId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row ? { isPrimary: Number(row.is_primary) === 1 } : null;
  }

  /** Adds an owner row; the row's existence is DUPLICATE_OWNER, an unknown user NOT_FOUND. */
  async insert(linkId: string, userId: string, opts: { primary: boolean; at: number }, tx: Executor): Promise<void> {
    try {
      await tx
        .insertInto('link_owners')
        .values({ link_id: linkId, user_id: userId, is_primary: opts.primary ? 1 : 0, created_at: opts.at })
        .execute();
    } catch (e) {
      if (isUniqueViolation(e)) throw new AppError('DUPLICATE_OWNER', 'user is already an owner of this link');
      if (isForeignKeyViolation(e)) throw new AppError('NOT_FOUND', 'user not found');
      throw e;
    }
  }

  /** Deletes a co-owner row (never the primary owner's); whether one was deleted. */
  async deleteCoOwner(linkId: string, userId: string, tx: Executor): Promise<boolean> {
    const r = await tx
      .deleteFrom('link_owners')
      .where('link_id', '=', linkId)
      .where('user_id', '=', userId)
      .where('is_primary', '=', 0)
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /**
   * Everyone who owns the link, themselves or as a member of an owning group, each once:
   * whom owners' notifications reach (docs/groups.md#what-a-group-grants).
   */
  async peopleOf(linkId: string, db: Executor = this.db): Promise<string[]> {
    const rows = await db
      .selectFrom('link_owners')
      .select('link_owners.user_id')
      .where('link_owners.link_id', '=', linkId)
      .union(
        db
          .selectFrom('link_owner_groups')
          .innerJoin('group_members', 'group_members.group_id', 'link_owner_groups.group_id')
          .select('group_members.user_id')
          .where('link_owner_groups.link_id', '=', linkId),
      )
      .execute();
    return rows.map((r) => r.user_id);
  }
}
