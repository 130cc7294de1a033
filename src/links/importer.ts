import { randomUUID } from 'node:crypto';
import { normalizeAliases } from '../domain/aliases.js';
import { importedTimesError } from '../domain/imports/mapping.js';
import { AppError } from '../domain/errors.js';
import { validateDescription, validateTitle, validateVisibility } from '../domain/linkInput.js';
import { recordText, type LinkRecord } from '../domain/linkRecords.js';
import { refuseNul } from '../domain/nul.js';
import { assertValidSlug } from '../domain/slug.js';
import { normalizeTags } from '../domain/tags.js';
import { validateDestination } from '../domain/url.js';
import { aliasTaken } from '../store/linkNames.js';
import type { LinkWrite } from '../store/links.js';
import type { Link, User } from '../store/types.js';
import { capsOf } from './access.js';
import { eventActor, type Actor } from './actor.js';
import { commit, fieldsOf, type LinkContext } from './context.js';
import { fieldChanges } from './events.js';

/**
 * The idempotent import behind `joe-links links import` (docs/api.md#bulk-export-and-import):
 * a record creates its link when the slug is free, updates it when it differs
 * from what is stored, and otherwise leaves it alone, so importing the same
 * file twice changes nothing the second time. Each record is its own
 * transaction, so one bad record never leaves half a link and never stops
 * the others.
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

async function ownersOf(ctx: LinkContext, actor: Actor, record: LinkRecord, opts: ImportOptions, notes: string[]): Promise<string[]> {
  // Only the operator and admins may hand links to the people a file names; anyone else imports for themselves.
  if (actor.kind === 'user' && (actor.user.role !== 'admin' || opts.keepFileOwners === false)) return [actor.user.id];
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

/**
 * Every link rule applies, except that expiry and archive times are restored
 * as given (an export of an expired link must import back). Fields the record
 * does not carry (CSV has no visibility, owners or dates) are kept.
 */
