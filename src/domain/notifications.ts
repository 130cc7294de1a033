/**
 * Owner notifications (docs/notifications.md): their kinds, the timing rules
 * and the one sentence each is shown as in the app, in mail and over the API.
 * Pure: who is told what is decided by the notify layer from stored facts.
 */

export const NOTIFICATION_KINDS = ['link_changed', 'link_shared', 'link_broken', 'link_expiring'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

export function isNotificationKind(v: unknown): v is NotificationKind {
  return typeof v === 'string' && (NOTIFICATION_KINDS as readonly string[]).includes(v);
}

/** What each kind is called on the settings page and in the API docs. */
export const NOTIFICATION_KIND_LABELS: Record<NotificationKind, string> = {
  link_changed: 'Someone else changes a link you own',
  link_shared: 'A secure link is shared with you',
  link_broken: 'A link you own turns broken',
  link_expiring: 'A link you own expires within 7 days',
};

/** How long before its expiry a link's owners are told (docs/notifications.md#what-you-are-notified-about). */
export const EXPIRY_NOTICE_MS = 7 * 24 * 3_600_000;

/** At most one mail per (link, kind, recipient) in this window; later ones wait and are folded into the next. */
export const MAIL_FOLD_MS = 10 * 60_000;

/**
 * How often one person is mailed at most (docs/notifications.md#how-much-mail): `MAIL_BURST`
 * mails in any `windowMs`, and no more than `hourlyCap` in any hour. What comes once those are
 * spent waits, and goes out together, in one mail, once the next is allowed.
 */
export interface MailPacing {
  windowMs: number;
  hourlyCap: number;
}

export const DEFAULT_MAIL_PACING: MailPacing = { windowMs: 60_000, hourlyCap: 10 };

/** Mails one person may get within one window: a few unrelated notifications still arrive one by one. */
export const MAIL_BURST = 3;

const HOUR_MS = 3_600_000;

/**
 * How many mails a person may still be sent right now, given when the mails
 * they were sent in the past hour went out; when none, from when on (`nextAt`).
 */
export function mailAllowance(sentAt: readonly number[], now: number, pacing: MailPacing): { left: number; nextAt: number } {
  const inHour = sentAt.filter((t) => t > now - HOUR_MS).sort((a, b) => b - a);
  const inWindow = inHour.filter((t) => t > now - pacing.windowMs);
  const left = Math.min(MAIL_BURST - inWindow.length, pacing.hourlyCap - inHour.length);
  if (left > 0) return { left, nextAt: now };
  let nextAt = now;
  // The burst-th newest mail must leave the window, the cap-th newest the hour, before another goes out.
  if (inWindow.length >= MAIL_BURST) nextAt = Math.max(nextAt, inWindow[MAIL_BURST - 1]! + pacing.windowMs);
  if (inHour.length >= pacing.hourlyCap) nextAt = Math.max(nextAt, inHour[pacing.hourlyCap - 1]! + HOUR_MS);
  return { left: 0, nextAt };
}

/** How many notifications a mail lists one by one; the rest are counted, with a link to the notifications page. */
export const MAIL_LIST_MAX = 50;

export type NotificationActor = { type: 'user'; id: string; email: string; displayName: string } | { type: 'system'; via: string };

export interface NotificationPerson {
  id: string;
  email: string;
  displayName: string;
}

/** What a notification is about, beyond its kind and link; stored as JSON. */
export interface NotificationDetail {
  actor: NotificationActor;
  /** link_changed: the kind of change (the links layer's event kind: updated, archived, owner_added, …). */
  event?: string;
  /** updated, restored, …: the link fields that changed. */
  fields?: string[];
  /** owner and share changes: the person added or removed. */
  member?: NotificationPerson;
  /** group owner and share changes: the group's name. */
  group?: string;
  /** transferred: the previous and the new primary owner. */
  from?: NotificationPerson;
  to?: NotificationPerson;
  /** link_expiring: the expiry announced. */
  expiresAt?: number;
}

export interface NotificationFacts {
  kind: NotificationKind;
  linkSlug: string;
  detail: NotificationDetail;
}

const FIELD_NAMES: Record<string, string> = {
  url: 'destination',
  defaultUrl: 'default destination',
  title: 'title',
  description: 'description',
  tags: 'tags',
  visibility: 'visibility',
  expiresAt: 'expiry',
  archivedAt: 'archive state',
  healthChecksDisabled: 'health checks',
};

function personName(p: { displayName: string; email: string }): string {
  return p.displayName.trim() || p.email;
}

export function actorName(a: NotificationActor): string {
  return a.type === 'user' ? personName(a) : `The server (${a.via})`;
}

function listed(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** "2026-01-20 12:00 UTC": one unambiguous form for mail and the API; the pages write their own (docs/web-ui.md#notifications). */
export function utcMinute(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * The sentence a notification is shown as. `link` is the link as the reader
 * sees it (`go/docs`); `readerId` turns the reader into "you"; `time` writes an
 * instant (`utcMinute` unless the surface has its own, as the pages do).
 */
export function notificationText(n: NotificationFacts, opts: { prefix: string; readerId: string; time?: (ms: number) => string }): string {
  const link = `${opts.prefix}/${n.linkSlug}`;
  const d = n.detail;
  const who = actorName(d.actor);
  const actorId = d.actor.type === 'user' ? d.actor.id : null;
  const them = (p: NotificationPerson | undefined) =>
    p === undefined ? 'someone' : p.id === opts.readerId ? 'you' : p.id === actorId ? 'themselves' : personName(p);
  switch (n.kind) {
    case 'link_shared':
      return `${who} shared the secure link ${link} with you`;
    case 'link_broken':
      return `The destination of ${link} looks broken: its last health checks failed`;
    case 'link_expiring':
      return d.expiresAt === undefined ? `${link} expires soon` : `${link} expires on ${(opts.time ?? utcMinute)(d.expiresAt)}`;
    case 'link_changed':
      break;
  }
  switch (d.event) {
    case 'created':
      return `${who} created ${link} for you`;
    case 'imported':
      return `${who} imported ${link}`;
    case 'updated': {
      const fields = (d.fields ?? []).map((f) => FIELD_NAMES[f] ?? f);
      return fields.length > 0 ? `${who} changed the ${listed(fields)} of ${link}` : `${who} changed ${link}`;
    }
    case 'archived':
      return `${who} archived ${link}`;
    case 'unarchived':
      return `${who} took ${link} out of the archive`;
    case 'renewed':
      return `${who} renewed ${link}`;
    case 'restored':
      return `${who} restored an earlier version of ${link}`;
    case 'owner_added':
      return `${who} made ${them(d.member)} a co-owner of ${link}`;
    case 'owner_removed':
      return `${who} removed ${them(d.member)} as a co-owner of ${link}`;
    case 'share_added':
      return `${who} shared ${link} with ${them(d.member)}`;
    case 'share_removed':
      return `${who} stopped sharing ${link} with ${them(d.member)}`;
    case 'group_owner_added':
      return `${who} made the group ${d.group ?? ''} an owner of ${link}`;
    case 'group_owner_removed':
      return `${who} removed the group ${d.group ?? ''} as an owner of ${link}`;
    case 'group_share_added':
      return `${who} shared ${link} with the group ${d.group ?? ''}`;
    case 'group_share_removed':
      return `${who} stopped sharing ${link} with the group ${d.group ?? ''}`;
    case 'transferred':
      return `${who} made ${them(d.to)} the primary owner of ${link} in place of ${them(d.from)}`;
    case 'deleted':
      return `${who} deleted ${link}`;
    default:
      return `${who} changed ${link}`;
  }
}
