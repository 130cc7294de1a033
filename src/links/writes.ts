import { randomUUID } from 'node:crypto';
import { AppError } from '../domain/errors.js';
import {
  assertDefaultFits,
  validateLinkChanges,
  validateLinkDraft,
  type LinkChanges,
  type LinkDraft,
  type ValidChanges,
} from '../domain/linkInput.js';
import { refuseNul } from '../domain/nul.js';
import { aliasTaken } from '../store/linkNames.js';
import type { LinkWrite } from '../store/links.js';
import type { Executor, Link, LinkView, Tag, User } from '../store/types.js';
import { requireLink, type Capability, type GrantedLink } from './access.js';
import { linkVersion } from './version.js';
import { actorViewer, eventActor, type Actor } from './actor.js';
import { commit, fieldsOf, type LinkContext } from './context.js';
import { fieldChanges, ownerOfEvent, type LinkEvent } from './events.js';

/** A new link as a surface hands it over. */
export interface NewLink extends LinkDraft {
  healthChecksDisabled?: boolean;
  /** Emails of people to share the link with at once (docs/links.md#finding-people-by-email). */
  shareWith?: readonly string[];
  /** The primary owner, named by the system actor only; a signed-in user always owns what they create. */
  ownerId?: string;
}

function ownerOf(actor: Actor, input: NewLink): string {
  if (actor.kind === 'user') {
    if (input.ownerId !== undefined && input.ownerId !== actor.user.id) throw new AppError('FORBIDDEN', 'forbidden');
    return actor.user.id;
  }
  if (input.ownerId === undefined) throw new AppError('BAD_REQUEST', 'owner is required', 'owner');
  return input.ownerId;
}

/** Every recipient resolved before anything is written, and every unknown one named. */
async function recipientsOf(ctx: LinkContext, emails: readonly string[]): Promise<User[]> {
  refuseNul([['share_with', emails]]);
  const wanted = [...new Set(emails.map((e) => e.trim()).filter((e) => e !== ''))];
  const users = await Promise.all(wanted.map((e) => ctx.store.users.findByEmail(e)));
  const unknown = wanted.filter((_e, i) => users[i] === null);
  if (unknown.length > 0) {
    throw new AppError(
      'NOT_FOUND',
      `no user with email ${unknown.join(', ')}; they must sign in once before a link can be shared with them`,
      'share_with',
    );
  }
  const unique = new Map(users.map((u) => [u!.id, u!]));
  return [...unique.values()];
}

/**
 * What an import adds to a write, beside the link's fields: the format named
 * in the events, a dry run, and on create the owners the import decided (the
 * importer applies who may hand links to whom) and the times a file restores.
 */
export interface WriteOptions {
  /** The format an import read the change from, named in its events. */
  source?: string;
  /**
   * The versions the caller read the link at (docs/api.md#conditional-requests): the write is
   * refused with PRECONDITION_FAILED when the locked link is at none of them. Absent: no check.
   */
  ifVersion?: readonly string[];
  /** Make and check every write, then roll back and publish nothing. */
  dryRun?: boolean;
}

export interface ImportedCreate extends WriteOptions {
  /** Owner ids, primary first, in place of the acting user. */
  owners: readonly string[];
  /** When the source made the link. */
  createdAt?: number;
  /** Restored as given, so an export of an expired or archived link imports back as it was. */
  expiresAt?: number | null;
  archivedAt?: number | null;
  /** Why a link without owners is refused. */
  noOwner?: string;
}

export async function createLink(ctx: LinkContext, actor: Actor, input: NewLink): Promise<LinkView> {
  const link = await insertLink(ctx, actor, input, {});
  return (await ctx.store.links.view(link.id))!;
}

/**
 * The one insert of a new link: validated by the create rules, checked
 * against every name taken inside the transaction, with its owners, tags,
 * shares and events. Without `imported.owners`, the actor (or the system's
 * named owner) owns it.
 */
