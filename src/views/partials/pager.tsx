import type { ComponentChildren } from 'preact';
import { plural } from '../format.js';

/**
 * The one pagination pattern of every paged link list (docs/web-ui.md#link-tables): Previous,
 * the shown range "51–56 of 56", Next; the ends render disabled. Pages are numbered from 1.
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

/** "51–56 of 56" (an en dash), or "0 of 0" past the end. */
export function rangeText({ page, pageSize, total }: PageSpot): string {
  const first = (page - 1) * pageSize + 1;
  if (first > total) return `0 of ${total}`;
  return `${first}–${Math.min(total, page * pageSize)} of ${total}`;
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

/**
 * `swap`: the list element to replace over HTMX (`#link-list`); without it the links are plain.
 * Nothing renders for an empty list.
 */
export function Pager({ spot, href, swap }: { spot: PageSpot; href: (page: number) => string; swap?: string }) {
  if (spot.total === 0) return null;
  const pages = pageCount(spot);
  const disabled = (label: string) => (
    <span class="btn btn-sm btn-disabled" aria-disabled="true">
      {label}
    </span>
  );
  return (
    <nav class="flex items-center justify-center gap-2" aria-label="Pagination">
      {pages > 1 &&
        (spot.page > 1 ? (
          <PageLink href={href(Math.min(spot.page - 1, pages))} rel="prev" swap={swap}>
            Previous
          </PageLink>
        ) : (
          disabled('Previous')
        ))}
      <span class="text-sm px-2 tabular-nums">{rangeText(spot)}</span>
      {pages > 1 &&
        (spot.page < pages ? (
          <PageLink href={href(spot.page + 1)} rel="next" swap={swap}>
            Next
          </PageLink>
        ) : (
          disabled('Next')
        ))}
    </nav>
  );
}
