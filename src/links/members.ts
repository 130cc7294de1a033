import { AppError } from '../domain/errors.js';
import { refuseNul } from '../domain/nul.js';
import type { Group, LinkGroup } from '../store/groups.js';
import type { Holding } from '../store/holdings.js';
import type { Executor, LinkShare, User } from '../store/types.js';
import { requireLink, type GrantedLink } from './access.js';
import { eventActor, type Actor } from './actor.js';
import { commit, userByEmail, type LinkContext } from './context.js';
import type { EventMember, GroupMemberKind, LinkEvent } from './events.js';
import { groupLookupName } from '../domain/groups.js';

/**
 * Co-owners and share rosters. Every operation needs CanManageShares, so a
 * share recipient can neither read nor change who else has access; people
 * are found by email with the one rule of `userByEmail`.
 */

const memberOf = (u: User): EventMember => ({ userId: u.id, email: u.email, displayName: u.displayName });

type MemberKind = 'owner_added' | 'owner_removed' | 'share_added' | 'share_removed';

function memberEvent(ctx: LinkContext, actor: Actor, granted: GrantedLink, kind: MemberKind, user: User): LinkEvent {
  return { linkId: granted.link.id, slug: granted.link.slug, at: ctx.now(), actor: eventActor(actor), kind, member: memberOf(user) };
}

/** The user a member row names, read inside the change's transaction for its event. */
async function memberUser(ctx: LinkContext, userId: string, tx: Executor): Promise<User> {
  const user = await ctx.store.users.findById(userId, tx);
  if (!user) throw new AppError('NOT_FOUND', 'user not found');
  return user;
}

/** Makes the user an owner (not the primary one); returns them. */
export async function addOwner(ctx: LinkContext, actor: Actor, target: GrantedLink | string, email: string): Promise<User> {
  const granted = await requireLink(ctx.store, actor, target, 'canManageShares');
  const user = await userByEmail(ctx, email);
  const { store } = ctx;
  await commit(ctx, async (tx, events) => {
    if (await store.owners.membership(granted.link.id, user.id, tx)) {
      throw new AppError('DUPLICATE_OWNER', 'user is already an owner of this link');
    }
    const now = ctx.now();
    await store.owners.insert(granted.link.id, user.id, { primary: false, at: now }, tx);
    await store.links.write(granted.link.id, { updatedAt: now }, tx);
    events.push(memberEvent(ctx, actor, granted, 'owner_added', user));
  });
  return user;
}

/** Removes a co-owner; the primary owner can never be removed. */
export async function removeOwner(ctx: LinkContext, actor: Actor, target: GrantedLink | string, userId: string): Promise<void> {
  const granted = await requireLink(ctx.store, actor, target, 'canManageShares');
  const { store } = ctx;
  await commit(ctx, async (tx, events) => {
    const row = await store.owners.membership(granted.link.id, userId, tx);
    if (!row) throw new AppError('NOT_FOUND', 'user is not an owner of this link');
    if (row.isPrimary) throw new AppError('PRIMARY_OWNER_PROTECTED', 'primary owner cannot be removed');
    const user = await memberUser(ctx, userId, tx);
    await store.owners.deleteCoOwner(granted.link.id, userId, tx);
    await store.links.write(granted.link.id, { updatedAt: ctx.now() }, tx);
    events.push(memberEvent(ctx, actor, granted, 'owner_removed', user));
  });
}

/** Shares the link with the user; the acting user is recorded as the grantor (the primary owner for the system). */
export async function addShare(ctx: LinkContext, actor: Actor, target: GrantedLink | string, email: string): Promise<LinkShare> {
  const granted = await requireLink(ctx.store, actor, target, 'canManageShares');
  const user = await userByEmail(ctx, email);
  const { store } = ctx;
  await commit(ctx, async (tx, events) => {
    if (await store.shares.exists(granted.link.id, user.id, tx)) {
      throw new AppError('DUPLICATE_SHARE', 'link is already shared with this user');
    }
    const sharedBy =
      actor.kind === 'user' ? actor.user.id : (await store.owners.list(granted.link.id, tx)).find((o) => o.isPrimary)?.userId;
    if (sharedBy === undefined) throw new AppError('NOT_FOUND', 'link not found');
    await store.shares.insert(granted.link.id, [user.id], { sharedBy, at: ctx.now() }, tx);
    events.push(memberEvent(ctx, actor, granted, 'share_added', user));
  });
  const share = (await store.shares.list(granted.link.id)).find((s) => s.userId === user.id);
  // Removed again by a concurrent request between the commit and this read.
  if (!share) throw new AppError('NOT_FOUND', 'share not found');
  return share;
}

