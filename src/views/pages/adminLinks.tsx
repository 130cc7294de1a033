import type { ComponentChildren } from 'preact';
import { DESCRIPTION_MAX, TITLE_MAX } from '../../domain/linkInput.js';
import type { LinkView } from '../../store/types.js';
import { columnCount, LinkTable, type LinkRowData, type LinkTableEnv } from '../partials/linkTable.js';
import { LiveSearch } from '../partials/liveSearch.js';
import { LinkCount, Pager } from '../partials/pager.js';

export const ADMIN_PAGE_SIZE = 50;
import { Alert, EmptyState, PageHeader, Spinner } from '../partials/ui.js';

export type AdminLinkFilter = 'stale' | 'never-clicked';

export interface AdminLinkListProps {
  rows: LinkRowData[];
  env: LinkTableEnv;
  q: string;
  filter: AdminLinkFilter | null;
  /** The page shown (from 1) and how many links the list holds in all. */
  page: number;
  total: number;
  hint: string | null;
}

export function adminLinksUrl(p: { q?: string; filter?: string | null; page?: number }): string {
  const sp = new URLSearchParams();
  if (p.filter) sp.set('filter', p.filter);
  else if (p.q) sp.set('q', p.q);
  if (p.page !== undefined && p.page > 1) sp.set('page', String(p.page));
  const s = sp.toString();
  return s ? `/admin/links?${s}` : '/admin/links';
}

function SwapLink({ href, active, class: cls, children }: { href: string; active: boolean; class: string; children: ComponentChildren }) {
  return (
    <a
      href={href}
      hx-get={href}
      hx-target="#admin-link-list"
      hx-swap="outerHTML"
      hx-push-url="true"
      hx-indicator="#admin-link-list"
      class={cls}
      aria-current={active ? 'page' : undefined}
    >
      {children}
    </a>
  );
}

export function AdminLinkList(p: AdminLinkListProps) {
  const tabs: Array<[AdminLinkFilter | null, string]> = [
    [null, 'All'],
    ['stale', 'Stale'],
    ['never-clicked', 'Never clicked'],
  ];
  return (
    <div id="admin-link-list" class="space-y-4 htmx-dim">
      <div class="flex flex-wrap items-center justify-between gap-3">
        <nav aria-label="Link filters" class="tabs tabs-box w-fit">
          {tabs.map(([f, label]) => (
            <SwapLink href={adminLinksUrl({ filter: f })} active={p.filter === f} class={`tab${p.filter === f ? ' tab-active' : ''}`}>
              {label}
            </SwapLink>
          ))}
        </nav>
        <LinkCount total={p.total} />
      </div>
      {p.hint && <p class="text-sm text-base-content/70">{p.hint}</p>}
      {p.total === 0 ? (
        <EmptyState icon="search" title={p.q || p.filter ? 'No matching links' : 'No links yet'}>
          {p.q || p.filter ? 'Try a different search or clear filters.' : 'Links people create show up here.'}
        </EmptyState>
      ) : (
        <LinkTable rows={p.rows} variant="admin" env={p.env} />
      )}
      <Pager
        noun="link"
        spot={{ page: p.page, pageSize: ADMIN_PAGE_SIZE, total: p.total }}
        href={(n) => adminLinksUrl({ q: p.q, filter: p.filter, page: n })}
        swap="#admin-link-list"
      />
    </div>
  );
}

export function AdminLinksPage(p: AdminLinkListProps) {
  return (
    <>
      <PageHeader title="All Links" subtitle="Every link of every user. Edit inline or delete." />
      <LiveSearch
        action="/admin/links"
        id="admin-search"
        label="Search all links"
        value={p.filter === null ? p.q : ''}
        target="#admin-link-list"
      />
      <AdminLinkList {...p} />
    </>
  );
}

export interface AdminEditValues {
  url: string;
  title: string;
  description: string;
  visibility: string;
}

const VISIBILITIES = ['public', 'private', 'internal', 'secure'];

