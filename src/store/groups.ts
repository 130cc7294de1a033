import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { GroupRole } from '../domain/groups.js';
import { AppError } from '../domain/errors.js';
import { isForeignKeyViolation, isUniqueViolation } from './dbErrors.js';
import { contains, ilike } from './sql.js';
import type { Executor } from './types.js';

/** A group (docs/groups.md). `synced`: its membership follows sign-in's groups claim. */
export interface Group {
  id: string;
  name: string;
  description: string;
  synced: boolean;
  createdAt: number;
  updatedAt: number;
}

export interface GroupMember {
  userId: string;
  email: string;
  displayName: string;
  role: GroupRole;
  createdAt: number;
}

/** A group as a link's owner or share recipient. */
export interface LinkGroup {
  linkId: string;
  groupId: string;
  name: string;
  createdAt: number;
}

type GroupRow = Database['user_groups'];

const toGroup = (r: GroupRow): Group => ({
  id: r.id,
  name: r.name,
  description: r.description,
  synced: Number(r.synced) === 1,
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

const asRole = (role: string): GroupRole => (role === 'manager' ? 'manager' : 'member');

/** The SQL of groups, their members, and the links they own or are shared. */
export class GroupStore {
  constructor(private readonly db: Kysely<Database>) {}

  async byName(name: string, db: Executor = this.db): Promise<Group | null> {
    const r = await db.selectFrom('user_groups').selectAll().where('name', '=', name).executeTakeFirst();
    return r ? toGroup(r) : null;
  }

  async byId(id: string, db: Executor = this.db): Promise<Group | null> {
    const r = await db.selectFrom('user_groups').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? toGroup(r) : null;
  }

  /** Groups by name after `after`; `memberId` keeps those the user is a member of. */
  async page(opts: { after?: string; limit: number; memberId?: string }): Promise<{ groups: Group[]; hasMore: boolean }> {
    let q = this.db.selectFrom('user_groups').selectAll('user_groups');
    if (opts.after !== undefined) q = q.where('user_groups.name', '>', opts.after);
    if (opts.memberId !== undefined) {
      const memberId = opts.memberId;
      q = q.where((eb) =>
        eb.exists(
          eb
            .selectFrom('group_members')
            .select('group_members.group_id')
            .whereRef('group_members.group_id', '=', 'user_groups.id')
            .where('group_members.user_id', '=', memberId),
        ),
      );
    }
    const rows = await q
      .orderBy('user_groups.name')
      .limit(opts.limit + 1)
      .execute();
    return { groups: rows.slice(0, opts.limit).map(toGroup), hasMore: rows.length > opts.limit };
  }

  /** The groups kept in step with sign-in (`synced`) whose names are among `names`. */
  async syncedNamed(names: readonly string[], db: Executor = this.db): Promise<Group[]> {
    if (names.length === 0) return [];
    const rows = await db
      .selectFrom('user_groups')
      .selectAll()
      .where('synced', '=', 1)
      .where('name', 'in', [...names])
      .execute();
    return rows.map(toGroup);
  }

  /** The groups kept in step with sign-in that the user is a member of. */
  async syncedOf(userId: string, db: Executor = this.db): Promise<Group[]> {
    const rows = await db
      .selectFrom('user_groups')
      .innerJoin('group_members', 'group_members.group_id', 'user_groups.id')
      .selectAll('user_groups')
      .where('user_groups.synced', '=', 1)
      .where('group_members.user_id', '=', userId)
      .execute();
    return rows.map(toGroup);
  }

  /** The groups `userId` is a member of, by name, with their role in each. */
  async ofMember(userId: string): Promise<Array<Group & { role: GroupRole }>> {
    const rows = await this.db
      .selectFrom('user_groups')
      .innerJoin('group_members', 'group_members.group_id', 'user_groups.id')
      .selectAll('user_groups')
      .select('group_members.role')
      .where('group_members.user_id', '=', userId)
      .orderBy('user_groups.name')
      .execute();
    return rows.map((r) => ({ ...toGroup(r), role: asRole(r.role) }));
  }

  /** Up to `limit` groups whose name contains `text`, by name: a picker's suggestions among what every group list shows. */
  async nameContains(text: string, limit: number): Promise<Group[]> {
    const rows = await this.db
      .selectFrom('user_groups')
      .selectAll()
      .where(ilike('name', contains(text)))
      .orderBy('name')
      .limit(limit)
      .execute();
    return rows.map(toGroup);
  }

  /**
   * Up to `limit` people who are members of at least one group and whose display name or email
   * contains `text`, by name. Anyone signed in already reads every group's members with their
   * emails (docs/groups.md), so suggesting them reveals nobody a group page does not.
   */
  async membersMatching(text: string, limit: number): Promise<Array<{ id: string; email: string; displayName: string }>> {
    const pattern = contains(text);
    const rows = await this.db
      .selectFrom('users')
      .select(['users.id', 'users.email', 'users.display_name'])
      .where((eb) =>
        eb.exists(eb.selectFrom('group_members').select('group_members.user_id').whereRef('group_members.user_id', '=', 'users.id')),
      )
      .where((eb) => eb.or([ilike('users.display_name', pattern), ilike('users.email', pattern)]))
      .orderBy('users.display_name')
      .orderBy('users.id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ id: r.id, email: r.email, displayName: r.display_name }));
  }

  /** How many members each group has, for a page of groups. */
  async memberCounts(groupIds: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    if (groupIds.length === 0) return out;
    const rows = await this.db
      .selectFrom('group_members')
      .select(['group_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('group_id', 'in', [...groupIds])
      .groupBy('group_id')
      .execute();
    for (const r of rows) out.set(r.group_id, Number(r.n));
    return out;
  }

  /** A new group; its name taken is GROUP_CONFLICT. */
  async insert(group: Group, tx: Executor): Promise<void> {
    try {
      await tx
        .insertInto('user_groups')
        .values({
          id: group.id,
          name: group.name,
          description: group.description,
          synced: group.synced ? 1 : 0,
          created_at: group.createdAt,
          updated_at: group.updatedAt,
        })
        .execute();
    } catch (e) {
      if (isUniqueViolation(e)) throw new AppError('GROUP_CONFLICT', `a group named "${group.name}" already exists`, 'name');
      throw e;
    }
  }

  /** Changes name and description; a name taken is GROUP_CONFLICT. */
  async update(id: string, fields: { name: string; description: string; synced?: boolean; at: number }, tx: Executor): Promise<void> {
    try {
      await tx
        .updateTable('user_groups')
        .set({
          name: fields.name,
          description: fields.description,
          updated_at: fields.at,
          ...(fields.synced === undefined ? {} : { synced: fields.synced ? 1 : 0 }),
        })
        .where('id', '=', id)
        .execute();
    } catch (e) {
      if (isUniqueViolation(e)) throw new AppError('GROUP_CONFLICT', `a group named "${fields.name}" already exists`, 'name');
      throw e;
    }
  }

  /** Deletes a group; its members and its link owner and share rows go with it. */
  async delete(id: string, tx: Executor): Promise<void> {
    await tx.deleteFrom('user_groups').where('id', '=', id).execute();
  }

  /**
   * Locks the group's row for the rest of the transaction (a write first), so two membership
   * changes of one group run one after the other: the last manager cannot be removed twice.
   * Whether the group exists.
   */
  async lock(id: string, now: number, tx: Executor): Promise<boolean> {
    const r = await tx.updateTable('user_groups').set({ updated_at: now }).where('id', '=', id).executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  async members(groupId: string, db: Executor = this.db): Promise<GroupMember[]> {
    const rows = await db
      .selectFrom('group_members')
      .innerJoin('users', 'users.id', 'group_members.user_id')
      .select(['group_members.user_id', 'group_members.role', 'group_members.created_at', 'users.email', 'users.display_name'])
      .where('group_members.group_id', '=', groupId)
      .orderBy('users.display_name')
      .orderBy('users.id')
      .execute();
    return rows.map((r) => ({
      userId: r.user_id,
      email: r.email,
      displayName: r.display_name,
      role: asRole(r.role),
      createdAt: Number(r.created_at),
    }));
  }

  /** The user's role in the group, or null when they are not in it. */
  async role(groupId: string, userId: string, db: Executor = this.db): Promise<GroupRole | null> {
    const r = await db
      .selectFrom('group_members')
      .select('role')
      .where('group_id', '=', groupId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return r ? asRole(r.role) : null;
  }

  async managerCount(groupId: string, db: Executor = this.db): Promise<number> {
    const r = await db
      .selectFrom('group_members')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('group_id', '=', groupId)
      .where('role', '=', 'manager')
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  /** Adds a member; one already there is DUPLICATE_MEMBER, an unknown user NOT_FOUND. */
  async addMember(groupId: string, userId: string, role: GroupRole, at: number, tx: Executor): Promise<void> {
    try {
      await tx.insertInto('group_members').values({ group_id: groupId, user_id: userId, role, created_at: at }).execute();
    } catch (e) {
      if (isUniqueViolation(e)) throw new AppError('DUPLICATE_MEMBER', 'user is already a member of this group');
      if (isForeignKeyViolation(e)) throw new AppError('NOT_FOUND', 'user not found');
      throw e;
    }
  }

  async setRole(groupId: string, userId: string, role: GroupRole, tx: Executor): Promise<void> {
    await tx.updateTable('group_members').set({ role }).where('group_id', '=', groupId).where('user_id', '=', userId).execute();
  }

  /** Removes a member; whether they were one. */
  async removeMember(groupId: string, userId: string, tx: Executor): Promise<boolean> {
    const r = await tx.deleteFrom('group_members').where('group_id', '=', groupId).where('user_id', '=', userId).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /** The groups that own (`owner`) or were shared (`share`) each of `linkIds`, by name. */
  async ofLinks(holding: 'owner' | 'share', linkIds: readonly string[], db: Executor = this.db): Promise<Map<string, LinkGroup[]>> {
    const out = new Map<string, LinkGroup[]>();
    if (linkIds.length === 0) return out;
    const table = holding === 'owner' ? 'link_owner_groups' : 'link_share_groups';
    const rows = await db
      .selectFrom(`${table} as lg`)
      .innerJoin('user_groups', 'user_groups.id', 'lg.group_id')
      .select(['lg.link_id', 'lg.group_id', 'lg.created_at', 'user_groups.name'])
      .where('lg.link_id', 'in', [...new Set(linkIds)])
      .orderBy('user_groups.name')
      .execute();
    for (const r of rows) {
      const list = out.get(r.link_id) ?? [];
      list.push({ linkId: r.link_id, groupId: r.group_id, name: r.name, createdAt: Number(r.created_at) });
      out.set(r.link_id, list);
    }
    return out;
  }

  async hasLink(holding: 'owner' | 'share', linkId: string, groupId: string, db: Executor = this.db): Promise<boolean> {
    const table = holding === 'owner' ? 'link_owner_groups' : 'link_share_groups';
    const r = await db.selectFrom(table).select('link_id').where('link_id', '=', linkId).where('group_id', '=', groupId).executeTakeFirst();
    return r !== undefined;
  }

  /** Makes the group an owner of, or shares with it, one link; already so is DUPLICATE_OWNER / DUPLICATE_SHARE. */
  async addLink(holding: 'owner' | 'share', linkId: string, groupId: string, at: number, tx: Executor): Promise<void> {
    const table = holding === 'owner' ? 'link_owner_groups' : 'link_share_groups';
    try {
      await tx.insertInto(table).values({ link_id: linkId, group_id: groupId, created_at: at }).execute();
    } catch (e) {
      if (isUniqueViolation(e)) {
        throw holding === 'owner'
          ? new AppError('DUPLICATE_OWNER', 'group is already an owner of this link')
          : new AppError('DUPLICATE_SHARE', 'link is already shared with this group');
      }
      if (isForeignKeyViolation(e)) throw new AppError('NOT_FOUND', 'group not found');
      throw e;
    }
  }

  /** Whether a row was removed. */
  async removeLink(holding: 'owner' | 'share', linkId: string, groupId: string, tx: Executor): Promise<boolean> {
    const table = holding === 'owner' ? 'link_owner_groups' : 'link_share_groups';
    const r = await tx.deleteFrom(table).where('link_id', '=', linkId).where('group_id', '=', groupId).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }
}
