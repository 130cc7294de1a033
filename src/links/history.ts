import { randomUUID } from 'node:crypto';
import { AppError } from '../domain/errors.js';
import { decodeCursor, DEFAULT_PAGE_SIZE, encodeCursor, MAX_PAGE_SIZE } from '../domain/keysetCursor.js';
import type { LinkEventRecord, StoredLinkEvent } from '../store/linkEvents.js';
import type { Store } from '../store/index.js';
import { requireLink, type GrantedLink } from './access.js';
import type { Actor } from './actor.js';
import type { EventRecorder, LinkContext } from './context.js';
import type { EventMember, LinkEvent } from './events.js';

/**
 * Link history (docs/history.md): every event of the links layer is stored
 * by `historyRecorder`, in the transaction of the change it describes, and
 * read back here newest first, one keyset page at a time. Who added or
 * removed a member, and whom, is shown only to holders of CanManageShares
 * (docs/history.md#who-sees-what).
 */

/** The kinds a stored event may have: every LinkEvent kind, and `imported` (a `created` naming its source). */
export const HISTORY_KINDS = [
  'created',
  'imported',
  'updated',
  'archived',
  'unarchived',
  'renewed',
  'restored',
  'owner_added',
  'owner_removed',
  'share_added',
  'share_removed',
  'group_owner_added',
  'group_owner_removed',
  'group_share_added',
  'group_share_removed',
  'transferred',
  'deleted',
] as const;

export type HistoryKind = (typeof HISTORY_KINDS)[number];

/** Kinds about a person other than the actor: the person and the actor need CanManageShares. */
export const MEMBER_KINDS: ReadonlySet<string> = new Set([
  'owner_added',
  'owner_removed',
  'share_added',
  'share_removed',
  'group_owner_added',
  'group_owner_removed',
  'group_share_added',
  'group_share_removed',
  'transferred',
]);

/** Kinds whose `changes` leave the link's fields in a state a restore can go back to. */
export const VERSION_KINDS: ReadonlySet<string> = new Set([
  'created',
  'imported',
  'updated',
  'archived',
  'unarchived',
  'renewed',
  'restored',
]);

export function isHistoryKind(kind: string): kind is HistoryKind {
  return (HISTORY_KINDS as readonly string[]).includes(kind);
}

// --- writing ------------------------------------------------------------------

function storedKind(e: LinkEvent): HistoryKind {
  return e.kind === 'created' && e.source !== undefined ? 'imported' : e.kind;
}

function toRecord(e: LinkEvent): LinkEventRecord {
  // Everything but the columns is the event's own data, whatever its kind: a field or kind added later is stored as it is.
  const { linkId, slug, at, actor, kind: _kind, ...data } = e;
  const person =
    actor.kind === 'user'
      ? { id: actor.id, email: actor.email, name: actor.displayName }
      : actor.onBehalfOf
        ? { id: actor.onBehalfOf.userId, email: actor.onBehalfOf.email, name: actor.onBehalfOf.displayName }
        : null;
  return {
    id: randomUUID(),
    linkId,
    slug,
    kind: storedKind(e),
    at,
    via: actor.via ?? null,
    actorId: person?.id ?? null,
    actorEmail: person?.email ?? null,
    actorName: person?.name ?? null,
    data: JSON.stringify(data),
  };
}

/** The recorder that keeps history: all events of one transaction in one multi-row INSERT. */
export function historyRecorder(store: Pick<Store, 'linkEvents'>): EventRecorder {
  return (tx, events) => store.linkEvents.insert(events.map(toRecord), tx);
}

// --- reading ------------------------------------------------------------------

export interface HistoryPerson {
  id: string;
  email: string;
  displayName: string;
}

export type FieldChange = { from: unknown; to: unknown };

