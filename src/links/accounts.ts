import { AppError } from '../domain/errors.js';
import type { Executor, LinkView, User } from '../store/types.js';
import { eventActor, requireAdministrator, type Actor } from './actor.js';
import { commit, fieldsOf, userByEmail, type LinkContext } from './context.js';
import { fieldChanges, ownerOfEvent, type EventMember, type LinkEvent } from './events.js';

/**
 * Deleting a user account and what happens to their links
 * (docs/auth.md#deleting-a-user). With `reassign` (the default when they own
 * links) nothing is orphaned: a link they co-owned just loses them; a link
 * they were primary owner of goes to its longest-standing co-owner, or, when
 * no other person owns it, to the successor the admin names (the acting
 * admin without one; the operator, who has no account, must name one), who
 * also becomes the grantor of their shares and the manager of every group
 * they managed alone. With `delete` the links they
 * were primary owner of go and their grants on surviving links are revoked.
 * Either way their co-ownerships, memberships, tokens, received shares and
 * account go; their clicks stay, anonymised. Each link that changes makes
 * its event, in the one transaction of the deletion.
 */

export type LinkAction = 'reassign' | 'delete';

export interface UserDeletion {
  linkAction: LinkAction;
  /** Links whose primary ownership moved: to a co-owner or to the successor. */
  reassignedLinks: number;
  /** Of those, the links that went to the successor (no other person owned them). */
  toSuccessor: number;
  /** Of those, the links whose longest-standing co-owner became primary owner. */
  toCoOwners: number;
  /** Links the user co-owned, which simply lost them. */
  coOwnedLinks: number;
  /** Links deleted along with the user. */
  deletedLinks: number;
  /** Groups the user managed alone, now managed by the successor. */
  groupsHandedOver: number;
  /** Who took over: the named successor or the acting admin; null for `delete`. */
  successor: User | null;
}

export interface DeleteUserOptions {
  linkAction?: LinkAction;
  /** The email of who takes over what the user held alone; the acting admin when absent. */
  successor?: string;
}

const LINK_ACTION_REQUIRED = 'link_action required (reassign or delete)';

const memberOf = (u: User): EventMember => ({ userId: u.id, email: u.email, displayName: u.displayName });

async function views(ctx: LinkContext, ids: readonly string[], tx: Executor): Promise<LinkView[]> {
  const out: LinkView[] = [];
  for (const id of ids) {
    const v = await ctx.store.links.view(id, tx);
    if (v) out.push(v);
  }
  return out;
}

/**
 * Without an action it is `reassign` when a successor is named, else `delete` only when the
 * user is primary owner of nothing (BAD_REQUEST otherwise, so links never go by default).
 */
