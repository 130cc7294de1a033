import { discoverProvider } from '../auth/oidc.js';
import type { Config } from '../config.js';
import { smtpSender } from '../workers/mailChannel.js';
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

/**
 * Mail is configured by JOE_SMTP_URL, read and checked with the rest of the configuration
 * (a malformed URL fails the configuration check); this check connects, greets and logs in
 * through the same transport sending uses, and sends nothing.
 */
export async function checkMail(mail: Pick<Config, 'mail'>['mail']): Promise<CheckResult> {
  const CHECK = 'mail';
  const smtp = mail.smtp;
  if (smtp === null) return ok(CHECK, 'JOE_SMTP_URL is not set: no mail is sent');
  const where = `${smtp.host}:${smtp.port}`;
  const transport = smtpSender(smtp);
  try {
    await transport.verify();
    return ok(CHECK, `${where} accepted the connection${smtp.user !== null ? ' and the login' : ''}`);
  } catch (e) {
    // The message may quote the server, never the URL: the password stays out of it.
    return fail(CHECK, `${where}: ${errorText(e)}`, 'check the host, port, TLS (smtp:// or smtps://) and credentials in JOE_SMTP_URL');
  } finally {
    transport.close();
  }
}
