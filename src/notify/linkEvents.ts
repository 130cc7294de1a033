import type { NotificationDetail, NotificationPerson } from '../domain/notifications.js';
import type { EventRecorder } from '../links/context.js';
import type { EventMember, LinkEvent } from '../links/events.js';
import type { Store } from '../store/index.js';
import type { Executor } from '../store/types.js';
import { notificationActor, recordNotifications, type NotificationDraft, type NotifyOptions } from './record.js';

/**
 * Who is told about a change to a link (docs/notifications.md#what-you-are-notified-about):
 * every owner of the link, except whoever made the change, with
 * `link_changed`; someone removed as co-owner too; and the person a secure
 * link is shared with, with `link_shared`, and so is every member of a group
 * it is shared with, each as if shared with them alone. Runs as a recorder of the links
 * layer, so the notifications commit or roll back with the change.
 */

type NotifyStore = Pick<Store, 'notifications' | 'outbox' | 'users' | 'owners' | 'links' | 'groups' | 'now'>;

const person = (m: EventMember): NotificationPerson => ({ id: m.userId, email: m.email, displayName: m.displayName });

function detailOf(e: LinkEvent): NotificationDetail {
  const d: NotificationDetail = { actor: notificationActor(e.actor), event: e.kind };
  switch (e.kind) {
    case 'owner_added':
    case 'owner_removed':
    case 'share_added':
    case 'share_removed':
      d.member = person(e.member);
      break;
    case 'group_owner_added':
    case 'group_owner_removed':
    case 'group_share_added':
    case 'group_share_removed':
      d.group = e.group.name;
      break;
    case 'transferred':
      d.from = person(e.from);
      d.to = person(e.to);
      break;
    case 'updated':
    case 'restored':
      d.fields = Object.keys(e.changes);
      break;
    default:
      break;
  }
  return d;
}

/** The notifications one transaction's events make, read inside that transaction. */
export async function draftsForEvents(store: NotifyStore, tx: Executor, events: readonly LinkEvent[]): Promise<NotificationDraft[]> {
  const drafts: NotificationDraft[] = [];
  const owners = new Map<string, string[]>();
  const ownersOf = async (linkId: string) => {
    let ids = owners.get(linkId);
    if (!ids) {
      ids = await store.owners.peopleOf(linkId, tx);
      owners.set(linkId, ids);
    }
    return ids;
  };
  for (const e of events) {
    const actorId = e.actor.kind === 'user' ? e.actor.id : null;
    const base = { linkId: e.linkId, linkSlug: e.slug };
    const told = new Set<string>(actorId ? [actorId] : []);
    let sharedWith: string[] = [];
    if (e.kind === 'share_added') sharedWith = [e.member.userId];
    if (e.kind === 'group_share_added') {
      // Members who own the link already hold it: they hear of the share as a change, below.
      const owning = new Set(await ownersOf(e.linkId));
      sharedWith = (await store.groups.members(e.group.groupId, tx)).map((m) => m.userId).filter((id) => !owning.has(id));
    }
    if (sharedWith.some((id) => !told.has(id))) {
      const link = await store.links.get(e.linkId, tx);
      if (link?.visibility === 'secure') {
        for (const userId of sharedWith) {
          if (told.has(userId)) continue;
          drafts.push({ ...base, userId, kind: 'link_shared', detail: { actor: notificationActor(e.actor) } });
          told.add(userId);
        }
      }
    }
    const recipients = e.kind === 'deleted' ? e.owners.map((o) => o.userId) : await ownersOf(e.linkId);
    if (e.kind === 'owner_removed') recipients.push(e.member.userId);
    const detail = detailOf(e);
    for (const userId of recipients) {
      if (told.has(userId)) continue;
      told.add(userId);
      drafts.push({ ...base, userId, kind: 'link_changed', detail });
    }
  }
  return drafts;
}

/** The recorder `links/factory.ts` hands the links layer, for every surface. */
export function notificationRecorder(store: NotifyStore, opts: NotifyOptions): EventRecorder {
  return async (tx, events) => recordNotifications(store, tx, await draftsForEvents(store, tx, events), opts);
}