export async function importRecord(ctx: LinkContext, actor: Actor, record: LinkRecord, opts: ImportOptions): Promise<ImportOutcome> {
  refuseNul(recordText(record));
  assertValidSlug(record.slug);
  const url = validateDestination(record.url);
  // A field the file does not carry is undefined: empty on a new link, left as it is on an update.
  const title = record.title === undefined ? undefined : validateTitle(record.title);
  const description = record.description === undefined ? undefined : validateDescription(record.description);
  const tags = record.tags === undefined ? undefined : normalizeTags(record.tags);
  const aliases = record.aliases === undefined ? undefined : normalizeAliases(record.aliases, record.slug);
  const visibility = record.visibility === undefined ? undefined : validateVisibility(record.visibility);
  const timeError = importedTimesError(record, ctx.now());
  if (timeError !== null) throw new AppError('BAD_REQUEST', timeError, timeError.slice(0, timeError.indexOf(' ')));
  const expiresAt = record.expiresAt === undefined || record.expiresAt === null ? record.expiresAt : wholeSecond(record.expiresAt);
  const archivedAt = record.archivedAt;
  const notes: string[] = [];
  const ownerIds = await ownersOf(ctx, actor, record, opts, notes);
  const { store } = ctx;
  // An import may change a link only as its importer could by hand: a slug taken by someone else's link stays theirs.
  const taken = await store.links.getBySlug(record.slug);
  if (taken && !(await capsOf(store, actor, taken.id)).canEdit) {
    throw new AppError('SLUG_CONFLICT', 'slug is taken by a link you may not edit', 'slug');
  }

  const importsAsSelf = actor.kind === 'user' && (actor.user.role !== 'admin' || opts.keepFileOwners === false);
  /** What an update would write: only what differs; owners only ever added, never taken away. */
  const plan = (
    current: Link,
    stored: readonly { slug: string }[],
    storedAliases: readonly string[],
    owners: readonly { userId: string }[],
    now: number,
  ) => {
    const write: LinkWrite = { updatedAt: now };
    if (current.url !== url) write.url = url;
    if (title !== undefined && current.title !== title) write.title = title;
    if (description !== undefined && current.description !== description) write.description = description;
    if (visibility !== undefined && current.visibility !== visibility) write.visibility = visibility;
    if (expiresAt !== undefined && current.expiresAt !== expiresAt) write.expiresAt = expiresAt;
    if (archivedAt !== undefined && current.archivedAt !== archivedAt) write.archivedAt = archivedAt;
    if (record.healthChecksDisabled !== undefined && current.healthChecksDisabled !== record.healthChecksDisabled) {
      write.healthChecksDisabled = record.healthChecksDisabled;
    }
    if (record.forwardPathAndQuery !== undefined && current.forwardPathAndQuery !== record.forwardPathAndQuery) {
      write.forwardPathAndQuery = record.forwardPathAndQuery;
    }
    const slugs = (list: readonly { slug: string }[]) =>
      list
        .map((t) => t.slug)
        .sort()
        .join('\n');
    const tagsDiffer = tags !== undefined && slugs(stored) !== slugs(tags);
    const aliasesDiffer = aliases !== undefined && aliases.join('\n') !== storedAliases.join('\n');
    const existingOwners = new Set(owners.map((o) => o.userId));
    // The importer becomes owner of the links they create, never of existing ones; file owners (kept by an admin) are added.
    const newOwners = importsAsSelf ? [] : ownerIds.filter((u) => !existingOwners.has(u));
    const unchanged = Object.keys(write).length === 1 && !tagsDiffer && !aliasesDiffer && newOwners.length === 0;
    return { write, tagsDiffer, aliasesDiffer, newOwners, unchanged };
  };
  // Re-importing a file finds most rows unchanged: that is decided on a plain read, without a transaction.
  if (taken) {
    const stored = (await store.tags.forLinks([taken.id])).get(taken.id) ?? [];
    const storedAliases = (await store.linkNames.forLinks([taken.id])).get(taken.id) ?? [];
    if (plan(taken, stored, storedAliases, await store.owners.list(taken.id), ctx.now()).unchanged) {
      return { action: 'skipped', notes, changes: [] };
    }
  }

  try {
    return await commit(
      ctx,
      async (tx, events) => {
        const now = ctx.now();
        const base = { at: now, actor: eventActor(actor), source: opts.source };
        const existing = await store.links.getBySlug(record.slug, tx);
        // A name another link holds refuses the record before anything is written (docs/links.md#aliases).
        const holders = await store.linkNames.holders([record.slug, ...(aliases ?? [])], tx);
        const takenAlias = aliases?.find((a) => holders.has(a) && holders.get(a) !== existing?.id);
        if (!existing && holders.has(record.slug))
          throw new AppError('SLUG_CONFLICT', 'slug is already taken (as another link’s alias)', 'slug');
        if (takenAlias !== undefined) throw aliasTaken(takenAlias);
        if (!existing) {
          const owners = ownerIds.length > 0 ? ownerIds : opts.fallbackOwnerId !== null ? [opts.fallbackOwnerId] : [];
          if (owners.length === 0) {
            throw new AppError('BAD_REQUEST', 'no owner: none of its owners is a user here; pass --owner to give such links to someone');
          }
          const given = `given to ${opts.fallbackOwnerLabel ?? 'the --owner user'}`;
          if (ownerIds.length === 0 && (record.owners?.length ?? 0) > 0 && !notes.includes(given)) notes.push(given);
          const link: Link = {
            id: randomUUID(),
            slug: record.slug,
            url,
            title: title ?? '',
            description: description ?? '',
            visibility: visibility ?? 'public',
            createdAt: record.createdAt ?? now,
            updatedAt: now,
            expiresAt: expiresAt ?? null,
            archivedAt: archivedAt ?? null,
            healthChecksDisabled: record.healthChecksDisabled === true,
            forwardPathAndQuery: record.forwardPathAndQuery === true,
          };
          await store.links.insert(link, tx);
          await store.linkNames.setAliases(link.id, aliases ?? [], tx);
          for (const [i, u] of owners.entries()) await store.owners.insert(link.id, u, { primary: i === 0, at: now }, tx);
          await store.tags.setForLink(link.id, tags ?? [], tx, { fresh: true });
          events.push({
            ...base,
            linkId: link.id,
            slug: link.slug,
            kind: 'created',
            changes: fieldChanges(
              null,
              fieldsOf(
                link,
                (tags ?? []).map((t) => t.name),
                aliases ?? [],
              ),
            ),
          });
          return { action: 'created' as const, notes, changes: [] };
        }

        const current = (await store.links.lockForChange(existing.id, tx)) ?? existing;
        const stored = (await store.tags.forLinks([current.id], tx)).get(current.id) ?? [];
        const storedAliases = (await store.linkNames.forLinks([current.id], tx)).get(current.id) ?? [];
        const { write, tagsDiffer, aliasesDiffer, newOwners, unchanged } = plan(
          current,
          stored,
          storedAliases,
          await store.owners.list(current.id, tx),
          now,
        );
        if (unchanged) {
          return { action: 'skipped' as const, notes, changes: [] };
        }
        await store.links.write(current.id, write, tx);
        if (tagsDiffer) await store.tags.setForLink(current.id, tags!, tx);
        if (aliasesDiffer) await store.linkNames.setAliases(current.id, aliases!, tx);
        const link = { ...current, slug: current.slug };
        const after: Link = { ...current, ...write } as Link;
        const changes = fieldChanges(
          fieldsOf(
            current,
            stored.map((t) => t.name),
            storedAliases,
          ),
          fieldsOf(after, tagsDiffer ? tags!.map((t) => t.name) : stored.map((t) => t.name), aliasesDiffer ? aliases! : storedAliases),
        );
        if (Object.keys(changes).length > 0) events.push({ ...base, linkId: link.id, slug: link.slug, kind: 'updated', changes });
        for (const u of newOwners) {
          await store.owners.insert(current.id, u, { primary: false, at: now }, tx);
          const user = await store.users.findById(u, tx);
          if (user) {
            events.push({
              ...base,
              linkId: link.id,
              slug: link.slug,
              kind: 'owner_added',
              member: { userId: u, email: user.email, displayName: user.displayName },
            });
          }
        }
        const changed = [...Object.keys(changes), ...(newOwners.length > 0 ? ['owners'] : [])];
        if (write.healthChecksDisabled !== undefined && !changed.includes('healthChecksDisabled')) changed.push('healthChecksDisabled');
        return { action: 'updated' as const, notes, changes: changed };
      },
      { dryRun: opts.dryRun },
    );
  } catch (e) {
    if (e instanceof AppError && e.code === 'SLUG_CONFLICT' && e.message === 'slug is already taken') {
      throw new AppError('SLUG_CONFLICT', 'slug was taken while importing; run the import again');
    }
    throw e;
  }
}
