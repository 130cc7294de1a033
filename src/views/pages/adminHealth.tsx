import type { BrokenLinkRow } from '../../store/health.js';
import { LocalTime } from '../partials/localTime.js';
import { safeHref } from '../partials/linkTable.js';
import { plural } from '../format.js';
import { EmptyState, PageHeader } from '../partials/ui.js';

/** The link-health report of docs/lifecycle.md#badges-and-the-admin-report: every broken link, its last error. */

export function LinkHealthPage({ rows }: { rows: readonly BrokenLinkRow[] }) {
  return (
    <>
      <PageHeader title="Link Health" subtitle={plural(rows.length, 'broken link')} />
      {rows.length === 0 ? (
        <EmptyState icon="check" title="No broken links">
          Every checked destination answered on its last check. Links failing three checks in a row show up here.
        </EmptyState>
      ) : (
        <div class="overflow-x-auto rounded-box border border-base-300 bg-base-100">
          <table class="table table-sm md:table-md table-stack">
            <thead>
              <tr>
                <th scope="col">Slug</th>
                <th scope="col">Destination</th>
                <th scope="col">Owner(s)</th>
                <th scope="col">Last status</th>
                <th scope="col">Last checked</th>
                <th scope="col">Failures</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => {
                const href = safeHref(r.url);
                const owners = [...new Set(r.owners.map((o) => o.displayName))].join(', ');
                return (
                  <tr>
                    <td data-label="Slug">
                      <span class="flex items-center gap-2">
                        <a class="font-mono link-brand font-semibold hover:underline" href={`/dashboard/links/${r.id}`}>
                          {r.slug}
                        </a>
                        <span class="badge badge-sm badge-error">broken</span>
                      </span>
                    </td>
                    <td class="max-w-[18rem] min-w-0" data-label="Destination">
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
                    <td data-label="Owner(s)">{owners}</td>
                    <td class="max-w-[16rem] break-words" data-label="Last status">
                      {r.lastStatus !== null ? String(r.lastStatus) : (r.lastError ?? '—')}
                    </td>
                    <td class="whitespace-nowrap text-sm" data-label="Last checked">
                      {r.lastCheckedAt !== null ? <LocalTime ms={r.lastCheckedAt} /> : '—'}
                    </td>
                    <td data-label="Failures">{r.consecutiveFailures}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
