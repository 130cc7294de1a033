import type { Store } from '../store/index.js';
import type { Executor, Link, User } from '../store/types.js';
import { AppError } from '../domain/errors.js';
import { refuseNul } from '../domain/nul.js';
import type { LinkEvent, LinkEventBus, LinkFields } from './events.js';

/**
 * A write that must commit or roll back together with the change it
 * describes (history, outboxes): it runs inside the change's transaction,
 * after the change, with the change's events. Throwing undoes the change.
 */
export type EventRecorder = (tx: Executor, events: readonly LinkEvent[]) => Promise<void>;

/** What every operation of the links application layer runs with, built once at startup. */
export interface LinkContext {
  store: Store;
  events: LinkEventBus;
  /** Run in order inside every transaction that produced events. */
  recorders: readonly EventRecorder[];
  now: () => number;
}

class DryRunRollback extends Error {}

/**
 * Runs one change in one transaction, records its events through the
 * recorders in that same transaction and, once it has committed, hands the
 * events to the subscribers. `run` pushes events as it goes; a retried
 * attempt (after a deadlock) starts again with none. With `dryRun` every
 * write is made and checked, then rolled back, and nothing is published.
 */
export async function commit<T>(
  ctx: LinkContext,
  run: (tx: Executor, events: LinkEvent[]) => Promise<T>,
  opts: { dryRun?: boolean; isolation?: 'repeatable read' } = {},
): Promise<T> {
  let outcome: { result: T; events: LinkEvent[] } | undefined;
  try {
    await ctx.store.transaction(async (tx) => {
      const events: LinkEvent[] = [];
      outcome = { result: await run(tx, events), events };
      if (events.length > 0) for (const record of ctx.recorders) await record(tx, events);
      if (opts.dryRun) throw new DryRunRollback();
    }, opts.isolation);
  } catch (e) {
    if (!(e instanceof DryRunRollback)) throw e;
    return outcome!.result;
  }
  ctx.events.publish(outcome!.events);
  return outcome!.result;
}

/** A link's fields as events carry them; `aliases` sorted, as the store lists them. */
export function fieldsOf(link: Link, tagNames: readonly string[], aliases: readonly string[]): LinkFields {
  return {
    url: link.url,
    title: link.title,
    description: link.description,
    tags: [...tagNames],
    aliases: [...aliases],
    visibility: link.visibility,
    expiresAt: link.expiresAt,
    archivedAt: link.archivedAt,
    healthChecksDisabled: link.healthChecksDisabled,
    forwardPathAndQuery: link.forwardPathAndQuery,
    defaultUrl: link.defaultUrl,
  };
}

/**
 * The user an email names, by the one rule every surface shares: trimmed and
 * compared case-insensitively, the oldest account winning should two ever
 * match (docs/links.md#finding-people-by-email). Blank or holding a NUL is
 * BAD_REQUEST; no match is NOT_FOUND on `field`.
 */
export async function userByEmail(ctx: LinkContext, email: string, field = 'email'): Promise<User> {
  refuseNul([[field, email]]);
  if (email.trim() === '') throw new AppError('BAD_REQUEST', 'email is required', field);
  const user = await ctx.store.users.findByEmail(email);
  if (!user) throw new AppError('NOT_FOUND', 'user not found', field);
  return user;
}
