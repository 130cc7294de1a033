import type { Kysely, Selectable } from 'kysely';
import type { Database, NotificationsTable } from '../db/schema.js';
import { clickIds } from '../domain/click.js';
import { isNotificationKind, NOTIFICATION_KINDS, type NotificationDetail, type NotificationKind } from '../domain/notifications.js';
import { newestFirstCount, newestFirstPage, type CreatedKey, type NewestFirstFrom } from './newestFirst.js';
import type { Clock, Executor } from './types.js';

/**
 * Owner notifications and each user's mail choices (docs/notifications.md).
 * Every read and write names its user: no method reaches another user's
 * notification by id alone.
 */

export type MailState = 'none' | 'pending' | 'sent' | 'failed';

export interface NewNotification {
  userId: string;
  kind: NotificationKind;
  linkId: string;
  linkSlug: string;
  detail: NotificationDetail;
  /** `pending` when it is to be mailed too. */
  mailState: 'none' | 'pending';
}

export interface Notification {
  id: string;
  userId: string;
  kind: NotificationKind;
  linkId: string;
  linkSlug: string;
  detail: NotificationDetail;
  createdAt: number;
  readAt: number | null;
  mailState: MailState;
}

/** Mail on or off per kind; kinds without a stored choice are on. */
export type EmailPreferences = Record<NotificationKind, boolean>;

const num = (v: number | string | null): number | null => (v === null ? null : Number(v));

function toNotification(r: Selectable<NotificationsTable>): Notification {
  let detail: NotificationDetail;
  try {
    detail = JSON.parse(r.detail) as NotificationDetail;
  } catch {
    detail = { actor: { type: 'system', via: 'unknown' } };
  }
  return {
    id: r.id,
    userId: r.user_id,
    kind: isNotificationKind(r.kind) ? r.kind : 'link_changed',
    linkId: r.link_id,
    linkSlug: r.link_slug,
    detail,
    createdAt: Number(r.created_at),
    readAt: num(r.read_at),
    mailState: r.mail_state as MailState,
  };
}

