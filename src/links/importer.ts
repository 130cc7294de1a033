import { AppError, isAppError } from '../domain/errors.js';
import { importedTimesError } from '../domain/imports/mapping.js';
import type { LinkChanges } from '../domain/linkInput.js';
import { validateLinkChanges } from '../domain/linkInput.js';
import type { LinkRecord } from '../domain/linkRecords.js';
import type { Link, User } from '../store/types.js';
import { capsOf, type GrantedLink } from './access.js';
import type { Actor } from './actor.js';
import type { LinkContext } from './context.js';
import { changeLink, insertLink, wouldChange, type NewLink } from './writes.js';

/**
 * The idempotent import behind `joe-links links import` (docs/api.md#bulk-export-and-import):
 * a record creates its link when the slug is free, updates it when it differs
 * from what is stored, and otherwise leaves it alone, so importing the same
 * file twice changes nothing the second time. A record is written by the
 * links layer's own create and update, one transaction each: the same rules,
 * authorization inside the transaction, history, notifications and webhooks
 * as any other write. Fields the record does not carry are kept.
 */

export type ImportAction = 'created' | 'updated' | 'skipped';

export interface ImportOutcome {
  action: ImportAction;
  /** Things worth telling the operator, e.g. owners that matched no user. */
  notes: string[];
  /** The fields an update changes (or would change, in a dry run), e.g. `url`, `tags`, `owners`. */
  changes: string[];
}

export interface ImportOptions {
  /** Owner of links whose listed owners match no user (and of every CSV row); null: such links are refused. */
  fallbackOwnerId: string | null;
  /** Decide and validate everything, then roll back. */
  dryRun: boolean;
  /** The format the records came from, named in their events. */
  source: string;
  /**
   * Whether an admin (or the operator) gives links to the owners the record
   * names; false makes the acting user the owner, as it always is for anyone else.
   */
  keepFileOwners?: boolean;
  /** How the notes name the fallback owner, e.g. "the --owner user". */
  fallbackOwnerLabel?: string;
  /** Users already looked up by email in this import, so a file naming one owner 10,000 times asks once. */
  users?: Map<string, User | null>;
}

const wholeSecond = (ms: number): number => Math.floor(ms / 1000) * 1000;

const NOT_YOURS = 'slug is taken by a link you may not edit';
const NO_OWNER = 'no owner: none of its owners is a user here; pass --owner to give such links to someone';

/** Whether the actor imports for themselves: anyone but an admin (or the operator) keeping the file's owners. */
const importsAsSelf = (actor: Actor, opts: ImportOptions): boolean =>
  actor.kind === 'user' && (actor.user.role !== 'admin' || opts.keepFileOwners === false);

async function ownersOf(ctx: LinkContext, actor: Actor, record: LinkRecord, opts: ImportOptions, notes: string[]): Promise<string[]> {
  // Only the operator and admins may hand links to the people a file names; anyone else imports for themselves.
  if (actor.kind === 'user' && importsAsSelf(actor, opts)) return [actor.user.id];
  const ids: string[] = [];
  for (const email of record.owners ?? []) {
    const key = email.trim().toLowerCase();
    let user = opts.users?.get(key);
    if (user === undefined) {
      user = await ctx.store.users.findByEmail(email);
      opts.users?.set(key, user);
    }
    if (!user) notes.push(`owner ${email} matches no user`);
    else if (!ids.includes(user.id)) ids.push(user.id);
  }
  return ids;
}

/** The record as an update: only what the file carries, so re-importing keeps what was set here since. */
function changesOf(record: LinkRecord): LinkChanges {
  return {
    url: record.url,
    ...(record.defaultUrl !== undefined && { defaultUrl: record.defaultUrl }),
    ...(record.title !== undefined && { title: record.title }),
    ...(record.description !== undefined && { description: record.description }),
    ...(record.tags !== undefined && { tags: record.tags }),
    ...(record.aliases !== undefined && { aliases: record.aliases }),
    ...(record.visibility !== undefined && { visibility: record.visibility }),
    ...(record.expiresAt !== undefined && { expiresAt: record.expiresAt === null ? null : wholeSecond(record.expiresAt) }),
    ...(record.archivedAt !== undefined && { archived: record.archivedAt !== null }),
    ...(record.healthChecksDisabled !== undefined && { healthChecksDisabled: record.healthChecksDisabled }),
    ...(record.forwardPathAndQuery !== undefined && { forwardPathAndQuery: record.forwardPathAndQuery }),
  };
}

