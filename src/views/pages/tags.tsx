import type { Tag } from '../../store/types.js';
import type { TagCount } from '../../store/tags.js';
import { plural } from '../format.js';
import { Icon } from '../partials/icons.js';
import { LinkTable, type LinkRowData, type LinkTableEnv } from '../partials/linkTable.js';
import { EmptyState, PageHeader } from '../partials/ui.js';

/** `/dashboard/tags` (docs/web-ui.md#tag-browser): one card per tag with links the viewer can see. */
export function TagsIndex({ tags }: { tags: readonly TagCount[] }) {
  return (
    <>
      <PageHeader title="Tags" subtitle="Browse links by topic." />
      {tags.length === 0 ? (
        <EmptyState
          icon="tag"
          title="No tags yet"
          action={
            <a class="btn btn-primary" href="/dashboard/links/new" hx-get="/dashboard/links/new" hx-target="#modal">
              <Icon name="plus" class="size-5" />
              Create a link
            </a>
          }
        >
          No tags yet. Add tags when creating or editing a link.
        </EmptyState>
      ) : (
        <ul class="grid gap-3 grid-cols-1 sm:grid-cols-2 lg:grid-cols-3 xl:grid-cols-4">
          {tags.map((t) => (
            <li>
              <a
                href={`/dashboard/tags/${t.slug}`}
                class="card bg-base-100 border border-base-300 hover:border-base-content/40 hover:shadow-sm transition"
              >
                <div class="card-body p-4 flex-row items-center gap-3">
                  <span class="rounded-full bg-base-200 p-2">
                    <Icon name="tag" class="size-5" />
                  </span>
                  <div class="min-w-0">
                    <p class="font-semibold truncate">{t.name}</p>
                    <p class="text-sm text-base-content/70">{plural(t.linkCount, 'link')}</p>
                  </div>
                </div>
              </a>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

/** The list part of a tag page; refreshes itself after an edit made from it. */
export function TagLinks({ tag, rows, env }: { tag: Tag; rows: readonly LinkRowData[]; env: LinkTableEnv }) {
  const self = `/dashboard/tags/${tag.slug}`;
  return (
    <div id="tag-links" hx-get={self} hx-trigger="linkUpdated from:body, linkDeleted from:body" hx-swap="outerHTML" hx-select="#tag-links">
      {rows.length === 0 ? (
        <EmptyState icon="tag" title="No links with this tag">
          Links tagged with it will show up here.
        </EmptyState>
      ) : (
        <LinkTable rows={rows} variant="tag" env={env} />
      )}
    </div>
  );
}

export function TagDetail({ tag, rows, env }: { tag: Tag; rows: readonly LinkRowData[]; env: LinkTableEnv }) {
  return (
    <>
      <PageHeader title={tag.name} subtitle={plural(rows.length, 'link')} back={{ href: '/dashboard/tags', label: 'Tags' }} />
      <TagLinks tag={tag} rows={rows} env={env} />
    </>
  );
}