export class NotificationStore {
  /** Time-ordered ids, so notifications made in the same millisecond still list newest first. */
  private readonly nextId: () => string;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: Clock,
  ) {
    this.nextId = clickIds(now);
  }

  /** Inserts in the caller's transaction (a recorder's); returns the rows as stored. */
  async insert(rows: readonly NewNotification[], tx: Executor): Promise<Notification[]> {
    if (rows.length === 0) return [];
    const at = this.now();
    const stored = rows.map((r): Notification => ({ ...r, id: this.nextId(), createdAt: at, readAt: null, mailState: r.mailState }));
    await tx
      .insertInto('notifications')
      .values(
        stored.map((n) => ({
          id: n.id,
          user_id: n.userId,
          kind: n.kind,
          link_id: n.linkId,
          link_slug: n.linkSlug,
          detail: JSON.stringify(n.detail),
          created_at: n.createdAt,
          read_at: null,
          mail_state: n.mailState,
          mailed_at: null,
        })),
      )
      .execute();
    return stored;
  }

  /** A user's notifications, newest first, a keyset page before or after (created_at, id). */
  async page(userId: string, opts: NewestFirstFrom & { limit: number }): Promise<{ items: Notification[]; hasMore: boolean }> {
    const { rows, hasMore } = await newestFirstPage(this.ofUser(userId).selectAll(), opts, opts.limit);
    return { items: rows.map(toNotification), hasMore };
  }

  /** How many notifications the user has, or only those newer than `newerThan`: where a page sits. */
  async count(userId: string, opts: { newerThan?: CreatedKey } = {}): Promise<number> {
    return newestFirstCount(this.ofUser(userId), opts.newerThan);
  }

  private ofUser(userId: string) {
    return this.db.selectFrom('notifications').where('user_id', '=', userId);
  }

  /** The bell's number: one indexed count. */
  async unreadCount(userId: string): Promise<number> {
    const r = await this.db
      .selectFrom('notifications')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('user_id', '=', userId)
      .where('read_at', 'is', null)
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  /**
   * Marks the user's notifications with these ids read. Either every id is
   * one of the user's and all are marked, or nothing changes and false is
   * returned: an id of someone else's notification is answered exactly like
   * an unknown one.
   */
  async markRead(userId: string, ids: readonly string[], at: number = this.now()): Promise<boolean> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return true;
    return this.db.transaction().execute(async (tx) => {
      const own = await tx
        .selectFrom('notifications')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('user_id', '=', userId)
        .where('id', 'in', unique)
        .executeTakeFirst();
      if (Number(own?.n ?? 0) !== unique.length) return false;
      await tx
        .updateTable('notifications')
        .set({ read_at: at })
        .where('user_id', '=', userId)
        .where('id', 'in', unique)
        .where('read_at', 'is', null)
        .execute();
      return true;
    });
  }

  async markAllRead(userId: string, at: number = this.now()): Promise<number> {
    const r = await this.db
      .updateTable('notifications')
      .set({ read_at: at })
      .where('user_id', '=', userId)
      .where('read_at', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows);
  }

  /** Mail choices of many users at once (a recorder's transaction). */
  async emailPreferences(userIds: readonly string[], db: Executor = this.db): Promise<Map<string, EmailPreferences>> {
    const out = new Map<string, EmailPreferences>();
    const unique = [...new Set(userIds)];
    for (const id of unique) out.set(id, Object.fromEntries(NOTIFICATION_KINDS.map((k) => [k, true])) as EmailPreferences);
    if (unique.length === 0) return out;
    const rows = await db
      .selectFrom('notification_preferences')
      .select(['user_id', 'kind', 'email'])
      .where('user_id', 'in', unique)
      .execute();
    for (const r of rows) if (isNotificationKind(r.kind)) out.get(r.user_id)![r.kind] = Number(r.email) === 1;
    return out;
  }

  /** Stores the given choices; kinds not named keep theirs. Rows are replaced, never upserted (portable). */
  async setEmailPreferences(userId: string, prefs: Partial<EmailPreferences>): Promise<void> {
    const kinds = Object.keys(prefs).filter(isNotificationKind);
    if (kinds.length === 0) return;
    await this.db.transaction().execute(async (tx) => {
      await tx.deleteFrom('notification_preferences').where('user_id', '=', userId).where('kind', 'in', kinds).execute();
      await tx
        .insertInto('notification_preferences')
        .values(kinds.map((kind) => ({ user_id: userId, kind, email: prefs[kind] ? 1 : 0 })))
        .execute();
    });
  }

  // Mail: read and written by the mail channel of the outbox (workers/mailChannel.ts).

  async get(id: string, db: Executor = this.db): Promise<Notification | null> {
    const r = await db.selectFrom('notifications').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? toNotification(r) : null;
  }

  /** Everything still to be mailed to one person, oldest first, at most `limit`. */
  async pendingMailOf(userId: string, limit: number): Promise<Notification[]> {
    const rows = await this.db
      .selectFrom('notifications')
      .selectAll()
      .where('user_id', '=', userId)
      .where('mail_state', '=', 'pending')
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map(toNotification);
  }

  /** When each (link, kind) was last mailed to one person, of those mailed since `since`; keyed `linkId kind`. */
  async lastMailedByLinkKind(userId: string, since: number): Promise<Map<string, number>> {
    const rows = await this.db
      .selectFrom('notifications')
      .select((eb) => ['link_id', 'kind', eb.fn.max('mailed_at').as('at')])
      .where('user_id', '=', userId)
      .where('mail_state', '=', 'sent')
      .where('mailed_at', '>', since)
      .groupBy(['link_id', 'kind'])
      .execute();
    return new Map(rows.map((r) => [`${r.link_id} ${r.kind}`, Number(r.at)]));
  }

  /** Moves pending notifications on: `sent` (stamped `at`), `failed` or `none` (mail turned off). */
  async setMailState(ids: readonly string[], state: Exclude<MailState, 'pending'>, at: number, tx: Executor): Promise<void> {
    if (ids.length === 0) return;
    await tx
      .updateTable('notifications')
      .set({ mail_state: state, mailed_at: state === 'sent' ? at : null })
      .where('id', 'in', [...new Set(ids)])
      .where('mail_state', '=', 'pending')
      .execute();
  }
}
