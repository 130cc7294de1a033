import type { NotificationActor } from '../domain/notifications.js';
import type { EventActor } from '../links/events.js';
import type { Store } from '../store/index.js';
import type { NewNotification } from '../store/notifications.js';
import type { Executor } from '../store/types.js';

/**
 * Writes notifications and, for those their recipient wants mailed, one
 * mail delivery each in the outbox, in the caller's transaction: the change
 * that caused them, a health transition or the expiry watch
 * (docs/notifications.md#delivery). Recipients whose account is gone by
 * then are left out.
 */

export type NotificationDraft = Omit<NewNotification, 'mailState'>;

export interface NotifyOptions {
  /** Mail is configured (JOE_SMTP_URL): mail deliveries are written at all. */
  mail: boolean;
}

export async function recordNotifications(
  store: Pick<Store, 'notifications' | 'outbox' | 'users' | 'now'>,
  tx: Executor,
  drafts: readonly NotificationDraft[],
  opts: NotifyOptions,
): Promise<void> {
  if (drafts.length === 0) return;
  const userIds = drafts.map((d) => d.userId);
  const existing = await store.users.existingIds(userIds, tx);
  const wanted = drafts.filter((d) => existing.has(d.userId));
  if (wanted.length === 0) return;
  const prefs = opts.mail ? await store.notifications.emailPreferences(userIds, tx) : null;
  const rows: NewNotification[] = wanted.map((d) => ({
    ...d,
    mailState: prefs?.get(d.userId)?.[d.kind] === true ? 'pending' : 'none',
  }));
  const stored = await store.notifications.insert(rows, tx);
  const now = store.now();
  await store.outbox.enqueue(
    stored
      .filter((n) => n.mailState === 'pending')
      .map((n) => ({
        channel: 'mail' as const,
        userId: n.userId,
        messageId: `mail_${n.id}`,
        eventType: n.kind,
        payload: JSON.stringify({ notificationId: n.id }),
        dueAt: now,
      })),
    tx,
  );
}

export function notificationActor(a: EventActor): NotificationActor {
  return a.kind === 'user' ? { type: 'user', id: a.id, email: a.email, displayName: a.displayName } : { type: 'system', via: a.via };
}