export interface HistoryEvent {
  id: string;
  linkId: string;
  slug: string;
  kind: HistoryKind;
  at: number;
  /** The surface: `web`, `api`, `mcp`, `cli`; null when not recorded. */
  via: string | null;
  /** Null for the system (CLI, jobs) unless the operator named a user, and when redacted. */
  actor: HistoryPerson | null;
  /** Changed fields by their LinkFields names (`primaryOwner` for a transfer), each with before and after. */
  changes: Record<string, FieldChange>;
  /** The owner or share recipient a member event is about; null otherwise and when redacted. */
  member: HistoryPerson | null;
  /** The group a group owner or share event is about; null otherwise and when redacted. */
  group: { id: string; name: string } | null;
  /** The import format of an imported change. */
  source: string | null;
  /** The event a `restored` event went back to. */
  restores: { eventId: string; at: number } | null;
  /** A member event shown without its people (docs/history.md#who-sees-what). */
  redacted: boolean;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function personOf(value: unknown): HistoryPerson | null {
  const m = record(value) as Partial<EventMember>;
  return typeof m.userId === 'string' ? { id: m.userId, email: String(m.email ?? ''), displayName: String(m.displayName ?? '') } : null;
}

function groupOf(value: unknown): { id: string; name: string } | null {
  const g = record(value);
  return typeof g.groupId === 'string' ? { id: g.groupId, name: String(g.name ?? '') } : null;
}

function changesOf(data: Record<string, unknown>): Record<string, FieldChange> {
  const out: Record<string, FieldChange> = {};
  for (const [field, change] of Object.entries(record(data.changes))) {
    const c = record(change);
    out[field] = { from: c.from ?? null, to: c.to ?? null };
  }
  return out;
}

/** A stored row as the surfaces show it; `full` false leaves out who and whom of a member event. */
export function toHistoryEvent(row: StoredLinkEvent, full: boolean): HistoryEvent {
  let data: Record<string, unknown>;
  try {
    data = record(JSON.parse(row.data));
  } catch {
    data = {};
  }
  const changes = changesOf(data);
  if (row.kind === 'transferred') changes.primaryOwner = { from: personOf(data.from), to: personOf(data.to) };
  const restores = record(data.restores);
  const event: HistoryEvent = {
    id: row.id,
    linkId: row.linkId,
    slug: row.slug,
    // Only this module writes the column, always one of HISTORY_KINDS.
    kind: row.kind as HistoryKind,
    at: row.at,
    via: row.via,
    actor: row.actorId !== null ? { id: row.actorId, email: row.actorEmail ?? '', displayName: row.actorName ?? '' } : null,
    changes,
    member: personOf(data.member),
    group: groupOf(data.group),
    source: typeof data.source === 'string' ? data.source : null,
    restores:
      typeof restores.eventId === 'string' && typeof restores.at === 'number' ? { eventId: restores.eventId, at: restores.at } : null,
    redacted: false,
  };
  // Governing: docs/history.md#who-sees-what — who changed the members, and whom, only with CanManageShares.
  if (!full && MEMBER_KINDS.has(row.kind)) {
    return { ...event, actor: null, member: null, group: null, changes: {}, redacted: true };
  }
  return event;
}

export interface HistoryPageRequest {
  /** Events per page: default 50, at most 200 (anything not a positive number means 50). */
  limit?: number;
  /** `nextCursor` of the previous page; anything this server did not issue is BAD_REQUEST. */
  cursor?: string;
  /** `newerCursor` of a page: the page of events right after it, towards the newest (ignored with `cursor`). */
  newerThan?: string;
  /** Also count where the page sits in the listing (two counts; the web audit's pager). */
  withPosition?: boolean;
}

export interface HistoryPage {
  events: HistoryEvent[];
  /** The page of older events; null on the oldest page. */
  nextCursor: string | null;
  /** The page of newer events; null on the newest page (the web audit's "Newer", docs/history.md#web-pages). */
  newerCursor: string | null;
  /** Where the page sits in the whole listing ("51–100 of 230"), when asked for with `withPosition`. */
  position?: { from: number; to: number; total: number };
}

function pageSize(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit) || limit < 1) return DEFAULT_PAGE_SIZE;
  return Math.min(Math.floor(limit), MAX_PAGE_SIZE);
}

