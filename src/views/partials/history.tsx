import type { ComponentChildren } from 'preact';
import { formatDateTimeSeconds } from '../format.js';
import { BreakableUrl } from './breakable.js';
import { LocalTime } from './localTime.js';
import { Spinner } from './ui.js';

/**
 * Link history as people read it (docs/history.md#web-pages): one timeline item per event,
 * newest first, with the fields it changed in words ("Destination: a → b"), who made it
 * and when. The link page and the admin audit share it; what a viewer may see was
 * decided before the events got here (a redacted member event has no people).
 */

/** A person an event names, as recorded at the time. */
export interface TimelinePerson {
  id: string;
  email: string;
  displayName: string;
}

/** The event shape the links layer reads (links/history.ts HistoryEvent), as the timeline renders it. */
export interface TimelineEvent {
  id: string;
  linkId: string;
  slug: string;
  kind: string;
  at: number;
  via: string | null;
  actor: TimelinePerson | null;
  changes: Record<string, { from: unknown; to: unknown }>;
  member: TimelinePerson | null;
  group?: { id: string; name: string } | null;
  source: string | null;
  restores: { eventId: string; at: number } | null;
  redacted: boolean;
}

/** Field names in words; a field added to links later reads as its name split into words. */
const FIELD_LABELS: Record<string, string> = {
  url: 'Destination',
  defaultUrl: 'Destination when nothing is filled in',
  title: 'Title',
  description: 'Description',
  tags: 'Tags',
  aliases: 'Aliases',
  visibility: 'Visibility',
  expiresAt: 'Expiry',
  archivedAt: 'Archived',
  healthChecksDisabled: 'Health checks',
  forwardPathAndQuery: 'Forwards extra path and query',
  primaryOwner: 'Primary owner',
};

/** The order fields are listed in, the link page's own order; others follow by name. */
const FIELD_ORDER = Object.keys(FIELD_LABELS);

