import type { ComponentChildren } from 'preact';
import type { TagCount } from '../../store/tags.js';
import { Icon } from '../partials/icons.js';
import { LinkTable, type LinkRowData, type LinkTableEnv } from '../partials/linkTable.js';
import { LiveSearch } from '../partials/liveSearch.js';
import { LinkCount, Pager } from '../partials/pager.js';
import { EmptyState, PageHeader } from '../partials/ui.js';

export const DASHBOARD_PAGE_SIZE = 50;

export type DashboardFilter = 'shared' | 'groups' | 'stale' | 'never-clicked';
/** By name, or recently used (last click) first. */
export type DashboardSort = 'name' | 'recent';

export interface LinkListProps {
  rows: LinkRowData[];
  env: LinkTableEnv;
  filter: DashboardFilter | null;
  tag: string | null;
  q: string;
  tags: readonly TagCount[];
  /** The page shown (from 1) and how many links the list holds in all. */
  page: number;
  total: number;
  /** The staleness hint of the active filter (docs/lifecycle.md#staleness). */
  hint: string | null;
  /** The order shown; null where the list has an order of its own (the staleness filters). */
  sort: DashboardSort | null;
  /** This viewer's order when the address names none. */
  defaultSort: DashboardSort;
}

/** `/dashboard` with the given parameters; the list's own URL for refreshes and paging. */
export function dashboardUrl(p: {
  filter?: string | null;
  tag?: string | null;
  q?: string;
  page?: number;
  /** Named only when it is not the viewer's default. */
  sort?: { sort: DashboardSort | null; defaultSort: DashboardSort };
}): string {
  const sp = new URLSearchParams();
  if (p.filter) sp.set('filter', p.filter);
  else if (p.tag) sp.set('tag', p.tag);
  else if (p.q) sp.set('q', p.q);
  if (p.sort && p.sort.sort !== null && p.sort.sort !== p.sort.defaultSort) sp.set('sort', p.sort.sort);
  if (p.page !== undefined && p.page > 1) sp.set('page', String(p.page));
  const s = sp.toString();
  return s ? `/dashboard?${s}` : '/dashboard';
}

const TABS: Array<{ filter: DashboardFilter | null; label: string }> = [
  { filter: null, label: 'My Links' },
  { filter: 'shared', label: 'Shared with me' },
  { filter: 'groups', label: "My groups' links" },
  { filter: 'stale', label: 'Stale' },
  { filter: 'never-clicked', label: 'Never clicked' },
];

/**
 * A link that swaps `#link-list` for another view of it. `active` is told as the current page
 * (a tab) or, with `toggle`, as a pressed button (a choice such as the sort order).
 */
function SwapLink({
  href,
  active,
  toggle = false,
  children,
  class: cls,
}: {
  href: string;
  active: boolean;
  toggle?: boolean;
  children: ComponentChildren;
  class: string;
}) {
  const state = toggle
    ? ({ role: 'button', 'aria-pressed': active ? 'true' : 'false' } as const)
    : ({ 'aria-current': active ? 'page' : undefined } as const);
  return (
    <a
      href={href}
      hx-get={href}
      hx-target="#link-list"
      hx-swap="outerHTML"
      hx-push-url="true"
      hx-indicator="#link-list"
      class={cls}
      {...state}
    >
      {children}
    </a>
  );
}

/** `#link-list`: tabs, tag chips and the table; refreshes itself when a link is created, updated or deleted. */
export function LinkList(p: LinkListProps) {
  const sorting = { sort: p.sort, defaultSort: p.defaultSort };
  const self = dashboardUrl({ filter: p.filter, tag: p.tag, q: p.q, page: p.page, sort: sorting });
  const searching = p.filter === null && (p.tag !== null || p.q !== '');
  return (
    <div
      id="link-list"
      class="space-y-4 htmx-dim"
      hx-get={self}
      hx-trigger="linkCreated from:body, linkUpdated from:body, linkDeleted from:body"
      hx-swap="outerHTML"
    >
      <nav aria-label="Link filters" class="tabs tabs-box w-fit max-w-full">
        {TABS.map((t) => (
          <SwapLink
            href={dashboardUrl({ filter: t.filter })}
            active={p.filter === t.filter}
            class={`tab whitespace-nowrap${p.filter === t.filter ? ' tab-active' : ''}`}
          >
            {t.label}
          </SwapLink>
        ))}
      </nav>
      {p.filter === null && p.tags.length > 0 && <TagChips tags={p.tags} active={p.tag} />}
      {p.hint && <p class="text-sm text-base-content/70">{p.hint}</p>}
      {p.total === 0 ? (
        <ListEmpty filter={p.filter} searching={searching} />
      ) : (
        <>
          <div class="flex flex-wrap items-center justify-between gap-2">
            <LinkCount total={p.total} />
            {p.sort !== null && <SortToggle list={p} />}
          </div>
          <LinkTable rows={p.rows} variant="dashboard" env={p.env} />
          <Pager
            noun="link"
            spot={{ page: p.page, pageSize: DASHBOARD_PAGE_SIZE, total: p.total }}
            href={(n) => dashboardUrl({ filter: p.filter, tag: p.tag, q: p.q, page: n, sort: sorting })}
            swap="#link-list"
          />
        </>
      )}
    </div>
  );
}

