import { randomUUID } from 'node:crypto';
import { AppError } from '../domain/errors.js';
import { validateLinkChanges, validateLinkDraft, type LinkChanges, type LinkDraft, type ValidChanges } from '../domain/linkInput.js';
import type { LinkWrite } from '../store/links.js';
import type { Executor, Link, LinkView, User } from '../store/types.js';
import { requireLink, type GrantedLink } from './access.js';
import { eventActor, type Actor } from './actor.js';
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

export async function createLink(ctx: LinkContext, actor: Actor, input: NewLink): Promise<LinkView> {
  const ownerId = ownerOf(actor, input);
  const now = ctx.now();
  const valid = validateLinkDraft(input, now);
  const recipients = (await recipientsOf(ctx, input.shareWith ?? [])).filter((u) => u.id !== ownerId);
  const { store } = ctx;
  const link: Link = {
    id: randomUUID(),
    slug: valid.slug,
    url: valid.url,
    title: valid.title,
    description: valid.description,
    visibility: valid.visibility,
    createdAt: now,
    updatedAt: now,
    expiresAt: valid.expiresAt,
    archivedAt: null,
    healthChecksDisabled: input.healthChecksDisabled === true,
  };
  await commit(ctx, async (tx, events) => {
    if (await store.links.slugTaken(link.slug, tx)) throw new AppError('SLUG_CONFLICT', 'slug is already taken', 'slug');
    await store.links.insert(link, tx);
    await store.owners.insert(link.id, ownerId, { primary: true, at: now }, tx);
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
      kind: 'created',
      changes: fieldChanges(
        null,
        fieldsOf(
          link,
          valid.tags.map((t) => t.name),
        ),
      ),
    });
    for (const u of recipients) {
      events.push({ ...base, kind: 'share_added', member: { userId: u.id, email: u.email, displayName: u.displayName } });
    }
  });
  return (await store.links.view(link.id))!;
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
  set('title', valid.title, current.title);
  set('description', valid.description, current.description);
  set('visibility', valid.visibility, current.visibility);
  if (valid.expiresAt !== undefined) set('expiresAt', valid.expiresAt, current.expiresAt);
  // Archiving again keeps the first archive time.
  if (valid.archived !== undefined) set('archivedAt', valid.archived ? (current.archivedAt ?? now) : null, current.archivedAt);
  set('healthChecksDisabled', valid.healthChecksDisabled, current.healthChecksDisabled);
  return changed ? w : null;
}

function kindOf(requested: ChangeKind | null, before: Link, after: Link): ChangeKind {
  if (requested) return requested;
  const onlyArchive =
    before.url === after.url &&
    before.title === after.title &&
    before.description === after.description &&
    before.visibility === after.visibility &&
    before.expiresAt === after.expiresAt &&
    before.healthChecksDisabled === after.healthChecksDisabled;
  if (onlyArchive && before.archivedAt === null && after.archivedAt !== null) return 'archived';
  if (onlyArchive && before.archivedAt !== null && after.archivedAt === null) return 'unarchived';
  return 'updated';
}

/**
 * Applies validated changes in one transaction: only fields that really
 * change are written, and only a real change bumps `updated_at` and makes an
 * event, so a repeated archive or a re-saved form changes nothing.
 */
async function applyChanges(
  ctx: LinkContext,
  actor: Actor,
  granted: GrantedLink,
  valid: ValidChanges,
  requested: ChangeKind | null,
  tx: Executor,
  events: LinkEvent[],
): Promise<void> {
  const { store } = ctx;
  const id = granted.link.id;
  const current = await store.links.lockForChange(id, tx);
  if (!current) throw new AppError('NOT_FOUND', 'link not found');
  const storedTags = (await store.tags.forLinks([id], tx)).get(id) ?? [];
  const now = ctx.now();
  const write = writeFor(current, valid, now);
  const tagsChange =
    valid.tags !== undefined &&
    [...storedTags.map((t) => t.slug)].sort().join('\n') !==
      valid.tags
        .map((t) => t.slug)
        .sort()
        .join('\n');
  if (!write && !tagsChange) return;
  await store.links.write(id, write ?? { updatedAt: now }, tx);
  if (tagsChange) await store.tags.setForLink(id, valid.tags!, tx);
  const after: Link = {
    ...current,
    ...Object.fromEntries(Object.entries(write ?? {}).filter(([, v]) => v !== undefined)),
    updatedAt: now,
  } as Link;
  const afterTags = tagsChange ? ((await store.tags.forLinks([id], tx)).get(id) ?? []) : storedTags;
  events.push({
    linkId: id,
    slug: current.slug,
    at: now,
    actor: eventActor(actor),
    kind: kindOf(requested, current, after),
    changes: fieldChanges(
      fieldsOf(
        current,
        storedTags.map((t) => t.name),
      ),
      fieldsOf(
        after,
        afterTags.map((t) => t.name),
      ),
    ),
  });
}

async function change(
  ctx: LinkContext,
  actor: Actor,
  target: GrantedLink | string,
  changes: LinkChanges,
  requested: ChangeKind | null,
): Promise<LinkView> {
  const granted = await requireLink(ctx.store, actor, target, 'canEdit');
  const valid = validateLinkChanges(changes, granted.link.expiresAt, ctx.now());
  await commit(ctx, (tx, events) => applyChanges(ctx, actor, granted, valid, requested, tx, events));
  const view = await ctx.store.links.view(granted.link.id);
  if (!view) throw new AppError('NOT_FOUND', 'link not found');
  return view;
}

/** Changes a link the actor may edit; absent fields keep their value (docs/links.md#editing-a-link). */
export function updateLink(ctx: LinkContext, actor: Actor, target: GrantedLink | string, changes: LinkChanges): Promise<LinkView> {
  return change(ctx, actor, target, changes, null);
}

export function archiveLink(ctx: LinkContext, actor: Actor, target: GrantedLink | string): Promise<LinkView> {
  return change(ctx, actor, target, { archived: true }, 'archived');
}

export function unarchiveLink(ctx: LinkContext, actor: Actor, target: GrantedLink | string): Promise<LinkView> {
  return change(ctx, actor, target, { archived: false }, 'unarchived');
}

/** Clears the expiry; never touches the archive state (docs/lifecycle.md). */
export function renewLink(ctx: LinkContext, actor: Actor, target: GrantedLink | string): Promise<LinkView> {
  return change(ctx, actor, target, { expiresAt: null }, 'renewed');
}

/** The owner's opt-out of destination health checks. */
export function setHealthChecks(ctx: LinkContext, actor: Actor, target: GrantedLink | string, disabled: boolean): Promise<LinkView> {
  return change(ctx, actor, target, { healthChecksDisabled: disabled }, null);
}

/** Deletes a link with its owners, tags, shares, clicks and health; the slug is free again. */
export async function deleteLink(ctx: LinkContext, actor: Actor, target: GrantedLink | string): Promise<Link> {
  const granted = await requireLink(ctx.store, actor, target, 'canDelete');
  const { store } = ctx;
  return commit(ctx, async (tx, events) => {
    const current = await store.links.lockForChange(granted.link.id, tx);
    if (!current) throw new AppError('NOT_FOUND', 'link not found');
    const tags = (await store.tags.forLinks([current.id], tx)).get(current.id) ?? [];
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
        ),
        null,
      ),
      owners: owners.map(ownerOfEvent),
      createdAt: current.createdAt,
    });
    return current;
  });
}
