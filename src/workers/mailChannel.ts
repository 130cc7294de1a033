import { createRequire } from 'node:module';
import type * as Nodemailer from 'nodemailer';
import { DEFAULT_MAIL_PACING, MAIL_FOLD_MS, mailAllowance, type MailPacing } from '../domain/notifications.js';
import type { RetryPolicy } from '../domain/outbox.js';
import { composeMail } from '../notify/mailMessage.js';
import type { Store } from '../store/index.js';
import type { Notification } from '../store/notifications.js';
import type { ChannelHandler, Delivery } from './outbox.js';
import type { SmtpSettings } from '../config/mail.js';

/**
 * The mail channel of the outbox (docs/notifications.md#mail). Each mail row
 * names one notification; its lane is its recipient. Delivering a row mails
 * what is pending for its (recipient, link, kind), so later ones are folded
 * into one mail, at most one such mail per MAIL_FOLD_MS. A person gets a few
 * mails per pacing window and `hourlyCap` an hour (a row due sooner waits, no
 * attempt counted); when more is waiting for them than they may still be
 * mailed, everything waiting goes out in one digest. A row whose notification
 * already went out with another is skipped.
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
  store: Pick<Store, 'notifications' | 'users' | 'links' | 'outbox' | 'now'>;
  sender: MailSender;
  from: string;
  baseUrl: string;
  prefix: string;
  policy?: RetryPolicy;
  pacing?: MailPacing;
}

/** Notifications one mail carries at most; more wait for the next. */
const MAIL_BATCH_MAX = 1_000;
const HOUR_MS = 3_600_000;

function replyCode(response: string | undefined): number | null {
  const m = /^(\d{3})\b/.exec(response ?? '');
  return m ? Number(m[1]) : null;
}

export function mailChannel(opts: MailChannelOptions): ChannelHandler {
  const { store } = opts;
  const pacing = opts.pacing ?? DEFAULT_MAIL_PACING;
  return {
    channel: 'mail',
    // The SMTP transport is the channel's own (jobs.ts makes one per server).
    async close() {
      opts.sender.close();
    },
    policy: opts.policy ?? MAIL_RETRY,
    attemptTimeoutMs: MAIL_ATTEMPT_TIMEOUT_MS,
    async deliver(row): Promise<Delivery> {
      const { notificationId } = JSON.parse(row.payload) as { notificationId: string };
      const n = await store.notifications.get(notificationId);
      if (!n || n.mailState !== 'pending') return { kind: 'skipped' };
      const user = await store.users.findById(n.userId);
      if (!user) return { kind: 'skipped' };
      const now = store.now();
      const prefs = (await store.notifications.emailPreferences([user.id])).get(user.id);
      const wanted = (kind: Notification['kind']) => prefs?.[kind] === true;
      // Turned off since: nothing of this kind is mailed any more.
      if (!wanted(n.kind)) {
        const off = (await store.notifications.pendingMailOf(user.id, MAIL_BATCH_MAX)).filter((p) => p.kind === n.kind).map((p) => p.id);
        return { kind: 'skipped', settle: (tx) => store.notifications.setMailState([n.id, ...off], 'none', now, tx) };
      }
      const { left, nextAt } = mailAllowance(await store.outbox.mailedAt(user.id, now - HOUR_MS), now, pacing);
      if (left === 0) return { kind: 'deferred', until: nextAt };
      const folded = await store.notifications.lastMailedByLinkKind(user.id, now - MAIL_FOLD_MS);
      const heldUntil = (p: Notification) => {
        const last = folded.get(`${p.linkId} ${p.kind}`);
        return last !== undefined && now < last + MAIL_FOLD_MS ? last + MAIL_FOLD_MS : null;
      };
      const held = heldUntil(n);
      if (held !== null) return { kind: 'deferred', until: held };
      const pending = await store.notifications.pendingMailOf(user.id, MAIL_BATCH_MAX);
      const off = pending.filter((p) => !wanted(p.kind)).map((p) => p.id);
      const ready = pending.filter((p) => p.id === n.id || (wanted(p.kind) && heldUntil(p) === null));
      if (!ready.some((b) => b.id === n.id)) ready.unshift(n);
      // While the person may still get a mail for each (link, kind) waiting, each gets its own;
      // once more are waiting than that, they all go out now in one digest.
      const groups = new Set(ready.map((p) => `${p.linkId} ${p.kind}`));
      const single = groups.size <= left;
      const batch = single ? ready.filter((p) => p.linkId === n.linkId && p.kind === n.kind) : ready;
      const ids = batch.map((b) => b.id);
      const link = single ? await store.links.get(n.linkId) : null;
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
          settle: async (tx) => {
            await store.notifications.setMailState(ids, 'sent', now, tx);
            await store.notifications.setMailState(off, 'none', now, tx);
          },
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