export async function insertLink(ctx: LinkContext, actor: Actor, input: NewLink, imported: Partial<ImportedCreate>): Promise<Link> {
  const owners = imported.owners ?? [ownerOf(actor, input)];
  const now = ctx.now();
  const valid = validateLinkDraft(input, now);
  if (owners.length === 0) throw new AppError('BAD_REQUEST', imported.noOwner ?? 'owner is required');
  const ownerId = owners[0]!;
  const recipients = (await recipientsOf(ctx, input.shareWith ?? [])).filter((u) => !owners.includes(u.id));
  const { store } = ctx;
  const link: Link = {
    id: randomUUID(),
    slug: valid.slug,
    url: valid.url,
    title: valid.title,
    description: valid.description,
    visibility: valid.visibility,
    createdAt: imported.createdAt ?? now,
    updatedAt: now,
    expiresAt: imported.expiresAt !== undefined ? imported.expiresAt : valid.expiresAt,
    archivedAt: imported.archivedAt ?? null,
    healthChecksDisabled: input.healthChecksDisabled === true,
    forwardPathAndQuery: valid.forwardPathAndQuery,
    defaultUrl: valid.defaultUrl,
  };
  await commit(
    ctx,
    async (tx, events) => {
      if (await store.links.slugTaken(link.slug, tx)) throw new AppError('SLUG_CONFLICT', 'slug is already taken', 'slug');
      await refuseTakenAliases(ctx, link.id, valid.aliases, tx);
      await store.links.insert(link, tx);
      await store.linkNames.setAliases(link.id, valid.aliases, tx);
      for (const [i, u] of owners.entries()) await store.owners.insert(link.id, u, { primary: i === 0, at: now }, tx);
      await store.tags.setForLink(link.id, valid.tags, tx, { fresh: true });
      await store.shares.insert(
        link.id,
        recipients.map((u) => u.id),
        { sharedBy: ownerId, at: now },
        tx,
      );
      const base = { linkId: link.id, slug: link.slug, at: now, actor: eventActor(actor) };
      events.push({
        ...base,
        ...(imported.source !== undefined && { source: imported.source }),
        kind: 'created',
        changes: fieldChanges(
          null,
          fieldsOf(
            link,
            valid.tags.map((t) => t.name),
            valid.aliases,
          ),
        ),
      });
      for (const u of recipients) {
        events.push({ ...base, kind: 'share_added', member: { userId: u.id, email: u.email, displayName: u.displayName } });
      }
    },
    { dryRun: imported.dryRun === true },
  );
  return link;
}

/**
 * The friendly refusal of a name another link holds, before anything is
 * written; the unique key of `link_names` still decides a race between two
 * writers (docs/links.md#aliases).
 */
async function refuseTakenAliases(ctx: LinkContext, linkId: string, aliases: readonly string[], tx: Executor): Promise<void> {
  const holders = await ctx.store.linkNames.holders(aliases, tx);
  const taken = aliases.find((a) => holders.has(a) && holders.get(a) !== linkId);
  if (taken !== undefined) throw aliasTaken(taken);
}

type ChangeKind = 'updated' | 'archived' | 'unarchived' | 'renewed';

/** The columns that differ from what is stored, or null when nothing would change. */
function writeFor(current: Link, valid: ValidChanges, now: number): LinkWrite | null {
  const w: LinkWrite = { updatedAt: now };
  let changed = false;
  const set = <K extends keyof LinkWrite>(key: K, value: LinkWrite[K], stored: LinkWrite[K]) => {
    if (value === undefined || value === stored) return;
    w[key] = value;
    changed = true;
  };
  set('url', valid.url, current.url);
  set('defaultUrl', valid.defaultUrl, current.defaultUrl);
  set('title', valid.title, current.title);
  set('description', valid.description, current.description);
  set('visibility', valid.visibility, current.visibility);
  if (valid.expiresAt !== undefined) set('expiresAt', valid.expiresAt, current.expiresAt);
  // Archiving again keeps the first archive time.
  if (valid.archived !== undefined) set('archivedAt', valid.archived ? (current.archivedAt ?? now) : null, current.archivedAt);
  set('healthChecksDisabled', valid.healthChecksDisabled, current.healthChecksDisabled);
  set('forwardPathAndQuery', valid.forwardPathAndQuery, current.forwardPathAndQuery);
  return changed ? w : null;
}

