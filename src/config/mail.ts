import { ConfigError, Reader, SETTINGS, type Source } from './sources.js';

/** Owner notification mail (docs/notifications.md#mail); `smtp` null: notifications stay in the app. */
export interface MailConfig {
  smtp: SmtpSettings | null;
  from: string | null;
}

export interface SmtpSettings {
  host: string;
  port: number;
  /** smtps: TLS from the first byte; smtp: STARTTLS when the server offers it. */
  secure: boolean;
  user: string | null;
  pass: string | null;
}

const SMTP_FORM = '(expected smtp://user:pass@host:port or smtps://user:pass@host:port)';

/** JOE_SMTP_URL; the error never repeats the URL, which may hold a password. */
function parseSmtpUrl(text: string): SmtpSettings {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw new ConfigError(`invalid JOE_SMTP_URL: not a URL ${SMTP_FORM}`);
  }
  if (u.protocol !== 'smtp:' && u.protocol !== 'smtps:') {
    throw new ConfigError(`invalid JOE_SMTP_URL: scheme "${u.protocol.replace(/:$/, '')}" ${SMTP_FORM}`);
  }
  if (u.hostname === '') throw new ConfigError(`invalid JOE_SMTP_URL: no host ${SMTP_FORM}`);
  if ((u.pathname !== '' && u.pathname !== '/') || u.search !== '' || u.hash !== '') {
    throw new ConfigError(`invalid JOE_SMTP_URL: unexpected path or query ${SMTP_FORM}`);
  }
  const secure = u.protocol === 'smtps:';
  let user: string | null;
  let pass: string | null;
  try {
    user = u.username === '' ? null : decodeURIComponent(u.username);
    pass = u.password === '' ? null : decodeURIComponent(u.password);
  } catch {
    throw new ConfigError(`invalid JOE_SMTP_URL: bad percent-encoding in the user or password ${SMTP_FORM}`);
  }
  return { host: u.hostname.replace(/^\[(.*)\]$/, '$1'), port: u.port === '' ? (secure ? 465 : 587) : Number(u.port), secure, user, pass };
}

/** `dana@example.com` or `Joe Links <links@example.com>`, one line. */
const MAIL_FROM = /^(?:[^<>\r\n]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/;

export function mailSettings(r: Reader): MailConfig {
  const smtpRaw = r.opt(SETTINGS.smtpUrl);
  const from = r.opt(SETTINGS.mailFrom);
  if (from !== null && !MAIL_FROM.test(from)) {
    throw new ConfigError(
      `invalid JOE_MAIL_FROM: "${from}" (expected an address such as links@example.com or Joe Links <links@example.com>)`,
    );
  }
  if (smtpRaw === null) return { smtp: null, from };
  const smtp = parseSmtpUrl(smtpRaw);
  if (from === null) throw new ConfigError('JOE_MAIL_FROM is required when JOE_SMTP_URL is set');
  return { smtp, from };
}

/**
 * Mail settings only: whether a change made by a CLI command notifies by mail
 * as the server's would (docs/notifications.md#mail).
 */
export function loadMailConfig(env: Source, yaml: Record<string, string>): MailConfig {
  return mailSettings(new Reader(env, yaml));
}