function EditFields({
  link,
  values,
  shortKeyword,
  idPrefix,
}: {
  link: LinkView;
  values: AdminEditValues;
  shortKeyword: string;
  idPrefix: string;
}) {
  return (
    <div class="grid gap-3 md:grid-cols-2 xl:grid-cols-4">
      <div>
        <p class="text-sm font-medium mb-1">Slug</p>
        <p class="font-mono py-2">
          <span class="text-base-content/70">{`${shortKeyword}/`}</span>
          <span class="link-brand font-semibold">{link.slug}</span>
        </p>
      </div>
      <div class="md:col-span-1 xl:col-span-2">
        <label for={`${idPrefix}-url`} class="block text-sm font-medium mb-1">
          URL
        </label>
        <input
          id={`${idPrefix}-url`}
          name="url"
          type="text"
          inputmode="url"
          value={values.url}
          required
          class="input input-sm w-full"
          autofocus
        />
      </div>
      <div>
        <label for={`${idPrefix}-visibility`} class="block text-sm font-medium mb-1">
          Visibility
        </label>
        <select id={`${idPrefix}-visibility`} name="visibility" class="select select-sm w-full">
          {VISIBILITIES.map((v) => (
            <option value={v} selected={values.visibility === v}>
              {v}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label for={`${idPrefix}-title`} class="block text-sm font-medium mb-1">
          Title
        </label>
        <input id={`${idPrefix}-title`} name="title" type="text" value={values.title} maxLength={TITLE_MAX} class="input input-sm w-full" />
      </div>
      <div class="md:col-span-1 xl:col-span-2">
        <label for={`${idPrefix}-description`} class="block text-sm font-medium mb-1">
          Description
        </label>
        <input
          id={`${idPrefix}-description`}
          name="description"
          type="text"
          value={values.description}
          maxLength={DESCRIPTION_MAX}
          class="input input-sm w-full"
        />
      </div>
      <div>
        <p class="text-sm font-medium mb-1">Owners</p>
        <p class="text-sm py-1.5">{link.owners.map((o) => o.displayName).join(', ')}</p>
      </div>
    </div>
  );
}

/**
 * The inline edit row of `/admin/links`: one cell spanning the table, holding
 * a real form (a form cannot span table cells). Expiry is not editable here
 * and is kept (docs/lifecycle.md#expiry).
 */
export function AdminLinkEditRow({ link, values, shortKeyword }: { link: LinkView; values: AdminEditValues; shortKeyword: string }) {
  const action = `/admin/links/${link.id}`;
  return (
    <tr id={`link-${link.id}`} class="bg-base-200/60">
      <td colSpan={columnCount('admin')}>
        <form
          method="post"
          action={action}
          hx-put={action}
          hx-target={`#link-${link.id}`}
          hx-swap="outerHTML"
          class="space-y-3 py-2"
          aria-label={`Edit ${link.slug}`}
        >
          <input type="hidden" name="_method" value="PUT" />
          <EditFields link={link} values={values} shortKeyword={shortKeyword} idPrefix={`edit-${link.id}`} />
          <div class="flex justify-end gap-2">
            <button type="button" class="btn btn-ghost btn-sm" hx-get={`${action}/row`} hx-target={`#link-${link.id}`} hx-swap="outerHTML">
              Cancel
            </button>
            <button type="submit" class="btn btn-primary btn-sm">
              <Spinner />
              Save
            </button>
          </div>
        </form>
      </td>
    </tr>
  );
}

/** The same form as a page, for browsers without JavaScript. */
export function AdminLinkEditPage({
  link,
  values,
  shortKeyword,
  error,
}: {
  link: LinkView;
  values: AdminEditValues;
  shortKeyword: string;
  error: string | null;
}) {
  const action = `/admin/links/${link.id}`;
  return (
    <>
      <PageHeader title={`Edit ${link.slug}`} back={{ href: '/admin/links', label: 'All Links' }} />
      <section class="card bg-base-100 border border-base-300">
        <div class="card-body">
          <form method="post" action={action} class="space-y-4">
            <input type="hidden" name="_method" value="PUT" />
            {error && <Alert>{error}</Alert>}
            <EditFields link={link} values={values} shortKeyword={shortKeyword} idPrefix="edit" />
            <div class="flex justify-end gap-2">
              <a class="btn btn-ghost" href="/admin/links">
                Cancel
              </a>
              <button type="submit" class="btn btn-primary">
                Save
              </button>
            </div>
          </form>
        </div>
      </section>
    </>
  );
}
