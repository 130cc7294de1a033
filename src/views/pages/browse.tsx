import { LinkTable, type LinkRowData, type LinkTableEnv } from '../partials/linkTable.js';
import { LiveSearch } from '../partials/liveSearch.js';
import { LinkCount, Pager } from '../partials/pager.js';
import { Avatar, EmptyState, PageHeader } from '../partials/ui.js';
import { plural } from '../format.js';

export const PUBLIC_PAGE_SIZE = 25;

export interface PublicListProps {
  rows: LinkRowData[];
  env: LinkTableEnv;
  q: string;
  page: number;
  total: number;
}

export function browseUrl(q: string, page: number): string {
  const sp = new URLSearchParams();
  if (q) sp.set('q', q);
  if (page > 1) sp.set('page', String(page));
  const s = sp.toString();
  return s ? `/links?${s}` : '/links';
}

/** `#public-link-list`: the count, the table and the pager (docs/web-ui.md#public-browser-and-profiles). */
export function PublicLinkList({ rows, env, q, page, total }: PublicListProps) {
  return (
    <div id="public-link-list" class="space-y-4 htmx-dim">
      <LinkCount total={total} />
      {rows.length === 0 ? (
        q ? (
          <EmptyState icon="search" title="No links found">
            No public links match your search. Try different keywords.
          </EmptyState>
        ) : (
          <EmptyState icon="globe" title="No public links yet">
            Public links people create show up here.
          </EmptyState>
        )
      ) : (
        <LinkTable rows={rows} variant="public" env={env} />
      )}
      <Pager noun="link" spot={{ page, pageSize: PUBLIC_PAGE_SIZE, total }} href={(n) => browseUrl(q, n)} swap="#public-link-list" />
    </div>
  );
}

export function BrowsePage(props: PublicListProps) {
  return (
    <>
      <PageHeader title="Browse Links" subtitle="Every public short link in this instance." />
      <LiveSearch action="/links" id="browse-search" label="Search public links" value={props.q} target="#public-link-list" />
      <PublicLinkList {...props} />
    </>
  );
}

export interface ProfileProps {
  name: string;
  rows: LinkRowData[];
  env: LinkTableEnv;
  page: number;
  total: number;
  slug: string;
}

/** `/u/{display_name_slug}` (docs/web-ui.md#public-browser-and-profiles). */
export function ProfilePage({ name, rows, env, page, total, slug }: ProfileProps) {
  return (
    <>
      <header class="flex items-center gap-4 mb-6">
        <Avatar name={name} size="size-16 text-2xl" />
        <div class="min-w-0">
          <h1 class="text-2xl font-bold break-words">{name}</h1>
          <p class="text-sm text-base-content/70">{plural(total, 'public link')}</p>
        </div>
      </header>
      <div class="space-y-4">
        {rows.length === 0 ? (
          <EmptyState icon="globe" title="No public links yet." />
        ) : (
          <LinkTable rows={rows} variant="public" env={env} />
        )}
        <Pager
          noun="link"
          spot={{ page, pageSize: PUBLIC_PAGE_SIZE, total }}
          href={(n) => (n > 1 ? `/u/${slug}?page=${n}` : `/u/${slug}`)}
        />
      </div>
    </>
  );
}

export function ProfileNotFound({ slug }: { slug: string }) {
  return (
    <section class="hero py-16" aria-labelledby="error-title">
      <div class="hero-content text-center flex-col max-w-xl">
        <p class="text-6xl font-black opacity-60">404</p>
        <h1 id="error-title" class="text-2xl font-bold wrap-anywhere">{`Not found: u/${slug}`}</h1>
        <p>There is no profile at this address.</p>
        <a class="btn btn-ghost" href="/links">
          Browse links
        </a>
      </div>
    </section>
  );
}
