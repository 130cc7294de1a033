import { Timeline, TimelinePage, type TimelineEvent, type TimelineOptions } from '../partials/history.js';
import { Alert, EmptyState, PageHeader } from '../partials/ui.js';

/**
 * A link's history on its page and, for older pages without JavaScript, on a page of its own
 * (docs/history.md#web-pages, docs/web-ui.md#link-detail-page).
 */

export interface LinkHistoryProps {
  linkId: string;
  events: readonly TimelineEvent[];
  /** The cursor of the next, older page; null on the oldest. */
  nextCursor: string | null;
  /** True on the first page, whose newest version is the link as it is now. */
  newest: boolean;
  canRestore: boolean;
  versionKinds: ReadonlySet<string>;
  shortKeyword: string;
  /** A restore that was refused, said beside its version and above the list. */
  refusal?: { eventId: string; message: string } | null;
}

export function historyHref(linkId: string, cursor: string | null): string {
  const base = `/dashboard/links/${linkId}/history`;
  return cursor ? `${base}?cursor=${encodeURIComponent(cursor)}` : base;
}

function optionsOf(p: LinkHistoryProps): TimelineOptions {
  const current = p.newest ? (p.events.find((e) => p.versionKinds.has(e.kind))?.id ?? null) : null;
  return { versionKinds: p.versionKinds, canRestore: p.canRestore, currentVersionId: current, shortKeyword: p.shortKeyword };
}

/** The page's items and its "Show older" control: what the control's HTMX request swaps in for itself. */
export function LinkHistoryItems(p: LinkHistoryProps) {
  const notes = p.refusal ? new Map([[p.refusal.eventId, p.refusal.message]]) : undefined;
  return (
    <TimelinePage
      events={p.events}
      opts={optionsOf(p)}
      olderHref={p.nextCursor ? historyHref(p.linkId, p.nextCursor) : null}
      notes={notes}
    />
  );
}

function HistoryBody(p: LinkHistoryProps) {
  return (
    <>
      {p.refusal && <Alert level="warning">{p.refusal.message}</Alert>}
      {p.events.length === 0 ? (
        <p class="text-sm text-base-content/70">No changes recorded yet.</p>
      ) : (
        <Timeline label="Changes, newest first">
          <LinkHistoryItems {...p} />
        </Timeline>
      )}
    </>
  );
}

/** The History section of the link page: the newest page of events. */
export function HistorySection(p: LinkHistoryProps) {
  return (
    <section id="history-section" class="card bg-base-100 border border-base-300" aria-labelledby="history-title">
      <div class="card-body gap-3 min-w-0">
        <h2 id="history-title" class="card-title text-base">
          History
        </h2>
        <HistoryBody {...p} />
      </div>
    </section>
  );
}

/** An older page of a link's history as a page of its own (the "Show older" link without JavaScript). */
export function LinkHistoryPage(p: LinkHistoryProps & { slug: string }) {
  return (
    <>
      <PageHeader
        title={`History of ${p.shortKeyword}/${p.slug}`}
        subtitle="Every change, newest first."
        back={{ href: `/dashboard/links/${p.linkId}`, label: `${p.shortKeyword}/${p.slug}` }}
      />
      <section class="card bg-base-100 border border-base-300" aria-label="History">
        <div class="card-body gap-3 min-w-0">
          {p.events.length === 0 && !p.refusal ? <EmptyState icon="clock" title="No older changes." /> : <HistoryBody {...p} />}
        </div>
      </section>
    </>
  );
}
