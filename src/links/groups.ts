import { randomUUID } from 'node:crypto';
import { AppError } from '../domain/errors.js';
import {
  asGroupRole,
  canManageGroup,
  groupLookupName,
  validateGroupDescription,
  validateGroupName,
  type GroupRole,
} from '../domain/groups.js';
import type { Group, GroupMember } from '../store/groups.js';
import type { Executor, User } from '../store/types.js';
import { actorViewer, requireAdministrator, type Actor } from './actor.js';
import { userByEmail, type LinkContext } from './context.js';

/**
 * Groups and their members (docs/groups.md). Any signed-in user may create a group and
 * becomes its manager; a group's managers and the admins change it. The operator (the CLI)
 * may do everything an admin may. Membership is read by every access check as it is at
 * that moment (src/store/holdings.ts), so a change here counts on the next request.
 */

export interface GroupDetails extends Group {
  members: GroupMember[];
}

/** A group's own fields as a write gives them; absent fields keep their value on an update. */
export interface GroupInput {
  name?: string;
  description?: string | null;
  /** Whether sign-in keeps the members in step with the identity provider's groups: admins only. */
  managedBySignIn?: boolean;
}

async function groupNamed(ctx: LinkContext, name: string, db?: Executor): Promise<Group> {
  const group = typeof name === 'string' ? await ctx.store.groups.byName(groupLookupName(name), db) : null;
  if (!group) throw new AppError('NOT_FOUND', 'group not found');
  return group;
}

/** Refuses anyone but the group's managers, admins and the operator, reading the role in `tx`. */
async function requireManager(ctx: LinkContext, actor: Actor, group: Group, tx: Executor): Promise<void> {
  if (actor.kind === 'system') return;
  const viewer = actorViewer(actor)!;
  const role = await ctx.store.groups.role(group.id, viewer.id, tx);
  if (!canManageGroup(viewer, role)) throw new AppError('FORBIDDEN', 'only the group’s managers and admins may change it');
}

/** Members of a group that sign-in keeps in step are not edited by hand. */
function refuseSynced(group: Group): void {
  if (group.synced) {
    throw new AppError('GROUP_SYNCED', `the members of ${group.name} follow sign-in's groups and cannot be changed here`);
  }
}

export async function getGroup(ctx: LinkContext, name: string): Promise<GroupDetails> {
  const group = await groupNamed(ctx, name);
  return { ...group, members: await ctx.store.groups.members(group.id) };
}

/**
 * Creates a group. A user who creates one becomes its manager; the operator names the
 * manager (`manager`) or leaves the group to the admins.
 */
export async function createGroup(ctx: LinkContext, actor: Actor, input: GroupInput, manager?: User): Promise<GroupDetails> {
  const name = validateGroupName(input.name ?? '');
  const description = validateGroupDescription(input.description);
  const first = actor.kind === 'user' ? actor.user : manager;
  const now = ctx.now();
  const group: Group = { id: randomUUID(), name, description, synced: false, createdAt: now, updatedAt: now };
  await ctx.store.transaction(async (tx) => {
    await ctx.store.groups.insert(group, tx);
    if (first) await ctx.store.groups.addMember(group.id, first.id, 'manager', now, tx);
  });
  return getGroup(ctx, name);
}

/**
 * Renames a group or changes its description: its managers and admins. Handing its
 * membership to sign-in (or taking it back) is for admins alone: from then on sign-in adds and
 * removes people whatever the managers decided, and a manager could otherwise lock a group's
 * membership to an identity provider group they do not control.
 */
export async function updateGroup(ctx: LinkContext, actor: Actor, name: string, input: GroupInput): Promise<GroupDetails> {
  const group = await groupNamed(ctx, name);
  const newName = input.name === undefined ? group.name : validateGroupName(input.name);
  const description = input.description === undefined ? group.description : validateGroupDescription(input.description);
  const synced = input.managedBySignIn;
  if (synced !== undefined && synced !== group.synced) {
    requireAdministrator(actor, 'only admins may decide whether sign-in manages a group’s members');
  }
  await ctx.store.transaction(async (tx) => {
    if (!(await ctx.store.groups.lock(group.id, ctx.now(), tx))) throw new AppError('NOT_FOUND', 'group not found');
    await requireManager(ctx, actor, group, tx);
    await ctx.store.groups.update(group.id, { name: newName, description, synced, at: ctx.now() }, tx);
  });
  return getGroup(ctx, newName);
}

/** Deletes a group: the links it owned keep their other owners, its shares end. */
export async function deleteGroup(ctx: LinkContext, actor: Actor, name: string): Promise<void> {
  const group = await groupNamed(ctx, name);
  await ctx.store.transaction(async (tx) => {
    if (!(await ctx.store.groups.lock(group.id, ctx.now(), tx))) throw new AppError('NOT_FOUND', 'group not found');
    await requireManager(ctx, actor, group, tx);
    await ctx.store.groups.delete(group.id, tx);
  });
}