/** Whether two lists hold the same names, whatever their order. */
const sameSet = (a: readonly string[], b: readonly string[]): boolean => [...a].sort().join('\n') === [...b].sort().join('\n');

function kindOf(requested: ChangeKind | null, before: Link, after: Link, listsChanged: boolean): ChangeKind {
  if (requested) return requested;
  const onlyArchive =
    !listsChanged &&
    before.forwardPathAndQuery === after.forwardPathAndQuery &&
    before.url === after.url &&
    before.defaultUrl === after.defaultUrl &&
    before.title === after.title &&
    before.description === after.description &&
    before.visibility === after.visibility &&
    before.expiresAt === after.expiresAt &&
    before.healthChecksDisabled === after.healthChecksDisabled;
  if (onlyArchive && before.archivedAt === null && after.archivedAt !== null) return 'archived';
  if (onlyArchive && before.archivedAt !== null && after.archivedAt === null) return 'unarchived';
  return 'updated';
}

/** Whether validated changes would change anything of a link as read: what lets an unchanged import row skip its transaction. */
export function wouldChange(read: LockedLink, valid: ValidChanges, now: number): boolean {
  if (writeFor(read.current, valid, now)) return true;
  const tags = read.storedTags.map((t) => t.slug);
  if (
    valid.tags !== undefined &&
    !sameSet(
      tags,
      valid.tags.map((t) => t.slug),
    )
  )
    return true;
  return valid.aliases !== undefined && !sameSet(read.storedAliases, valid.aliases);
}

/** A link read and locked for a change, with its tags and aliases, inside the change's transaction. */
export interface LockedLink {
  current: Link;
  storedTags: Tag[];
  storedAliases: string[];
}

export async function lockLink(ctx: LinkContext, id: string, tx: Executor): Promise<LockedLink> {
  const current = await ctx.store.links.lockForChange(id, tx);
  if (!current) throw new AppError('NOT_FOUND', 'link not found');
  return {
    current,
    storedTags: (await ctx.store.tags.forLinks([id], tx)).get(id) ?? [],
    storedAliases: (await ctx.store.linkNames.forLinks([id], tx)).get(id) ?? [],
  };
}

/** The kind of event a change makes: a lifecycle action, a restore naming its version, or (null) whatever the fields say. */
export type Requested = ChangeKind | { kind: 'restored'; restores: { eventId: string; at: number } } | null;

/**
 * Applies validated changes to a locked link: only fields that really
 * change are written, and only a real change bumps `updated_at` and makes an
 * event, so a repeated archive or a re-saved form changes nothing.
 */
