import { loadDbConfig } from '../config.js';
import { connect, type Db } from '../db/connect.js';
import { migrateUp } from '../db/migrate.js';
import { asSystem, createLinkService, type Actor, type LinkService } from '../links/index.js';
import { createStore, type Store } from '../store/index.js';
import type { User } from '../store/types.js';
import { loadYaml } from '../config/sources.js';
import { loadMailConfig } from '../config/mail.js';

/** A failure worth one line on stderr and a non-zero exit, without a stack trace. */
export class CliError extends Error {}

export function out(line: string): void {
  process.stdout.write(`${line}\n`);
}

/**
 * Runs a maintenance command against the configured database. These commands
 * need only the database settings (docs/server.md#commands), never the OIDC ones.
 */
export async function withStore<T>(fn: (store: Store, db: Db) => Promise<T>, opts: { migrate?: boolean } = {}): Promise<T> {
  const db = connect(loadDbConfig(process.env, loadYaml()));
  try {
    if (opts.migrate !== false) await migrateUp(db);
    return await fn(createStore(db), db);
  } finally {
    await db.close();
  }
}

export async function requireUser(store: Store, email: string): Promise<User> {
  const user = await store.users.findByEmail(email);
  if (!user) throw new CliError(`no user with email ${email} (create one with: joe-links users create --email ${email})`);
  return user;
}

/**
 * The links layer as the server has it, so a change made here is recorded and
 * announced alike: history, the owners' notifications (mailed when mail is
 * configured) and webhook deliveries, which the server's outbox jobs send.
 */
export function cliLinkService(store: Store): LinkService {
  return createLinkService(store, { mail: loadMailConfig(process.env, loadYaml()).smtp !== null });
}

/**
 * The operator: the system with every capability, recorded in history as the
 * CLI and, with `--as EMAIL`, as acting for that user (docs/history.md#who-and-where).
 */
export async function cliOperator(store: Store, asEmail: string | undefined): Promise<Actor> {
  return asSystem('cli', asEmail === undefined ? undefined : await requireUser(store, asEmail));
}