/** Adds someone by email with a role; already a member is DUPLICATE_MEMBER. */
export async function addGroupMember(ctx: LinkContext, actor: Actor, name: string, email: string, role?: string): Promise<GroupDetails> {
  const group = await groupNamed(ctx, name);
  const as = asGroupRole(role);
  refuseSynced(group);
  const user = await userByEmail(ctx, email);
  await ctx.store.transaction(async (tx) => {
    if (!(await ctx.store.groups.lock(group.id, ctx.now(), tx))) throw new AppError('NOT_FOUND', 'group not found');
    await requireManager(ctx, actor, group, tx);
    await ctx.store.groups.addMember(group.id, user.id, as, ctx.now(), tx);
  });
  return getGroup(ctx, group.name);
}

/**
 * Changes a member's role. A group that has managers keeps at least one: demoting the last
 * is LAST_MANAGER.
 */
export async function setGroupRole(ctx: LinkContext, actor: Actor, name: string, email: string, role: string): Promise<GroupDetails> {
  const group = await groupNamed(ctx, name);
  const as = asGroupRole(role);
  refuseSynced(group);
  const user = await userByEmail(ctx, email);
  await ctx.store.transaction(async (tx) => {
    if (!(await ctx.store.groups.lock(group.id, ctx.now(), tx))) throw new AppError('NOT_FOUND', 'group not found');
    await requireManager(ctx, actor, group, tx);
    const current = await ctx.store.groups.role(group.id, user.id, tx);
    if (current === null) throw new AppError('NOT_FOUND', 'user is not a member of this group');
    if (current === 'manager' && as !== 'manager') await refuseLastManager(ctx, group, tx);
    await ctx.store.groups.setRole(group.id, user.id, as, tx);
  });
  return getGroup(ctx, group.name);
}

/**
 * Removes a member. Managers and admins remove anyone; a member may also leave. The last
 * manager of a group that has other members cannot go (LAST_MANAGER): name another first.
 */
export async function removeGroupMember(ctx: LinkContext, actor: Actor, name: string, email: string): Promise<void> {
  const group = await groupNamed(ctx, name);
  refuseSynced(group);
  const user = await userByEmail(ctx, email);
  await ctx.store.transaction(async (tx) => {
    if (!(await ctx.store.groups.lock(group.id, ctx.now(), tx))) throw new AppError('NOT_FOUND', 'group not found');
    const leaving = actor.kind === 'user' && actor.user.id === user.id;
    if (!leaving) await requireManager(ctx, actor, group, tx);
    const role = await ctx.store.groups.role(group.id, user.id, tx);
    if (role === null) throw new AppError('NOT_FOUND', 'user is not a member of this group');
    if (role === 'manager') await refuseLastManager(ctx, group, tx, user.id);
    await ctx.store.groups.removeMember(group.id, user.id, tx);
  });
}

/** What one sign-in changed in the user's membership of synced groups, by group name. */
export interface SignInGroupChanges {
  added: string[];
  removed: string[];
}

/**
 * Brings a user's membership of the groups marked synced in step with the groups their
 * sign-in named (an OIDC claim, a forward-auth header; docs/groups.md#members-from-sign-in):
 * they join, as `member`, each synced group of a name given (matched without regard to case),
 * and leave each synced group of a name not given. Groups not marked synced are never touched,
 * and a name no synced group has creates nothing, so an identity provider's every group does
 * not become one here. Nothing is written when nothing differs. Each change is its own write:
 * a concurrent sign-in of the same person making it first is no failure.
 */
export async function syncSignInGroups(ctx: LinkContext, user: User, names: readonly string[]): Promise<SignInGroupChanges> {
  const wanted = new Set(names.map((n) => groupLookupName(n)).filter((n) => n !== ''));
  const current = await ctx.store.groups.syncedOf(user.id);
  const named = await ctx.store.groups.syncedNamed([...wanted]);
  const held = new Set(current.map((g) => g.id));
  const changes: SignInGroupChanges = { added: [], removed: [] };
  for (const g of named.filter((x) => !held.has(x.id))) {
    try {
      await ctx.store.transaction((tx) => ctx.store.groups.addMember(g.id, user.id, 'member', ctx.now(), tx));
      changes.added.push(g.name);
    } catch (e) {
      // Already a member (a sign-in a moment ago) or the group just deleted: nothing to do.
      if (!(e instanceof AppError && (e.code === 'DUPLICATE_MEMBER' || e.code === 'NOT_FOUND'))) throw e;
    }
  }
  for (const g of current.filter((x) => !wanted.has(x.name))) {
    if (await ctx.store.transaction((tx) => ctx.store.groups.removeMember(g.id, user.id, tx))) changes.removed.push(g.name);
  }
  return changes;
}

/** LAST_MANAGER when the group's only manager would go while other members stay. */
async function refuseLastManager(ctx: LinkContext, group: Group, tx: Executor, leavingId?: string): Promise<void> {
  if ((await ctx.store.groups.managerCount(group.id, tx)) > 1) return;
  const members = await ctx.store.groups.members(group.id, tx);
  const others = members.filter((m) => m.userId !== leavingId && m.role !== 'manager');
  if (leavingId === undefined || others.length > 0) {
    throw new AppError('LAST_MANAGER', `${group.name} would be left without a manager: make someone else a manager first`);
  }
}

export type { GroupRole };