/** Stops sharing the link with the user. */
export async function removeShare(ctx: LinkContext, actor: Actor, target: GrantedLink | string, userId: string): Promise<void> {
  const granted = await requireLink(ctx.store, actor, target, 'canManageShares');
  const { store } = ctx;
  await commit(ctx, async (tx, events) => {
    if (!(await store.shares.exists(granted.link.id, userId, tx))) throw new AppError('NOT_FOUND', 'share not found');
    const user = await memberUser(ctx, userId, tx);
    await store.shares.delete(granted.link.id, userId, tx);
    events.push(memberEvent(ctx, actor, granted, 'share_removed', user));
  });
}

// --- groups as owners and share recipients (docs/groups.md#links-of-a-group) ---

async function namedGroup(ctx: LinkContext, name: string, tx?: Executor): Promise<Group> {
  refuseNul([['group', name]]);
  const group = await ctx.store.groups.byName(groupLookupName(name), tx);
  if (!group) throw new AppError('NOT_FOUND', 'group not found', 'group');
  return group;
}

function groupEvent(ctx: LinkContext, actor: Actor, granted: GrantedLink, kind: GroupMemberKind, group: Group): LinkEvent {
  return {
    linkId: granted.link.id,
    slug: granted.link.slug,
    at: ctx.now(),
    actor: eventActor(actor),
    kind,
    group: { groupId: group.id, name: group.name },
  };
}

/**
 * Makes a group an owner (`owner`) of the link or shares the link with it (`share`): every
 * member then holds what a co-owner or share recipient holds, for as long as they are members.
 */
export async function addGroup(
  ctx: LinkContext,
  actor: Actor,
  target: GrantedLink | string,
  holding: Holding,
  name: string,
): Promise<LinkGroup> {
  const granted = await requireLink(ctx.store, actor, target, 'canManageShares');
  const group = await namedGroup(ctx, name);
  const { store } = ctx;
  await commit(ctx, async (tx, events) => {
    const now = ctx.now();
    await store.groups.addLink(holding, granted.link.id, group.id, now, tx);
    if (holding === 'owner') await store.links.write(granted.link.id, { updatedAt: now }, tx);
    events.push(groupEvent(ctx, actor, granted, holding === 'owner' ? 'group_owner_added' : 'group_share_added', group));
  });
  const added = (await store.groups.ofLinks(holding, [granted.link.id])).get(granted.link.id)?.find((g) => g.groupId === group.id);
  // Removed again by a concurrent request between the commit and this read.
  if (!added) throw new AppError('NOT_FOUND', 'group not found');
  return added;
}

/** Stops a group owning the link, or sharing it; `groupId` names the group. */
export async function removeGroup(
  ctx: LinkContext,
  actor: Actor,
  target: GrantedLink | string,
  holding: Holding,
  groupId: string,
): Promise<void> {
  const granted = await requireLink(ctx.store, actor, target, 'canManageShares');
  const { store } = ctx;
  await commit(ctx, async (tx, events) => {
    const group = await store.groups.byId(groupId, tx);
    if (!group || !(await store.groups.removeLink(holding, granted.link.id, group.id, tx))) {
      throw new AppError('NOT_FOUND', holding === 'owner' ? 'group is not an owner of this link' : 'share not found');
    }
    if (holding === 'owner') await store.links.write(granted.link.id, { updatedAt: ctx.now() }, tx);
    events.push(groupEvent(ctx, actor, granted, holding === 'owner' ? 'group_owner_removed' : 'group_share_removed', group));
  });
}
