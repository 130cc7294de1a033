import nodemailer from 'nodemailer';
import { discoverProvider } from '../auth/oidc.js';
import type { Config } from '../config.js';
import { errorText, fail, ok, type CheckResult } from './check.js';

/**
 * The checks of `joe-links doctor` that reach other servers (docs/operations.md#doctor): the
 * identity provider's discovery document and the mail server. Each makes one attempt, bounded.
 */

export async function checkSignIn(config: Pick<Config, 'authMode' | 'oidc' | 'authProxyHeader' | 'trustedProxies'>): Promise<CheckResult> {
  const CHECK = 'sign-in';
  if (config.authMode === 'local') return ok(CHECK, 'local mode: one-time sign-in links (joe-links login-url)');
  if (config.authMode === 'proxy') {
    return ok(
      CHECK,
      `forward-auth: ${config.authProxyHeader} believed from ${config.trustedProxies.length} trusted proxy address range(s)`,
    );
  }
  const issuer = config.oidc.issuer!;
  try {
    await discoverProvider(config);
    return ok(CHECK, `OIDC provider ${issuer} answered discovery; it must allow the redirect URL ${config.oidc.redirectUrl}`);
  } catch (e) {
    return fail(
      CHECK,
      `OIDC discovery of ${issuer} failed: ${errorText(e)}`,
      `check JOE_OIDC_ISSUER: ${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration must answer from this host, naming the same issuer`,
    );
  }
}

/** Seconds a mail server may take to accept the connection and greet. */
const SMTP_TIMEOUT_MS = 5_000;

/**
 * Mail is configured by JOE_SMTP_URL (`smtp://user:pass@host:587`, or `smtps://` for TLS from
 * the first byte); the check connects, greets and logs in as sending would, and sends nothing.
 */
export async function checkMail(smtpUrl: string | undefined): Promise<CheckResult> {
  const CHECK = 'mail';
  if (!smtpUrl) return ok(CHECK, 'JOE_SMTP_URL is not set: no mail is sent');
  let url: URL;
  try {
    url = new URL(smtpUrl);
  } catch {
    return fail(CHECK, 'JOE_SMTP_URL is not a URL', 'write it as smtp://user:password@host:587 or smtps://user:password@host:465');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') {
    return fail(
      CHECK,
      `JOE_SMTP_URL starts with ${url.protocol}`,
      'write it as smtp://user:password@host:587 or smtps://user:password@host:465',
    );
  }
  const where = `${url.hostname}:${url.port || (url.protocol === 'smtps:' ? 465 : 587)}`;
  const transport = nodemailer.createTransport({
    url: smtpUrl,
    connectionTimeout: SMTP_TIMEOUT_MS,
    greetingTimeout: SMTP_TIMEOUT_MS,
    socketTimeout: SMTP_TIMEOUT_MS,
  });
  try {
    await transport.verify();
    return ok(CHECK, `${where} accepted the connection${url.username ? ' and the login' : ''}`);
  } catch (e) {
    // The message may quote the server, never the URL: the password stays out of it.
    return fail(CHECK, `${where}: ${errorText(e)}`, 'check the host, port, TLS (smtp:// or smtps://) and credentials in JOE_SMTP_URL');
  } finally {
    transport.close();
  }
}
