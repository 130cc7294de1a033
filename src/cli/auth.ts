import type { Command } from 'commander';
import { CliError, requireUser, withStore } from './support.js';
import { issueSignInUrl } from '../auth/localLogin.js';
import { loadConfig, type Config } from '../config.js';
import { parseDuration } from '../domain/duration.js';
import { isTokenActive } from '../domain/tokens.js';

/**
 * Sign-in and token commands: `login-url` (local mode's one-time links) and
 * `tokens create|list|revoke` (personal access tokens for scripts).
 */

const iso = (ms: number | null): string => (ms === null ? 'never' : new Date(ms).toISOString());

function modeName(config: Config): string {
  return config.authMode === 'oidc'
    ? 'OIDC mode (JOE_OIDC_ISSUER is set), where people sign in through the identity provider'
    : 'forward-auth mode (JOE_AUTH_PROXY_HEADER is set), where people sign in at the authenticating proxy';
}

export function registerAuthCommands(program: Command): void {
  program
    .command('login-url')
    .description('print a one-time sign-in URL (local mode; valid 15 minutes, single use)')
    .option('--email <email>', 'the user to sign in (default: the oldest admin)')
    .action(async (o: { email?: string }) => {
      const config = loadConfig();
      if (config.authMode !== 'local') {
        throw new CliError(`login-url works only in local mode; this server runs in ${modeName(config)}`);
      }
      await withStore(async (store) => {
        const user = o.email !== undefined ? await requireUser(store, o.email) : await store.users.oldestAdmin();
        if (!user) throw new CliError('there is no admin yet: start the server once (joe-links serve) or pass --email');
        process.stderr.write(`one-time sign-in link for ${user.email} (valid 15 minutes, single use):\n`);
        process.stdout.write(`${await issueSignInUrl(store, config, user)}\n`);
      });
    });

  const tokens = program.command('tokens').description('manage personal access tokens for the REST API and MCP');
  tokens
    .command('create')
    .description('create a token and print it once')
    .requiredOption('--email <email>', 'the user the token acts as')
    .requiredOption('--name <name>', 'a label, e.g. ci')
    .option('--expires-in <duration>', 'lifetime such as 30d or 720h (default: never expires)')
    .action(async (o: { email: string; name: string; expiresIn?: string }) => {
      let ttl: number | null = null;
      if (o.expiresIn !== undefined) {
        ttl = parseDuration(o.expiresIn);
        if (ttl === null || ttl <= 0)
          throw new CliError(`invalid --expires-in "${o.expiresIn}" (expected a duration such as 30d, 720h, 1h30m)`);
      }
      await withStore(async (store) => {
        const user = await requireUser(store, o.email);
        const { token, plaintext } = await store.tokens.create(user.id, o.name, ttl === null ? null : { ttl });
        // The token alone on stdout, so `TOKEN=$(joe-links tokens create …)` captures just it.
        process.stderr.write(
          `created token "${token.name}" (${token.id}) for ${user.email}, expires ${iso(token.expiresAt)}; it is shown only now:\n`,
        );
        process.stdout.write(`${plaintext}\n`);
      });
    });
  tokens
    .command('list')
    .description("list a user's tokens, newest first (id, status, name, created, last used, expires)")
    .requiredOption('--email <email>', 'the owning user')
    .action(async (o: { email: string }) => {
      await withStore(async (store) => {
        const user = await requireUser(store, o.email);
        const now = store.now();
        for (const t of await store.tokens.listForUser(user.id)) {
          const status = t.revokedAt !== null ? 'revoked' : isTokenActive(t, now) ? 'active' : 'expired';
          process.stdout.write(
            `${t.id}\t${status}\t${t.name}\t${iso(t.createdAt)}\t${t.lastUsedAt === null ? 'never used' : iso(t.lastUsedAt)}\t${iso(t.expiresAt)}\n`,
          );
        }
      });
    });
  tokens
    .command('revoke')
    .description('revoke a token; it stops working at once')
    .requiredOption('--id <id>', 'the token id (see tokens list)')
    .action(async (o: { id: string }) => {
      await withStore(async (store) => {
        if (!(await store.tokens.revokeById(o.id))) throw new CliError(`no token with id ${o.id}`);
        process.stdout.write(`revoked token ${o.id}\n`);
      });
    });
}
