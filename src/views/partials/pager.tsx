import type { ComponentChildren } from 'preact';
import { plural } from '../format.js';

/**
 * The one pagination pattern of every paged list (docs/web-ui.md#paging): a back control, the
 * shown range "51–56 of 56 links", a forward control; the ends render disabled. Numbered pages
 * (the link lists) read Previous / Next; newest-first keyset pages (notifications, webhook
 * deliveries, the audit) read Newer / Older.
 */

export interface PageSpot {
  page: number;
  pageSize: number;
  total: number;
}

/** `page` from the query string: a positive integer, anything else is page 1. */
export function parsePage(raw: string): number {
  if (!/^\d{1,9}$/.test(raw)) return 1;
  const n = Number(raw);
  return n >= 1 ? n : 1;
}

export function pageCount({ pageSize, total }: PageSpot): number {
  return Math.max(1, Math.ceil(total / pageSize));
}

/**
 * A newest-first keyset page's place: its rows are the `from`-th to the `to`-th of `total`, and
 * the pages either side, null at the ends.
 */
export interface KeysetSpot {
  from: number;
  to: number;
  total: number;
  newerHref: string | null;
  olderHref: string | null;
}

/** "51–56 of 56 links" (an en dash, `noun` counted as `plural` does), or "0 of 56 links" past the end. */
export function rangeText({ from, to, total }: { from: number; to: number; total: number }, noun: string, nouns?: string): string {
  const counted = plural(total, noun, nouns);
  return from > to || from > total ? `0 of ${counted}` : `${from}–${Math.min(to, total)} of ${counted}`;
}

/** The rows a numbered page shows, counted from 1. */
export function pageRange({ page, pageSize, total }: PageSpot): { from: number; to: number; total: number } {
  return { from: (page - 1) * pageSize + 1, to: Math.min(total, page * pageSize), total };
}

/** "1 link", "26 links": the count a list states above its rows. */
export function LinkCount({ total, class: cls = 'text-sm text-base-content/70' }: { total: number; class?: string }) {
  return <p class={cls}>{plural(total, 'link')}</p>;
}

function PageLink({ href, rel, swap, children }: { href: string; rel: string; swap?: string; children: ComponentChildren }) {
  const hx = swap ? { 'hx-get': href, 'hx-target': swap, 'hx-swap': 'outerHTML', 'hx-push-url': 'true', 'hx-indicator': swap } : {};
  return (
    <a class="btn btn-sm" href={href} rel={rel} {...hx}>
      {children}
    </a>
  );
}

type PagerProps = {
  /** What the list holds, singular: "link", "notification", "delivery" ("deliveries" via `nouns`). */
  noun: string;
  /** The plural when it is not `noun` + "s". */
  nouns?: string;
  /** The list element to replace over HTMX (`#link-list`); without it the links are plain. */
  swap?: string;
} & ({ spot: PageSpot; href: (page: number) => string } | { keyset: KeysetSpot });

/** The two ends of either kind of page, and what they are called. */
function ends(p: PagerProps): { back: string | null; forward: string | null; labels: [string, string] } {
  if ('keyset' in p) return { back: p.keyset.newerHref, forward: p.keyset.olderHref, labels: ['Newer', 'Older'] };
  const pages = pageCount(p.spot);
  return {
    back: p.spot.page > 1 ? p.href(Math.min(p.spot.page - 1, pages)) : null,
    forward: p.spot.page < pages ? p.href(p.spot.page + 1) : null,
    labels: ['Previous', 'Next'],
  };
}

/** Nothing renders for an empty list; the controls only when there is more than one page. */
export function Pager(p: PagerProps) {
  const range = 'keyset' in p ? p.keyset : pageRange(p.spot);
  if (range.total === 0) return null;
  const { back, forward, labels } = ends(p);
  const control = (href: string | null, rel: string, label: string) =>
    href ? (
      <PageLink href={href} rel={rel} swap={p.swap}>
        {label}
      </PageLink>
    ) : (
      <span class="btn btn-sm btn-disabled" aria-disabled="true">
        {label}
      </span>
    );
  const paged = back !== null || forward !== null;
  return (
    <nav class="flex items-center justify-center gap-2" aria-label="Pagination">
      {paged && control(back, 'prev', labels[0])}
      <span class="text-sm px-2 tabular-nums">{rangeText(range, p.noun, p.nouns)}</span>
      {paged && control(forward, 'next', labels[1])}
    </nav>
  );
}
