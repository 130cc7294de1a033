import { styleText } from 'node:util';
import type { Config } from '../config.js';
import { validateEmail } from '../domain/email.js';
import type { Store } from '../store/index.js';
import type { User } from '../store/types.js';

/**
 * Local mode (docs/auth.md#local-mode): no identity provider, no passwords. People sign
 * in through one-time links that an administrator prints with
 * `joe-links login-url`; the very first start prints one for a bootstrap admin.
 */

export const DEFAULT_BOOTSTRAP_EMAIL = 'admin@localhost';

/** A fresh one-time sign-in URL for `user`: valid 15 minutes, single use. */
export async function issueSignInUrl(
  store: Pick<Store, 'identities' | 'loginTokens'>,
  config: Pick<Config, 'baseUrl'>,
  user: User,
): Promise<string> {
  const token = await store.loginTokens.create(user.id);
  return `${config.baseUrl}/auth/local?token=${token}`;
}

export interface BootstrapResult {
  user: User;
  action: 'created' | 'promoted';
  url: string;
}

/**
 * At `serve` start in local mode: when nobody holds admin, creates (or
 * promotes) the bootstrap admin and returns a sign-in URL for it. Null when
 * an admin exists already or the server is not in local mode.
 */
export async function bootstrapLocalAdmin(
  store: Pick<Store, 'identities' | 'loginTokens'>,
  config: Pick<Config, 'authMode' | 'adminEmail' | 'baseUrl'>,
): Promise<BootstrapResult | null> {
  if (config.authMode !== 'local') return null;
  // The account's email passes the one email rule (domain/email.ts) before it is looked up or made.
  const r = await store.identities.ensureBootstrapAdmin(validateEmail(config.adminEmail ?? DEFAULT_BOOTSTRAP_EMAIL));
  if (!r) return null;
  return { ...r, url: await issueSignInUrl(store, config, r.user) };
}

export interface BannerStyle {
  /** Framed for a person at a terminal; otherwise the plain block (between JSON log lines). */
  decorated?: boolean;
  colors?: boolean;
}

/**
 * The console announcement. Plain, it is a block a person spots in a wall of
 * JSON log lines; at a terminal it is framed (and coloured when the terminal
 * has colours) so it stands out among readable log lines. Either way the URL
 * stands alone on its line, so it can be copied whole. `command` is how the
 * reader runs joe-links where they are (cli/invocation.ts).
 */
export function bootstrapBanner(r: BootstrapResult, style: BannerStyle = {}, command = 'joe-links'): string {
  const what = `${r.action === 'created' ? 'Created' : 'Promoted'} the bootstrap admin ${r.user.email}`;
  const again = `A fresh link any time: ${command} login-url [--email you@example.com]`;
  if (!style.decorated) {
    const rule = '='.repeat(72);
    return [
      '',
      rule,
      `joe-links is in local mode. ${what}.`,
      'Sign in with this one-time link (valid 15 minutes, single use):',
      '',
      `    ${r.url}`,
      '',
      again,
      rule,
      '',
    ].join('\n');
  }
  const paint = (format: Parameters<typeof styleText>[0], text: string) => (style.colors ? styleText(format, text) : text);
  const title = ' Sign in to joe-links ';
  return [
    '',
    `  ${paint('cyan', `━━${paint('bold', title)}${'━'.repeat(70 - title.length)}`)}`,
    `  ${what} (local mode).`,
    '  Open this one-time link within 15 minutes; it works once:',
    '',
    `      ${paint(['bold', 'green'], r.url)}`,
    '',
    `  ${paint('dim', again)}`,
    `  ${paint('cyan', '━'.repeat(72))}`,
    '',
    '',
  ].join('\n');
}
