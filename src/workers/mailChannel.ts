import { createRequire } from 'node:module';
import type * as Nodemailer from 'nodemailer';
import { MAIL_FOLD_MS } from '../domain/notifications.js';
import type { RetryPolicy } from '../domain/outbox.js';
import { composeMail } from '../notify/mailMessage.js';
import type { Store } from '../store/index.js';
import type { ChannelHandler, Delivery } from './outbox.js';
import type { SmtpSettings } from '../config/mail.js';

/**
 * The mail channel of the outbox (docs/notifications.md#mail). Each mail row
 * names one notification; delivering it mails every notification still
 * pending for the same (recipient, link, kind), so later ones are folded
 * into one mail, and at most one such mail goes out per MAIL_FOLD_MS: a row
 * due sooner waits (no attempt counted). A row whose notification was
 * already mailed with another is skipped.
 */

/** Mail is retried from 30 s, doubling, 8 attempts in all (about two hours). */
export const MAIL_RETRY: RetryPolicy = { baseMs: 30_000, maxAttempts: 8 };

/**
 * One mail's try at most: nodemailer bounds connecting (10 s), the greeting
 * (10 s) and each wait on the socket (30 s); this bounds the whole of it.
 */
export const MAIL_ATTEMPT_TIMEOUT_MS = 60_000;

export interface MailSender {
  sendMail(message: {
    from: string;
    to: string;
    subject: string;
    text: string;
    html: string;
    headers: Record<string, string>;
  }): Promise<{ response?: string }>;
  /** Connects, greets and logs in without sending (`joe-links doctor`). */
  verify(): Promise<unknown>;
  close(): void;
}

/** Loaded when a sender is made: a server without JOE_SMTP_URL never loads nodemailer. */
const requireMailer = createRequire(import.meta.url);

/** nodemailer over SMTP: `smtps` is TLS from the start, `smtp` upgrades with STARTTLS when the server offers it. */
export function smtpSender(smtp: SmtpSettings): MailSender {
  const nodemailer = requireMailer('nodemailer') as typeof Nodemailer;
  return nodemailer.createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    auth: smtp.user !== null ? { user: smtp.user, pass: smtp.pass ?? '' } : undefined,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  }) as unknown as MailSender;
}

export interface MailChannelOptions {
  store: Pick<Store, 'notifications' | 'users' | 'links' | 'now'>;
  sender: MailSender;
  from: string;
  baseUrl: string;
  prefix: string;
  policy?: RetryPolicy;
}

function replyCode(response: string | undefined): number | null {
  const m = /^(\d{3})\b/.exec(response ?? '');
  return m ? Number(m[1]) : null;
}

export function mailChannel(opts: MailChannelOptions): ChannelHandler {
  const { store } = opts;
  return {
    channel: 'mail',
    policy: opts.policy ?? MAIL_RETRY,
    attemptTimeoutMs: MAIL_ATTEMPT_TIMEOUT_MS,
    async deliver(row): Promise<Delivery> {
      const { notificationId } = JSON.parse(row.payload) as { notificationId: string };
      const n = await store.notifications.get(notificationId);
      if (!n || n.mailState !== 'pending') return { kind: 'skipped' };
      const user = await store.users.findById(n.userId);
      if (!user) return { kind: 'skipped' };
      const now = store.now();
      const wanted = (await store.notifications.emailPreferences([user.id])).get(user.id)?.[n.kind] === true;
      const batch = await store.notifications.pendingMail(user.id, n.linkId, n.kind);
      const ids = batch.map((b) => b.id);
      // Turned off since: nothing of this kind is mailed any more.
      if (!wanted) return { kind: 'skipped', settle: (tx) => store.notifications.setMailState(ids, 'none', now, tx) };
      const last = await store.notifications.lastMailedAt(user.id, n.linkId, n.kind);
      if (last !== null && now < last + MAIL_FOLD_MS) return { kind: 'deferred', until: last + MAIL_FOLD_MS };
      const link = await store.links.get(n.linkId);
      const message = composeMail(user, batch, { baseUrl: opts.baseUrl, prefix: opts.prefix, linkExists: link !== null });
      try {
        const info = await opts.sender.sendMail({
          from: opts.from,
          ...message,
          headers: { 'Auto-Submitted': 'auto-generated', 'X-Joe-Links-Notification': n.kind },
        });
        return {
          kind: 'sent',
          statusCode: replyCode(info.response),
          settle: (tx) => store.notifications.setMailState(ids, 'sent', now, tx),
        };
      } catch (e) {
        const err = e as Error & { responseCode?: number };
        return { kind: 'failed', statusCode: typeof err.responseCode === 'number' ? err.responseCode : null, error: err.message };
      }
    },
    async onGiveUp(row, tx) {
      const { notificationId } = JSON.parse(row.payload) as { notificationId: string };
      await store.notifications.setMailState([notificationId], 'failed', store.now(), tx);
    },
  };
}