/** The record as a new link; what it does not carry takes the create defaults. */
function draftOf(record: LinkRecord): NewLink {
  return {
    slug: record.slug,
    url: record.url,
    defaultUrl: record.defaultUrl,
    title: record.title,
    description: record.description,
    tags: record.tags,
    aliases: record.aliases,
    visibility: record.visibility,
    ...(record.healthChecksDisabled !== undefined && { healthChecksDisabled: record.healthChecksDisabled }),
    ...(record.forwardPathAndQuery !== undefined && { forwardPathAndQuery: record.forwardPathAndQuery }),
  };
}

export async function importRecord(ctx: LinkContext, actor: Actor, record: LinkRecord, opts: ImportOptions): Promise<ImportOutcome> {
  // Times a file carries are held to what the API accepts before anything else is read.
  const timeError = importedTimesError(record, ctx.now());
  if (timeError !== null) throw new AppError('BAD_REQUEST', timeError, timeError.slice(0, timeError.indexOf(' ')));
  const notes: string[] = [];
  const ownerIds = await ownersOf(ctx, actor, record, opts, notes);
  const existing = await ctx.store.links.getBySlug(record.slug);
  if (existing) return importUpdate(ctx, actor, existing, record, ownerIds, opts, notes);
  const owners = ownerIds.length > 0 ? ownerIds : opts.fallbackOwnerId !== null ? [opts.fallbackOwnerId] : [];
  const given = `given to ${opts.fallbackOwnerLabel ?? 'the --owner user'}`;
  try {
    await insertLink(ctx, actor, draftOf(record), {
      owners,
      noOwner: NO_OWNER,
      source: opts.source,
      dryRun: opts.dryRun,
      ...(record.createdAt !== undefined && { createdAt: record.createdAt }),
      ...(record.expiresAt !== undefined && { expiresAt: record.expiresAt === null ? null : wholeSecond(record.expiresAt) }),
      ...(record.archivedAt !== undefined && { archivedAt: record.archivedAt }),
    });
  } catch (e) {
    if (!isAppError(e) || e.code !== 'SLUG_CONFLICT' || e.field !== 'slug') throw e;
    // Someone made the slug between our read and our write: theirs now, so the row is an update, authorized as one.
    const arrived = await ctx.store.links.getBySlug(record.slug);
    if (!arrived) throw new AppError('SLUG_CONFLICT', 'slug is already taken (as another link’s alias)', 'slug');
    return importUpdate(ctx, actor, arrived, record, ownerIds, opts, notes);
  }
  if (ownerIds.length === 0 && (record.owners?.length ?? 0) > 0 && owners.length > 0) notes.push(given);
  return { action: 'created', notes, changes: [] };
}

async function importUpdate(
  ctx: LinkContext,
  actor: Actor,
  current: Link,
  record: LinkRecord,
  ownerIds: readonly string[],
  opts: ImportOptions,
  notes: string[],
): Promise<ImportOutcome> {
  const { store } = ctx;
  // An import may change a link only as its importer could by hand: a slug taken by someone else's link stays theirs.
  const caps = await capsOf(store, actor, current.id);
  if (!caps.canEdit) throw new AppError('SLUG_CONFLICT', NOT_YOURS, 'slug');
  const changes = changesOf(record);
  const valid = validateLinkChanges(changes, current, ctx.now());
  // The importer becomes owner of the links they create, never of existing ones; file owners (kept by an admin) are added.
  const addOwners = importsAsSelf(actor, opts) ? [] : ownerIds;
  // Re-importing a file finds most rows unchanged: that is decided on a plain read, without a transaction.
  const read = {
    current,
    storedTags: (await store.tags.forLinks([current.id])).get(current.id) ?? [],
    storedAliases: (await store.linkNames.forLinks([current.id])).get(current.id) ?? [],
  };
  const stored = addOwners.length === 0 ? [] : (await store.owners.list(current.id)).map((o) => o.userId);
  if (!wouldChange(read, valid, ctx.now()) && addOwners.every((u) => stored.includes(u))) {
    return { action: 'skipped', notes, changes: [] };
  }
  const granted: GrantedLink = { outcome: 'ok', link: current, caps, actor };
  let changed: string[];
  try {
    changed = await changeLink(ctx, actor, granted, changes, null, { source: opts.source, dryRun: opts.dryRun, addOwners });
  } catch (e) {
    // The link changed hands between the read and the write: the transaction's own check said no.
    if (isAppError(e) && e.code === 'FORBIDDEN') throw new AppError('SLUG_CONFLICT', NOT_YOURS, 'slug');
    throw e;
  }
  return changed.length === 0 ? { action: 'skipped', notes, changes: [] } : { action: 'updated', notes, changes: changed };
}
