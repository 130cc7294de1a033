import { AppError, isAppError } from '../domain/errors.js';
import { validateLinkChanges, type LinkChanges } from '../domain/linkInput.js';
import type { StoredLinkEvent } from '../store/linkEvents.js';
import type { LinkView } from '../store/types.js';
import { isUuid, requireLink, type GrantedLink } from './access.js';
import type { Actor } from './actor.js';
import { commit, fieldsOf, type LinkContext } from './context.js';
import type { LinkField, LinkFields } from './events.js';
import { toHistoryEvent, VERSION_KINDS } from './history.js';
import { applyToLocked, lockLink } from './writes.js';

/**
 * One-click restore (docs/history.md#restoring-a-version): the link's fields
 * go back to what they were right after an earlier event of the same link,
 * as one `restored` event naming it. The state is found by undoing, newest
 * first, every change recorded after that event, starting from the link as
 * it is now: the link is locked for the whole transaction, so no change can
 * slip in between. The archive state is not a version of the link (archive
 * and unarchive are their own actions) and is left as it is.
 */

type RestorableField = Exclude<LinkField, 'archivedAt'>;

/**
 * How each field is written back. Typed over every field but the archive
 * state, so a field added to LinkFields cannot be forgotten here.
 */
const RESTORE: { [F in RestorableField]: (value: LinkFields[F], out: LinkChanges) => void } = {
  url: (v, o) => (o.url = v),
  defaultUrl: (v, o) => (o.defaultUrl = v),
  title: (v, o) => (o.title = v),
  description: (v, o) => (o.description = v),
  tags: (v, o) => (o.tags = v),
  aliases: (v, o) => (o.aliases = v),
  visibility: (v, o) => (o.visibility = v),
  expiresAt: (v, o) => (o.expiresAt = v),
  healthChecksDisabled: (v, o) => (o.healthChecksDisabled = v),
  forwardPathAndQuery: (v, o) => (o.forwardPathAndQuery = v),
};

function isRestorable(field: string): field is RestorableField {
  return Object.prototype.hasOwnProperty.call(RESTORE, field);
}

/** The fields right after the version: now, with every later change undone (`later` newest first). */
export function fieldsAtVersion(now: LinkFields, later: readonly StoredLinkEvent[]): LinkFields {
  const fields: Record<string, unknown> = { ...now };
  for (const row of later) {
    for (const [field, change] of Object.entries(toHistoryEvent(row, true).changes)) {
      if (Object.prototype.hasOwnProperty.call(fields, field)) fields[field] = change.from;
    }
  }
  return fields as unknown as LinkFields;
}

function changesFor(fields: LinkFields): LinkChanges {
  const out: LinkChanges = {};
  for (const field of Object.keys(RESTORE)) {
    if (!isRestorable(field)) continue;
    const write = RESTORE[field] as (value: unknown, out: LinkChanges) => void;
    write(fields[field], out);
  }
  return out;
}

export async function restoreLink(ctx: LinkContext, actor: Actor, target: GrantedLink | string, eventId: string): Promise<LinkView> {
  const granted = await requireLink(ctx.store, actor, target, 'canEdit');
  const id = granted.link.id;
  if (!isUuid(eventId)) throw new AppError('NOT_FOUND', 'event not found', 'event_id');
  await commit(ctx, async (tx, events) => {
    const locked = await lockLink(ctx, id, tx);
    const version = await ctx.store.linkEvents.get(eventId, tx);
    // An event of another link is not found here, whether or not that link still exists.
    if (!version || version.linkId !== id) throw new AppError('NOT_FOUND', 'event not found', 'event_id');
    if (!VERSION_KINDS.has(version.kind)) {
      throw new AppError(
        'NOT_RESTORABLE',
        `a ${version.kind} event changed no field of the link, so there is nothing to restore`,
        'event_id',
      );
    }
    const later = await ctx.store.linkEvents.after(id, version.seq, tx);
    const fields = fieldsAtVersion(
      fieldsOf(
        locked.current,
        locked.storedTags.map((t) => t.name),
        locked.storedAliases,
      ),
      later,
    );
    let valid;
    try {
      // The rules of today decide: an expiry that has passed since, or a value no longer allowed, is refused.
      valid = validateLinkChanges(changesFor(fields), locked.current, ctx.now());
    } catch (e) {
      if (!isAppError(e)) throw e;
      throw new AppError('RESTORE_CONFLICT', `this version cannot be restored: ${e.message}`, e.field);
    }
    await applyToLocked(ctx, actor, locked, valid, { kind: 'restored', restores: { eventId: version.id, at: version.at } }, tx, events);
  });
  const view = await ctx.store.links.view(id);
  if (!view) throw new AppError('NOT_FOUND', 'link not found');
  return view;
}