/** The position a page starts from: `<seq>` NUL `<event id>` in the keyset cursor format (docs/api.md#pagination). */
function cursorSeq(cursor: string | undefined): number | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  const p = decodeCursor(cursor);
  const seq = p && /^\d{1,15}$/.test(p.key) ? Number(p.key) : NaN;
  if (!Number.isSafeInteger(seq) || seq < 1)
    throw new AppError('BAD_REQUEST', 'invalid cursor: pass the next_cursor of the previous page', 'cursor');
  return seq;
}

async function readPage(
  ctx: LinkContext,
  filter: Parameters<Store['linkEvents']['page']>[0],
  req: HistoryPageRequest,
  full: (row: StoredLinkEvent) => boolean,
): Promise<HistoryPage> {
  const before = cursorSeq(req.cursor);
  const after = before === undefined ? cursorSeq(req.newerThan) : undefined;
  const towardsNewer = after !== undefined;
  const page = await ctx.store.linkEvents.page(filter, { beforeSeq: before, afterSeq: after, limit: pageSize(req.limit) });
  const first = page.events[0];
  const last = page.events[page.events.length - 1];
  // A cursor names an event of the same listing, so the side it came from has events.
  const older = towardsNewer || page.hasMore;
  const newer = towardsNewer ? page.hasMore : before !== undefined;
  const at = (e: StoredLinkEvent) => encodeCursor({ key: String(e.seq), id: e.id });
  const result: HistoryPage = {
    events: page.events.map((row) => toHistoryEvent(row, full(row))),
    nextCursor: older && last ? at(last) : null,
    newerCursor: newer && first ? at(first) : null,
  };
  if (req.withPosition) {
    const [total, above] = await Promise.all([
      ctx.store.linkEvents.count(filter),
      first ? ctx.store.linkEvents.count(filter, { afterSeq: first.seq }) : Promise.resolve(0),
    ]);
    result.position = { from: above + 1, to: above + page.events.length, total };
  }
  return result;
}

/** One link's events, newest first, for a holder of CanView. */
export async function linkHistory(
  ctx: LinkContext,
  actor: Actor,
  target: GrantedLink | string,
  req: HistoryPageRequest,
): Promise<HistoryPage> {
  const granted = await requireLink(ctx.store, actor, target, 'canView');
  return readPage(ctx, { linkId: granted.link.id }, req, () => granted.caps.canManageShares);
}

export interface AuditFilter extends HistoryPageRequest {
  /** A link's slug (case-insensitive), also of links deleted since. */
  slug?: string;
  /** The acting user's email, compared as emails always are. */
  actor?: string;
  kind?: string;
}

/** Every event of the instance, newest first, for admins (docs/history.md#the-admin-audit). */
export async function auditEvents(ctx: LinkContext, actor: Actor, filter: AuditFilter): Promise<HistoryPage> {
  if (actor.kind === 'user' && actor.user.role !== 'admin') throw new AppError('FORBIDDEN', 'forbidden');
  const kind = filter.kind?.trim() ?? '';
  if (kind !== '' && !isHistoryKind(kind)) {
    throw new AppError('BAD_REQUEST', `kind must be one of: ${HISTORY_KINDS.join(', ')}`, 'kind');
  }
  const slug = filter.slug?.trim().toLowerCase() ?? '';
  const email = filter.actor?.trim() ?? '';
  return readPage(
    ctx,
    {
      slug: slug === '' ? undefined : slug,
      actorEmail: email === '' ? undefined : email,
      kinds: kind === '' ? undefined : [kind],
    },
    filter,
    () => true,
  );
}
