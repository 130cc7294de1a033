import { renderToString } from 'preact-render-to-string';
import { MAIL_LIST_MAX, notificationText, utcMinute } from '../domain/notifications.js';
import type { Notification } from '../store/notifications.js';

/**
 * The mail a batch of notifications becomes (docs/notifications.md#mail):
 * plain text and HTML with the same content. About one (link, kind): the
 * link's short name in the subject and an absolute link to the link's page
 * built from JOE_BASE_URL. About several: a digest, the first MAIL_LIST_MAX
 * listed, the rest counted, and a link to the notifications page. HTML is
 * rendered by Preact, so every value is escaped.
 */

export interface MailRecipient {
  id: string;
  email: string;
  displayName: string;
}

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface MailContext {
  baseUrl: string;
  /** The short-link prefix shown before slugs (`go`). */
  prefix: string;
  /** False once the link was deleted: the mail then points at the notifications page. */
  linkExists: boolean;
}

export const NOTIFICATION_SETTINGS_PATH = '/dashboard/settings/notifications';

export function linkPageUrl(baseUrl: string, linkId: string): string {
  return `${baseUrl}/dashboard/links/${encodeURIComponent(linkId)}`;
}

/** Header-safe: one line, no control characters. */
function oneLine(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
}

export function composeMail(recipient: MailRecipient, batch: readonly Notification[], ctx: MailContext): MailMessage {
  const first = batch[0]!;
  const single = batch.every((n) => n.linkId === first.linkId && n.kind === first.kind);
  const short = `${ctx.prefix}/${first.linkSlug}`;
  const all = batch.map((n) => ({ at: n.createdAt, text: notificationText(n, { prefix: ctx.prefix, readerId: recipient.id }) }));
  // A digest lists the first MAIL_LIST_MAX and counts the rest; the notifications page has them all.
  const lines = all.slice(0, MAIL_LIST_MAX);
  const more = all.length - lines.length;
  const notificationsUrl = `${ctx.baseUrl}/notifications`;
  const subject = oneLine(
    batch.length === 1 ? lines[0]!.text : single ? `${short}: ${batch.length} changes` : `${batch.length} notifications from Joe Links`,
  );
  const target = single && ctx.linkExists ? linkPageUrl(ctx.baseUrl, first.linkId) : notificationsUrl;
  const targetLabel = single && ctx.linkExists ? `Open ${short}` : 'See your notifications';
  const settings = `${ctx.baseUrl}${NOTIFICATION_SETTINGS_PATH}`;
  const name = recipient.displayName.trim() || recipient.email;
  const moreLine = `… and ${more} more`;
  const text = [
    `Hello ${name},`,
    '',
    ...lines.map((l) => (batch.length === 1 ? `${l.text}.` : `- ${l.text} (${utcMinute(l.at)})`)),
    ...(more > 0 ? [`${moreLine}: ${notificationsUrl}`] : []),
    '',
    `${targetLabel}: ${target}`,
    '',
    '--',
    `Joe Links tells you about links you own. Choose which mails you get: ${settings}`,
    '',
  ].join('\n');
  const html = renderToString(
    <html lang="en">
      <body style="font-family: sans-serif; line-height: 1.5; color: #1f2937">
        <p>{`Hello ${name},`}</p>
        {batch.length === 1 ? (
          <p>{`${lines[0]!.text}.`}</p>
        ) : (
          <ul>
            {lines.map((l) => (
              <li>{`${l.text} (${utcMinute(l.at)})`}</li>
            ))}
          </ul>
        )}
        {more > 0 ? (
          <p>
            <a href={notificationsUrl}>{moreLine}</a>
          </p>
        ) : null}
        <p>
          <a href={target}>{targetLabel}</a>
        </p>
        <hr />
        <p style="font-size: 12px; color: #6b7280">
          Joe Links tells you about links you own. <a href={settings}>Choose which mails you get</a>.
        </p>
      </body>
    </html>,
  );
  return { to: recipient.email, subject, text, html: `<!doctype html>${html}` };
}