export async function deleteUser(ctx: LinkContext, actor: Actor, targetId: string, opts: DeleteUserOptions = {}): Promise<UserDeletion> {
  requireAdministrator(actor, 'only an admin may delete users');
  // The operator (the CLI) is no user: it deletes anyone, and has no account to hand links to.
  const admin = actor.kind === 'user' ? actor.user : null;
  if (targetId === admin?.id) throw new AppError('BAD_REQUEST', 'cannot delete yourself');
  const { linkAction } = opts;
  if (linkAction !== undefined && linkAction !== 'reassign' && linkAction !== 'delete') {
    throw new AppError('BAD_REQUEST', LINK_ACTION_REQUIRED, 'link_action');
  }
  if (linkAction === 'delete' && opts.successor !== undefined) {
    throw new AppError('BAD_REQUEST', 'a successor takes over links: it cannot go with link_action delete', 'successor');
  }
  const named = opts.successor === undefined ? null : await userByEmail(ctx, opts.successor, 'successor');
  if (named?.id === targetId) throw new AppError('BAD_REQUEST', 'the successor cannot be the user being deleted', 'successor');
  const accounts = ctx.store.userAdmin;
  return commit(
    ctx,
    async (tx, events) => {
      const now = ctx.now();
      if (!(await accounts.lockUser(targetId, now, tx))) throw new AppError('NOT_FOUND', 'user not found');
      const target = (await ctx.store.users.findById(targetId, tx))!;
      // The admin's role is read again inside the transaction: a demotion a moment ago counts.
      const current = admin ? await ctx.store.users.findById(admin.id, tx) : null;
      if (admin && current?.role !== 'admin') throw new AppError('FORBIDDEN', 'only an admin may delete users');
      const owned = await accounts.ownedLinkIds(targetId, tx);
      if (linkAction === undefined && !named && owned.primary.length > 0)
        throw new AppError('BAD_REQUEST', LINK_ACTION_REQUIRED, 'link_action');
      const action: LinkAction = linkAction ?? (named ? 'reassign' : 'delete');
      const base = { at: now, actor: eventActor(actor) };
      const primary = await views(ctx, owned.primary, tx);
      const coOwned = await views(ctx, owned.co, tx);
      const shared = await views(ctx, await accounts.sharedLinkIds(targetId, tx), tx);
      let successor: User | null = null;
      let toCoOwners = 0;
      let groupsHandedOver = 0;

      if (action === 'reassign') {
        successor = named ? ((await ctx.store.users.findById(named.id, tx)) ?? null) : current;
        if (!successor && !named) throw new AppError('BAD_REQUEST', 'name a successor to take over the links', 'successor');
        if (!successor) throw new AppError('NOT_FOUND', 'user not found', 'successor');
        const heirs = await accounts.oldestCoOwners(owned.primary, targetId, tx);
        const bySuccessor = owned.primary.filter((id) => !heirs.has(id));
        const byHeir = new Map<string, string[]>();
        for (const [linkId, heir] of heirs) byHeir.set(heir, [...(byHeir.get(heir) ?? []), linkId]);
        await accounts.movePrimary(targetId, successor.id, bySuccessor, now, tx);
        for (const [heir, ids] of byHeir) await accounts.movePrimary(targetId, heir, ids, now, tx);
        await accounts.regrantShares(targetId, successor.id, tx);
        const orphanedGroups = await accounts.groupsManagedAlone(targetId, tx);
        await accounts.makeManager(orphanedGroups, successor.id, now, tx);
        groupsHandedOver = orphanedGroups.length;
        toCoOwners = heirs.size;
        const people = new Map<string, User>([[successor.id, successor]]);
        for (const heir of byHeir.keys()) people.set(heir, (await ctx.store.users.findById(heir, tx))!);
        for (const l of primary) {
          const to = people.get(heirs.get(l.id) ?? successor.id)!;
          events.push({ ...base, linkId: l.id, slug: l.slug, kind: 'transferred', from: memberOf(target), to: memberOf(to) });
        }
      } else {
        await accounts.deleteLinks(owned.primary, tx);
        await accounts.deleteGrantsBy(targetId, tx);
        for (const l of primary) {
          const changes = fieldChanges(
            fieldsOf(
              l,
              l.tags.map((t) => t.name),
              l.aliases,
            ),
            null,
          );
          events.push({
            ...base,
            linkId: l.id,
            slug: l.slug,
            kind: 'deleted',
            changes,
            owners: l.owners.map(ownerOfEvent),
            createdAt: l.createdAt,
          });
        }
      }
      await accounts.deleteAccount(targetId, tx);
      const gone = new Set(action === 'delete' ? owned.primary : []);
      const memberEvents: LinkEvent[] = [
        ...coOwned.map((l): LinkEvent => ({ ...base, linkId: l.id, slug: l.slug, kind: 'owner_removed', member: memberOf(target) })),
        ...shared
          .filter((l) => !gone.has(l.id))
          .map((l): LinkEvent => ({ ...base, linkId: l.id, slug: l.slug, kind: 'share_removed', member: memberOf(target) })),
      ];
      events.push(...memberEvents);
      const moved = action === 'reassign' ? owned.primary.length : 0;
      return {
        linkAction: action,
        reassignedLinks: moved,
        toSuccessor: moved - toCoOwners,
        toCoOwners,
        coOwnedLinks: owned.co.length,
        deletedLinks: action === 'delete' ? owned.primary.length : 0,
        groupsHandedOver,
        successor,
      };
    },
    // Repeatable read: on PostgreSQL a link or share the user commits
    // concurrently then fails this transaction (and the retry sees it)
    // instead of being silently cascaded away without its disposition.
    { isolation: 'repeatable read' },
  );
}