export function fieldLabel(field: string): string {
  const known = FIELD_LABELS[field];
  if (known) return known;
  const words = field.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`).replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const VISIBILITY_WORDS: Record<string, string> = {
  public: 'Public (listed)',
  private: 'Private (unlisted)',
  secure: 'Secure (owners and shares only)',
  internal: 'Internal (anyone signed in)',
};

function isPerson(v: unknown): v is TimelinePerson {
  return typeof v === 'object' && v !== null && typeof (v as TimelinePerson).id === 'string' && 'email' in v;
}

function personText(p: TimelinePerson): string {
  return p.displayName && p.displayName !== p.email ? `${p.displayName} (${p.email})` : p.email;
}

function Muted({ children }: { children: ComponentChildren }) {
  return <span class="italic text-base-content/70">{children}</span>;
}

/** One side of a change, readable: times as local times, tags as chips, switches as on/off. */
function Value({ field, value }: { field: string; value: unknown }) {
  const empty = value === null || value === undefined || value === '' || (Array.isArray(value) && value.length === 0);
  if (field === 'expiresAt') return empty ? <Muted>never expires</Muted> : <LocalTime ms={Number(value)} />;
  if (field === 'archivedAt') return empty ? <Muted>not archived</Muted> : <LocalTime ms={Number(value)} />;
  if (empty) return <Muted>none</Muted>;
  if (field === 'healthChecksDisabled') return <span>{value === true ? 'off' : 'on'}</span>;
  if (typeof value === 'boolean') return <span>{value ? 'on' : 'off'}</span>;
  if (field === 'visibility' && typeof value === 'string') return <span>{VISIBILITY_WORDS[value] ?? value}</span>;
  if (field.endsWith('At') && typeof value === 'number') return <LocalTime ms={value} />;
  if (Array.isArray(value)) {
    return (
      <span class="inline-flex flex-wrap gap-1 align-middle">
        {value.map((v) => (
          <span class={`badge badge-sm badge-outline h-auto wrap-anywhere${field === 'aliases' ? ' font-mono' : ''}`}>{String(v)}</span>
        ))}
      </span>
    );
  }
  if (isPerson(value)) return <span class="break-words">{personText(value)}</span>;
  if (field === 'url' || field === 'defaultUrl')
    return (
      <span class="font-mono text-xs wrap-anywhere">
        <BreakableUrl url={String(value)} />
      </span>
    );
  return <span class="whitespace-pre-line break-words">{typeof value === 'string' ? value : JSON.stringify(value)}</span>;
}

function isSet(value: unknown): boolean {
  return !(value === null || value === undefined || value === '' || value === false || (Array.isArray(value) && value.length === 0));
}

function orderedChanges(changes: TimelineEvent['changes']): Array<[string, { from: unknown; to: unknown }]> {
  const rank = (f: string) => {
    const i = FIELD_ORDER.indexOf(f);
    return i === -1 ? FIELD_ORDER.length : i;
  };
  return Object.entries(changes).sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b));
}

/** The changed fields: "from → to"; a new link shows only its values, a deleted one only what it had. */
function Changes({ event }: { event: TimelineEvent }) {
  const only = event.kind === 'created' || event.kind === 'imported' ? 'to' : event.kind === 'deleted' ? 'from' : null;
  // A link made or deleted lists what it had; fields left empty or off are not news.
  const rows = orderedChanges(event.changes).filter(([, c]) => only === null || isSet(c[only]));
  if (rows.length === 0) return null;
  return (
    <dl class="history-changes grid grid-cols-1 sm:grid-cols-[minmax(0,10rem)_minmax(0,1fr)] gap-x-3 gap-y-1 text-sm mt-2">
      {rows.map(([field, c]) => (
        <>
          <dt class="font-medium text-base-content/80">{fieldLabel(field)}</dt>
          <dd class="min-w-0 mb-1 sm:mb-0">
            {only === 'to' ? (
              <Value field={field} value={c.to} />
            ) : only === 'from' ? (
              <Value field={field} value={c.from} />
            ) : (
              // On a phone the old value and the new one each get a line, the new one after its arrow.
              <>
                <span class="block sm:inline" data-change="from">
                  <Value field={field} value={c.from} />
                </span>
                <span class="block sm:inline" data-change="to">
                  <span class="me-1 text-base-content/70 sm:mx-1">→</span>
                  <Value field={field} value={c.to} />
                </span>
              </>
            )}
          </dd>
        </>
      ))}
    </dl>
  );
}

/** What happened, in a sentence; member events name the person only when the viewer may see them. */
function Headline({ event }: { event: TimelineEvent }) {
  const who = event.member ? personText(event.member) : null;
  switch (event.kind) {
    case 'created':
      return <>Created</>;
    case 'imported':
      return <>{event.source ? `Imported (${event.source})` : 'Imported'}</>;
    case 'updated':
      return <>{event.source ? `Updated by an import (${event.source})` : 'Edited'}</>;
    case 'archived':
      return <>Archived</>;
    case 'unarchived':
      return <>Unarchived</>;
    case 'renewed':
      return <>Renewed</>;
    case 'restored':
      return event.restores ? (
        <>
          {'Restored the version of '}
          <LocalTime ms={event.restores.at} />
        </>
      ) : (
        <>Restored an earlier version</>
      );
    case 'owner_added':
      return <>{who ? `Added co-owner ${who}` : 'A co-owner was added'}</>;
    case 'owner_removed':
      return <>{who ? `Removed co-owner ${who}` : 'A co-owner was removed'}</>;
    case 'share_added':
      return <>{who ? `Shared with ${who}` : 'Shared with someone'}</>;
    case 'share_removed':
      return <>{who ? `Stopped sharing with ${who}` : 'Someone’s access was removed'}</>;
    case 'group_owner_added':
      return <>{event.group ? `Added owner group ${event.group.name}` : 'An owner group was added'}</>;
    case 'group_owner_removed':
      return <>{event.group ? `Removed owner group ${event.group.name}` : 'An owner group was removed'}</>;
    case 'group_share_added':
      return <>{event.group ? `Shared with group ${event.group.name}` : 'Shared with a group'}</>;
    case 'group_share_removed':
      return <>{event.group ? `Stopped sharing with group ${event.group.name}` : 'A group’s access was removed'}</>;
    case 'transferred':
      return <>Primary owner changed</>;
    case 'deleted':
      return <>Deleted</>;
    default:
      return <>{fieldLabel(event.kind)}</>;
  }
}

/** Kinds in words, for the audit's kind filter. */
const KIND_LABELS: Record<string, string> = {
  created: 'Created',
  imported: 'Imported',
  updated: 'Edited',
  archived: 'Archived',
  unarchived: 'Unarchived',
  renewed: 'Renewed',
  restored: 'Restored',
  owner_added: 'Co-owner added',
  owner_removed: 'Co-owner removed',
  share_added: 'Shared',
  share_removed: 'Share removed',
  group_owner_added: 'Owner group added',
  group_owner_removed: 'Owner group removed',
  group_share_added: 'Shared with a group',
  group_share_removed: 'Group share removed',
  transferred: 'Primary owner changed',
  deleted: 'Deleted',
};

export function kindLabel(kind: string): string {
  return KIND_LABELS[kind] ?? fieldLabel(kind);
}

const SURFACES: Record<string, string> = { web: 'web', api: 'API', mcp: 'MCP', cli: 'CLI' };

/** Who made the change, as recorded: a person, "CLI (email)" for the CLI acting for someone, or "System". */
export function actorText(event: TimelineEvent): string | null {
  if (event.redacted) return null;
  if (!event.actor) return 'System';
  if (event.via === 'cli') return `CLI (${event.actor.email})`;
  return personText(event.actor);
}

function Byline({ event }: { event: TimelineEvent }) {
  const who = actorText(event);
  const via = event.via && event.via !== 'cli' ? (SURFACES[event.via] ?? event.via) : event.via === 'cli' && !event.actor ? 'CLI' : null;
  if (!who) return null;
  return (
    <p class="text-sm text-base-content/70 break-words" data-actor>
      {`by ${who}`}
      {via && ` · via ${via}`}
    </p>
  );
}

/** Where an audit row's link is: its page, or its slug as text once it was deleted. */
export interface EventLinkPlace {
  /** The link still exists (the audit links to its page). */
  exists: boolean;
}

export interface TimelineOptions {
  /** The kinds a restore can go back to (links/history.ts VERSION_KINDS). */
  versionKinds: ReadonlySet<string>;
  /** The viewer may restore (CanEdit); the link page only. */
  canRestore: boolean;
  /** The event holding the link's current fields: it says "current version" instead of Restore. */
  currentVersionId?: string | null;
  /** The audit: each event names its link; ids of links that still exist. */
  links?: ReadonlySet<string>;
  shortKeyword: string;
}

function LinkPlace({ event, links, shortKeyword }: { event: TimelineEvent; links: ReadonlySet<string>; shortKeyword: string }) {
  const name = `${shortKeyword}/${event.slug}`;
  return links.has(event.linkId) ? (
    <a class="font-mono font-semibold link-brand hover:underline wrap-anywhere" href={`/dashboard/links/${event.linkId}`}>
      {name}
    </a>
  ) : (
    <span class="inline-flex flex-wrap items-center gap-1">
      <span class="font-mono font-semibold wrap-anywhere">{name}</span>
      <span class="badge badge-sm badge-ghost">deleted</span>
    </span>
  );
}

/**
 * What a version changed, in a few words ("edited title and destination"): with its time to the
 * second it names the version on its Restore button and in the toast, so two versions saved in
 * the same minute read apart.
 */
export function versionSummary(event: Pick<TimelineEvent, 'kind' | 'changes' | 'source'>): string {
  const fields = orderedChanges(event.changes).map(([f]) => fieldLabel(f).toLowerCase());
  const named =
    fields.length === 0 ? '' : fields.length === 1 ? fields[0]! : `${fields.slice(0, -1).join(', ')} and ${fields[fields.length - 1]}`;
  switch (event.kind) {
    case 'created':
      return 'created';
    case 'imported':
      return 'imported';
    case 'restored':
      return named ? `restored ${named}` : 'restored';
    default:
      return named ? `edited ${named}` : kindLabel(event.kind).toLowerCase();
  }
}

/** A version's name: its time to the second and what it changed. */
export function versionName(event: Pick<TimelineEvent, 'at' | 'kind' | 'changes' | 'source'>): string {
  return `${formatDateTimeSeconds(event.at)} (${versionSummary(event)})`;
}

function RestoreForm({ event }: { event: TimelineEvent }) {
  const action = `/dashboard/links/${event.linkId}/history/${event.id}/restore`;
  return (
    <form
      method="post"
      action={action}
      hx-post={action}
      hx-target={`#restore-note-${event.id}`}
      hx-swap="innerHTML"
      hx-disabled-elt="find button"
      class="mt-2"
    >
      <button type="submit" class="btn btn-xs btn-outline" aria-label={`Restore the version of ${versionName(event)}`}>
        <Spinner />
        Restore
      </button>
    </form>
  );
}

