import { Icon } from '../partials/icons.js';
import { kindLabel, Timeline, TimelineItem, type TimelineEvent } from '../partials/history.js';
import { Pager, type KeysetSpot } from '../partials/pager.js';
import { Alert, EmptyState, PageHeader } from '../partials/ui.js';

/**
 * `/admin/audit` (docs/history.md#web-pages, docs/web-ui.md#admin-screens): every link event of
 * the instance, newest first, deleted links' included, filtered by a GET form so a filtered
 * view is a link, paged Older / Newer by keyset cursors.
 */

export interface AuditFilterValues {
  slug: string;
  actor: string;
  kind: string;
}

export interface AdminAuditProps {
  filter: AuditFilterValues;
  kinds: readonly string[];
  events: readonly TimelineEvent[];
  /** Ids of the listed events' links that still exist; the others are marked deleted. */
  existing: ReadonlySet<string>;
  olderCursor: string | null;
  newerCursor: string | null;
  /** Where this page sits among all matching events, for "51–100 of 230 events". */
  position: { from: number; to: number; total: number } | null;
  versionKinds: ReadonlySet<string>;
  shortKeyword: string;
  error: string | null;
}

export function auditUrl(filter: AuditFilterValues, page: { older?: string | null; newer?: string | null } = {}): string {
  const sp = new URLSearchParams();
  if (filter.slug) sp.set('slug', filter.slug);
  if (filter.actor) sp.set('actor', filter.actor);
  if (filter.kind) sp.set('kind', filter.kind);
  if (page.older) sp.set('older', page.older);
  else if (page.newer) sp.set('newer', page.newer);
  const q = sp.toString();
  return q ? `/admin/audit?${q}` : '/admin/audit';
}

function Filters({ filter, kinds }: { filter: AuditFilterValues; kinds: readonly string[] }) {
  const filtered = filter.slug !== '' || filter.actor !== '' || filter.kind !== '';
  return (
    <form
      method="get"
      action="/admin/audit"
      role="search"
      aria-label="Filter events"
      class="grid gap-3 sm:grid-cols-2 lg:grid-cols-[1fr_1fr_1fr_auto] items-end mb-6"
    >
      <div>
        <label for="audit-slug" class="block text-sm font-medium mb-1">
          Link slug
        </label>
        <input id="audit-slug" name="slug" type="text" value={filter.slug} class="input w-full font-mono" autocomplete="off" />
      </div>
      <div>
        <label for="audit-actor" class="block text-sm font-medium mb-1">
          Changed by (email)
        </label>
        <input id="audit-actor" name="actor" type="email" value={filter.actor} class="input w-full" autocomplete="off" />
      </div>
      <div>
        <label for="audit-kind" class="block text-sm font-medium mb-1">
          Kind
        </label>
        <select id="audit-kind" name="kind" class="select w-full">
          <option value="" selected={filter.kind === ''}>
            All kinds
          </option>
          {kinds.map((k) => (
            <option value={k} selected={filter.kind === k}>
              {kindLabel(k)}
            </option>
          ))}
        </select>
      </div>
      <div class="flex gap-2">
        <button type="submit" class="btn btn-primary">
          <Icon name="search" class="size-4" />
          Filter
        </button>
        {filtered && (
          <a class="btn btn-ghost" href="/admin/audit">
            Clear
          </a>
        )}
      </div>
    </form>
  );
}

/** Where the page sits and its Newer / Older cursors, in the shape of the one pager. */
function auditSpot(p: AdminAuditProps): KeysetSpot | null {
  if (!p.position) return null;
  return {
    ...p.position,
    newerHref: p.newerCursor ? auditUrl(p.filter, { newer: p.newerCursor }) : null,
    olderHref: p.olderCursor ? auditUrl(p.filter, { older: p.olderCursor }) : null,
  };
}

export function AdminAuditPage(p: AdminAuditProps) {
  const filtered = p.filter.slug !== '' || p.filter.actor !== '' || p.filter.kind !== '';
  const spot = auditSpot(p);
  const opts = { versionKinds: p.versionKinds, canRestore: false, links: p.existing, shortKeyword: p.shortKeyword };
  return (
    <>
      <PageHeader title="Audit" subtitle="Every change to every link, newest first, deleted links included." />
      <Filters filter={p.filter} kinds={p.kinds} />
      {p.error && (
        <div class="mb-4">
          <Alert level="warning">{p.error}</Alert>
        </div>
      )}
      {p.events.length === 0 ? (
        <EmptyState icon="clock" title={filtered ? 'No matching events' : 'No events yet'}>
          {filtered ? 'Try a different filter, or clear it.' : 'Changes to links show up here.'}
        </EmptyState>
      ) : (
        <section class="card bg-base-100 border border-base-300" aria-label="Events">
          <div class="card-body min-w-0">
            <Timeline label="Events, newest first">
              {p.events.map((e) => (
                <TimelineItem event={e} opts={opts} />
              ))}
            </Timeline>
          </div>
        </section>
      )}
      {spot && (
        <div class="mt-6">
          <Pager noun="event" keyset={spot} />
        </div>
      )}
    </>
  );
}