export async function applyToLocked(
  ctx: LinkContext,
  actor: Actor,
  locked: LockedLink,
  valid: ValidChanges,
  requested: Requested,
  tx: Executor,
  events: LinkEvent[],
  source?: string,
): Promise<string[]> {
  const { store } = ctx;
  const { current, storedTags, storedAliases } = locked;
  const id = current.id;
  const now = ctx.now();
  const write = writeFor(current, valid, now);
  const tagsChange =
    valid.tags !== undefined &&
    !sameSet(
      storedTags.map((t) => t.slug),
      valid.tags.map((t) => t.slug),
    );
  const aliasesChange = valid.aliases !== undefined && !sameSet(storedAliases, valid.aliases);
  if (!write && !tagsChange && !aliasesChange) return [];
  if (aliasesChange) await refuseTakenAliases(ctx, id, valid.aliases!, tx);
  await store.links.write(id, write ?? { updatedAt: now }, tx);
  if (tagsChange) await store.tags.setForLink(id, valid.tags!, tx);
  if (aliasesChange) await store.linkNames.setAliases(id, valid.aliases!, tx);
  const after: Link = {
    ...current,
    ...Object.fromEntries(Object.entries(write ?? {}).filter(([, v]) => v !== undefined)),
    updatedAt: now,
  } as Link;
  // Checked again on the locked row: the url the changes were validated against may have changed since.
  assertDefaultFits(after.url, after.defaultUrl);
  const afterTags = tagsChange ? ((await store.tags.forLinks([id], tx)).get(id) ?? []) : storedTags;
  const base = { linkId: id, slug: current.slug, at: now, actor: eventActor(actor) };
  const changes = fieldChanges(
    fieldsOf(
      current,
      storedTags.map((t) => t.name),
      storedAliases,
    ),
    fieldsOf(
      after,
      afterTags.map((t) => t.name),
      aliasesChange ? valid.aliases! : storedAliases,
    ),
  );
  events.push(
    requested !== null && typeof requested === 'object'
      ? { ...base, kind: 'restored', restores: requested.restores, changes }
      : {
          ...base,
          kind: kindOf(requested, current, after, tagsChange || aliasesChange),
          changes,
          ...(source !== undefined && { source }),
        },
  );
  const changed = Object.keys(changes);
  // Re-enabling health checks is a change even where the event's fields show none.
  if (write?.healthChecksDisabled !== undefined && !changed.includes('healthChecksDisabled')) changed.push('healthChecksDisabled');
  return changed;
}

async function change(
  ctx: LinkContext,
  actor: Actor,
  target: GrantedLink | string,
  changes: LinkChanges,
  requested: ChangeKind | null,
  ifVersion?: readonly string[],
): Promise<LinkView> {
  const granted = await requireLink(ctx.store, actor, target, 'canEdit');
  await changeLink(ctx, actor, granted, changes, requested, { ifVersion });
  const view = await ctx.store.links.view(granted.link.id);
  if (!view) throw new AppError('NOT_FOUND', 'link not found');
  return view;
}

/** Refuses a write that names versions of the link other than the one it is at now, on the locked row. */
function refuseStale(current: Link, tagNames: readonly string[], aliases: readonly string[], ifVersion?: readonly string[]): void {
  if (ifVersion === undefined || ifVersion.includes(linkVersion(current, tagNames, aliases))) return;
  throw new AppError('PRECONDITION_FAILED', 'the link was changed since you read it; read it again and reapply your change');
}

/**
 * The capability asked again inside the write's transaction, on the locked
 * link: what was granted before the transaction began may no longer hold
 * (an owner removed, a share revoked) when the write lands.
 */
async function authorizeLocked(ctx: LinkContext, actor: Actor, linkId: string, need: Capability, tx: Executor): Promise<void> {
  if (actor.kind === 'system') return;
  const caps = await ctx.store.access.capsIn(linkId, actorViewer(actor), tx);
  if (!caps[need]) throw new AppError('FORBIDDEN', 'forbidden');
}

/**
 * The one update of a link's fields: validated against the link as granted,
 * then locked, authorized again and written in one transaction. `addOwners`
 * (an import keeping a file's owners) become co-owners in that transaction.
 * Answers the fields that changed (`owners` among them), none when nothing did.
 */
