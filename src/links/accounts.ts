import { AppError } from '../domain/errors.js';
import type { Executor, LinkView, User } from '../store/types.js';
import { eventActor, type Actor } from './actor.js';
import { commit, fieldsOf, type LinkContext } from './context.js';
import { fieldChanges, ownerOfEvent, type EventMember, type LinkEvent } from './events.js';

/**
 * Deleting a user account and what happens to their links
 * (docs/auth.md#deleting-a-user): with `reassign` the acting admin becomes
 * primary owner of the user's links and grantor of their shares; with
 * `delete` those links go and the user's grants on surviving links are
 * revoked. Either way their co-ownerships, tokens, received shares and
 * account go; their clicks stay, anonymised. Each link that changes makes
 * its event, in the one transaction of the deletion.
 */

export type LinkAction = 'reassign' | 'delete';

export interface UserDeletion {
  linkAction: LinkAction;
  /** Links whose primary ownership moved to the acting admin. */
  reassignedLinks: number;
  /** Links deleted along with the user. */
  deletedLinks: number;
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

/** Without an action it defaults to `delete` only when the user is primary owner of nothing. */
export async function deleteUser(ctx: LinkContext, actor: Actor, targetId: string, linkAction?: LinkAction): Promise<UserDeletion> {
  if (actor.kind !== 'user' || actor.user.role !== 'admin') throw new AppError('FORBIDDEN', 'only an admin may delete users');
  const admin = actor.user;
  if (targetId === admin.id) throw new AppError('BAD_REQUEST', 'cannot delete yourself');
  if (linkAction !== undefined && linkAction !== 'reassign' && linkAction !== 'delete') {
    throw new AppError('BAD_REQUEST', LINK_ACTION_REQUIRED, 'link_action');
  }
  const accounts = ctx.store.userAdmin;
  return commit(
    ctx,
    async (tx, events) => {
      const now = ctx.now();
      if (!(await accounts.lockUser(targetId, now, tx))) throw new AppError('NOT_FOUND', 'user not found');
      const target = (await ctx.store.users.findById(targetId, tx))!;
      // The admin's role is read again inside the transaction: a demotion a moment ago counts.
      const current = await ctx.store.users.findById(admin.id, tx);
      if (current?.role !== 'admin') throw new AppError('FORBIDDEN', 'only an admin may delete users');
      const owned = await accounts.ownedLinkIds(targetId, tx);
      if (owned.primary.length > 0 && linkAction === undefined) throw new AppError('BAD_REQUEST', LINK_ACTION_REQUIRED, 'link_action');
      const action: LinkAction = linkAction ?? 'delete';
      const base = { at: now, actor: eventActor(actor) };
      const primary = await views(ctx, owned.primary, tx);
      const coOwned = await views(ctx, owned.co, tx);
      const shared = await views(ctx, await accounts.sharedLinkIds(targetId, tx), tx);

      if (action === 'reassign') {
        await accounts.reassignPrimary(targetId, admin.id, owned.primary, now, tx);
        for (const l of primary) {
          events.push({ ...base, linkId: l.id, slug: l.slug, kind: 'transferred', from: memberOf(target), to: memberOf(current) });
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
      return {
        linkAction: action,
        reassignedLinks: action === 'reassign' ? owned.primary.length : 0,
        deletedLinks: action === 'delete' ? owned.primary.length : 0,
      };
    },
    // Repeatable read: on PostgreSQL a link or share the user commits
    // concurrently then fails this transaction (and the retry sees it)
    // instead of being silently cascaded away without its disposition.
    { isolation: 'repeatable read' },
  );
}