/**
 * Name or Recently used (docs/web-ui.md#landing-and-dashboard): toggle links, as every choice of a
 * view is, that keep the filter, tag and search and go back to the first page.
 */
function SortToggle({ list: p }: { list: LinkListProps }) {
  const choices: Array<[DashboardSort, string]> = [
    ['name', 'Name'],
    ['recent', 'Recently used'],
  ];
  return (
    <nav aria-label="Sort links by" class="join">
      {choices.map(([sort, label]) => {
        const href = dashboardUrl({ filter: p.filter, tag: p.tag, q: p.q, sort: { sort, defaultSort: p.defaultSort } });
        return (
          <SwapLink href={href} active={p.sort === sort} toggle class="join-item btn btn-sm">
            {label}
          </SwapLink>
        );
      })}
    </nav>
  );
}

/**
 * The tag filter chips. On a phone they fold into "Tags (22)" so the first link stays above the
 * fold (docs/web-ui.md#landing-and-dashboard); the fold opens by itself while a tag is chosen.
 */
function TagChips({ tags, active }: { tags: readonly TagCount[]; active: string | null }) {
  const chips = (
    <>
      <SwapLink
        href="/dashboard"
        active={active === null}
        class={`badge badge-lg ${active === null ? 'badge-neutral' : 'badge-outline hover:bg-base-200'}`}
      >
        All
      </SwapLink>
      {tags.map((t) => (
        <SwapLink
          href={dashboardUrl({ tag: t.slug })}
          active={active === t.slug}
          class={`badge badge-lg ${active === t.slug ? 'badge-neutral' : 'badge-outline hover:bg-base-200'}`}
        >
          {t.name}
        </SwapLink>
      ))}
    </>
  );
  return (
    <>
      <details class="sm:hidden" open={active !== null}>
        <summary class="btn btn-sm btn-ghost">{`Tags (${tags.length})`}</summary>
        <nav aria-label="Tags" class="mt-2 flex flex-wrap gap-2">
          {chips}
        </nav>
      </details>
      <nav aria-label="Tags" class="hidden flex-wrap gap-2 sm:flex">
        {chips}
      </nav>
    </>
  );
}

function ListEmpty({ filter, searching }: { filter: DashboardFilter | null; searching: boolean }) {
  if (filter === 'shared') {
    return (
      <EmptyState icon="users" title="Nothing shared with you yet">
        When someone shares a link with you, it shows up here.
      </EmptyState>
    );
  }
  if (filter === 'groups') {
    return (
      <EmptyState
        icon="users"
        title="No links of your groups"
        action={
          <a class="btn btn-sm" href="/dashboard/groups">
            Groups
          </a>
        }
      >
        Links owned by a group you are in show up here.
      </EmptyState>
    );
  }
  if (filter === 'stale' || filter === 'never-clicked') {
    return (
      <EmptyState icon="check" title="Nothing to tidy up">
        None of your links match this filter.
      </EmptyState>
    );
  }
  if (searching) {
    return (
      <EmptyState
        icon="search"
        title="No matching links"
        action={
          <a class="btn btn-sm" href="/dashboard">
            Clear filters
          </a>
        }
      >
        Try a different search or clear filters.
      </EmptyState>
    );
  }
  return (
    <EmptyState
      title="No links yet"
      action={
        <a class="btn btn-primary" href="/dashboard/links/new" hx-get="/dashboard/links/new" hx-target="#modal">
          <Icon name="plus" class="size-5" />
          Create a link
        </a>
      }
    >
      Create your first short link to get started.
    </EmptyState>
  );
}

export function DashboardPage({ list, isAdmin }: { list: LinkListProps; isAdmin: boolean }) {
  return (
    <>
      <PageHeader
        title="My Links"
        subtitle={isAdmin ? 'As an admin you see every link.' : 'Links you own or co-own, and links shared with you.'}
        actions={
          <>
            <a class="btn" href="/dashboard/links/import">
              <Icon name="download" class="size-5" />
              Import
            </a>
            <a class="btn btn-primary" href="/dashboard/links/new" hx-get="/dashboard/links/new" hx-target="#modal">
              <Icon name="plus" class="size-5" />
              New link
            </a>
          </>
        }
      />
      <LiveSearch
        action="/dashboard"
        id="dashboard-search"
        label="Search links"
        value={list.filter === null && list.tag === null ? list.q : ''}
        target="#link-list"
      />
      <LinkList {...list} />
    </>
  );
}