export async function changeLink(
  ctx: LinkContext,
  actor: Actor,
  granted: GrantedLink,
  changes: LinkChanges,
  requested: ChangeKind | null,
  opts: WriteOptions & { addOwners?: readonly string[] },
): Promise<string[]> {
  const valid = validateLinkChanges(changes, granted.link, ctx.now());
  const { store } = ctx;
  return commit(
    ctx,
    async (tx, events) => {
      const locked = await lockLink(ctx, granted.link.id, tx);
      await authorizeLocked(ctx, actor, locked.current.id, 'canEdit', tx);
      refuseStale(
        locked.current,
        locked.storedTags.map((t) => t.name),
        locked.storedAliases,
        opts.ifVersion,
      );
      const changed = await applyToLocked(ctx, actor, locked, valid, requested, tx, events, opts.source);
      const id = locked.current.id;
      const wanted = opts.addOwners ?? [];
      const existing = new Set(wanted.length === 0 ? [] : (await store.owners.list(id, tx)).map((o) => o.userId));
      const added = wanted.filter((u, i, all) => !existing.has(u) && all.indexOf(u) === i);
      for (const u of added) {
        const user = await store.users.findById(u, tx);
        if (!user) continue;
        const now = ctx.now();
        await store.owners.insert(id, u, { primary: false, at: now }, tx);
        if (changed.length === 0) await store.links.write(id, { updatedAt: now }, tx);
        events.push({
          linkId: id,
          slug: locked.current.slug,
          at: now,
          actor: eventActor(actor),
          kind: 'owner_added',
          member: { userId: u, email: user.email, displayName: user.displayName },
        });
      }
      return added.length > 0 ? [...changed, 'owners'] : changed;
    },
    { dryRun: opts.dryRun === true },
  );
}

/** Changes a link the actor may edit; absent fields keep their value (docs/links.md#editing-a-link). */
export function updateLink(
  ctx: LinkContext,
  actor: Actor,
  target: GrantedLink | string,
  changes: LinkChanges,
  ifVersion?: readonly string[],
): Promise<LinkView> {
  return change(ctx, actor, target, changes, null, ifVersion);
}

export function archiveLink(ctx: LinkContext, actor: Actor, target: GrantedLink | string): Promise<LinkView> {
  return change(ctx, actor, target, { archived: true }, 'archived');
}

export function unarchiveLink(ctx: LinkContext, actor: Actor, target: GrantedLink | string): Promise<LinkView> {
  return change(ctx, actor, target, { archived: false }, 'unarchived');
}

/**
 * Clears the expiry, or with `expiresAt` moves it to that later time; never touches the
 * archive state (docs/lifecycle.md#renewal).
 */
export function renewLink(
  ctx: LinkContext,
  actor: Actor,
  target: GrantedLink | string,
  expiresAt: number | null = null,
): Promise<LinkView> {
  return change(ctx, actor, target, { expiresAt }, 'renewed');
}

/** The owner's opt-out of destination health checks. */
export function setHealthChecks(ctx: LinkContext, actor: Actor, target: GrantedLink | string, disabled: boolean): Promise<LinkView> {
  return change(ctx, actor, target, { healthChecksDisabled: disabled }, null);
}

/** Deletes a link with its owners, tags, shares, clicks and health; the slug is free again. */
export async function deleteLink(
  ctx: LinkContext,
  actor: Actor,
  target: GrantedLink | string,
  ifVersion?: readonly string[],
): Promise<Link> {
  const granted = await requireLink(ctx.store, actor, target, 'canDelete');
  const { store } = ctx;
  return commit(ctx, async (tx, events) => {
    const current = await store.links.lockForChange(granted.link.id, tx);
    if (!current) throw new AppError('NOT_FOUND', 'link not found');
    const tags = (await store.tags.forLinks([current.id], tx)).get(current.id) ?? [];
    const aliases = (await store.linkNames.forLinks([current.id], tx)).get(current.id) ?? [];
    refuseStale(
      current,
      tags.map((t) => t.name),
      aliases,
      ifVersion,
    );
    const owners = await store.owners.list(current.id, tx);
    await store.links.delete(current.id, tx);
    events.push({
      linkId: current.id,
      slug: current.slug,
      at: ctx.now(),
      actor: eventActor(actor),
      kind: 'deleted',
      changes: fieldChanges(
        fieldsOf(
          current,
          tags.map((t) => t.name),
          aliases,
        ),
        null,
      ),
      owners: owners.map(ownerOfEvent),
      createdAt: current.createdAt,
    });
    return current;
  });
}
