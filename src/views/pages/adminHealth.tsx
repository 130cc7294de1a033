import type { BrokenLinkRow } from '../../store/health.js';
import { Icon } from '../partials/icons.js';
import { LocalTime } from '../partials/localTime.js';
import { safeHref } from '../partials/linkTable.js';
import { plural } from '../format.js';
import { EmptyState, PageHeader, Spinner } from '../partials/ui.js';

/**
 * The link-health report of docs/lifecycle.md#badges-and-the-admin-report: every broken link, its
 * last error, and the two things an admin does about one: check it again now, or fix it.
 */

export interface LinkHealthPageProps {
  rows: readonly BrokenLinkRow[];
  shortKeyword: string;
  /** The server runs health checks, so a row can be checked again now. */
  canRecheck: boolean;
}

export function LinkHealthPage(p: LinkHealthPageProps) {
  return (
    <>
      <PageHeader title="Link Health" subtitle="Links whose destination failed three checks in a row." />
      <LinkHealthReport {...p} />
    </>
  );
}

/**
 * `#link-health-report`: what a row's Recheck answers with over HTMX, so a link that answers again
 * leaves the report and one that still fails shows its new status and time.
 */
export function LinkHealthReport({ rows, shortKeyword, canRecheck }: LinkHealthPageProps) {
  if (rows.length === 0) {
    return (
      <div id="link-health-report" class="space-y-4">
        <p class="text-sm text-base-content/70">0 broken links</p>
        <EmptyState icon="check" title="No broken links">
          Every checked destination answered on its last check. Links failing three checks in a row show up here.
        </EmptyState>
      </div>
    );
  }
  // From 1024 px a fixed-layout table that never scrolls sideways (the destination gives up its
  // room first); narrower, each row is a card of labelled lines (docs/web-ui.md#admin-screens).
  return (
    <div id="link-health-report" class="space-y-4">
      <p class="text-sm text-base-content/70">{plural(rows.length, 'broken link')}</p>
      <div class="rounded-box border border-base-300 bg-base-100">
        <table class="table table-md max-lg:stacked-table lg:table-fixed health-report">
          <thead>
            <tr>
              <th scope="col" class="w-[17%]">
                Slug
              </th>
              <th scope="col">Destination</th>
              <th scope="col" class="w-[11%]">
                Owner(s)
              </th>
              <th scope="col" class="w-[17%]">
                Last status
              </th>
              <th scope="col" class="w-[8rem]">
                Last checked
              </th>
              <th scope="col" class="w-[6rem]">
                Failures
              </th>
              <th scope="col" class="w-[8.5rem]">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => {
              const href = safeHref(r.url);
              const owners = [...new Set(r.owners.map((o) => o.displayName))].join(', ');
              const name = `${shortKeyword}/${r.slug}`;
              const recheck = `/admin/link-health/${r.id}/recheck`;
              return (
                <tr id={`health-${r.id}`}>
                  <td data-label="Slug">
                    <span class="flex min-w-0 flex-wrap items-center justify-end gap-x-2 gap-y-1 lg:justify-start">
                      <a class="font-mono link-brand font-semibold hover:underline break-words min-w-0" href={`/dashboard/links/${r.id}`}>
                        {r.slug}
                      </a>
                      <span class="badge badge-sm badge-error">broken</span>
                    </span>
                  </td>
                  <td class="min-w-0" data-label="Destination">
                    {href ? (
                      <a class="link link-hover block truncate" href={href} target="_blank" rel="noopener noreferrer" title={r.url}>
                        {r.url}
                      </a>
                    ) : (
                      <span class="block truncate" title={r.url}>
                        {r.url}
                      </span>
                    )}
                  </td>
                  <td class="break-words" data-label="Owner(s)">
                    {owners}
                  </td>
                  <td class="break-words" data-label="Last status">
                    {r.lastStatus !== null ? String(r.lastStatus) : (r.lastError ?? '—')}
                  </td>
                  <td data-label="Last checked">{r.lastCheckedAt !== null ? <LocalTime ms={r.lastCheckedAt} /> : '—'}</td>
                  <td data-label="Failures">{r.consecutiveFailures}</td>
                  <td class="health-actions">
                    <div class="flex flex-wrap gap-2 lg:flex-col lg:items-start">
                      {canRecheck && (
                        <form
                          method="post"
                          action={recheck}
                          hx-post={recheck}
                          hx-target="#link-health-report"
                          hx-swap="outerHTML"
                          hx-disabled-elt="find button"
                          class="m-0"
                        >
                          {/* Its id lets HTMX give the focus back to the same row's button after the report is redrawn. */}
                          <button type="submit" id={`recheck-${r.id}`} class="btn btn-sm">
                            <Spinner />
                            <Icon name="refresh" class="size-4" />
                            Recheck<span class="sr-only">{` ${name}`}</span>
                          </button>
                        </form>
                      )}
                      <a class="btn btn-sm btn-ghost" href={`/dashboard/links/${r.id}/edit`}>
                        <Icon name="pencil" class="size-4" />
                        Edit<span class="sr-only">{` ${name}`}</span>
                      </a>
                    </div>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </div>
  );
}