export function TimelineItem({ event, opts, note }: { event: TimelineEvent; opts: TimelineOptions; note?: string | null }) {
  const isVersion = opts.versionKinds.has(event.kind);
  const current = isVersion && opts.currentVersionId === event.id;
  return (
    <li id={`event-${event.id}`} class="history-item" data-kind={event.kind}>
      <span class="history-dot" aria-hidden="true"></span>
      <div class="flex flex-wrap items-baseline justify-between gap-x-3 gap-y-0.5">
        <p class="font-medium break-words min-w-0">
          <Headline event={event} />
          {current && <span class="badge badge-sm badge-success ml-2 align-middle">current version</span>}
        </p>
        <LocalTime ms={event.at} class="text-sm text-base-content/70 whitespace-nowrap" />
      </div>
      {opts.links && (
        <p class="text-sm">
          <LinkPlace event={event} links={opts.links} shortKeyword={opts.shortKeyword} />
        </p>
      )}
      <Byline event={event} />
      <Changes event={event} />
      {opts.canRestore && isVersion && !current && <RestoreForm event={event} />}
      {opts.canRestore && isVersion && (
        <div id={`restore-note-${event.id}`} aria-live="polite">
          {note && <RestoreNote message={note} />}
        </div>
      )}
    </li>
  );
}

/** Why a version was not restored, calmly, beside it: nothing changed. */
export function RestoreNote({ message }: { message: string }) {
  return (
    <p class="text-sm mt-2 restore-note" role="status">
      {message}
    </p>
  );
}

/** The items of one page, and the "Show older" control that fetches the next one in its place. */
export function TimelinePage({
  events,
  opts,
  olderHref,
  notes,
}: {
  events: readonly TimelineEvent[];
  opts: TimelineOptions;
  /** The next page, older events: a plain link, and with HTMX the items swapped in for the control. */
  olderHref: string | null;
  notes?: ReadonlyMap<string, string>;
}) {
  return (
    <>
      {events.map((e) => (
        <TimelineItem event={e} opts={opts} note={notes?.get(e.id)} />
      ))}
      {olderHref && (
        <li id="history-more" class="history-more">
          <a class="btn btn-sm" href={olderHref} hx-get={olderHref} hx-target="#history-more" hx-swap="outerHTML">
            <Spinner />
            Show older
          </a>
        </li>
      )}
    </>
  );
}

export function Timeline({ children, label }: { children: ComponentChildren; label: string }) {
  return (
    <ol id="history-list" class="history-timeline" aria-label={label}>
      {children}
    </ol>
  );
}
