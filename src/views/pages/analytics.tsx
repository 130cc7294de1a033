import type { ComponentChildren } from 'preact';
import type { DashboardScope } from '../../domain/statsScope.js';
import type { Dashboard, TopLink } from '../../store/analytics.js';
import type { Period } from '../../domain/timeseries.js';
import { LocalTime } from '../partials/localTime.js';
import { PageHeader, Spinner } from '../partials/ui.js';
import { statsPath } from './linkStats.js';
import { BreakableSlug } from '../partials/breakable.js';

/**
 * `/dashboard/analytics` (docs/analytics.md#dashboard): top
 * links with their trend, never-clicked links and the busiest referrer hosts
 * over the scope the store resolved. Aggregate counts only — there is no
 * clicker identity anywhere on this page, by construction.
 */

export const PANELS_ID = 'analytics-panels';

export interface AnalyticsProps {
  dashboard: Dashboard;
  /** Shows the scope toggle; the store alone decides whether `all` is allowed. */
  isAdmin: boolean;
  /** Retention on: the never-clicked panel says "no clicks within retention". */
  retentionActive: boolean;
}

const PERIOD_LABEL: Record<Period, string> = { week: 'Last 7 days', month: 'Last 30 days' };

export function analyticsUrl(p: { period: Period; scope: DashboardScope }): string {
  const sp = new URLSearchParams();
  if (p.period !== 'week') sp.set('period', p.period);
  if (p.scope !== 'mine') sp.set('scope', p.scope);
  const s = sp.toString();
  return s ? `/dashboard/analytics?${s}` : '/dashboard/analytics';
}

function Toggle<T extends string>({
  label,
  options,
  current,
  href,
}: {
  label: string;
  options: Array<[T, string]>;
  current: T;
  href: (v: T) => string;
}) {
  return (
    <nav class="join" aria-label={label}>
      {options.map(([value, text]) => (
        <a
          href={href(value)}
          hx-get={href(value)}
          hx-target={`#${PANELS_ID}`}
          hx-swap="outerHTML"
          hx-push-url="true"
          hx-indicator={`#${PANELS_ID}-spinner`}
          class="join-item btn btn-sm"
          role="button"
          aria-pressed={value === current ? 'true' : 'false'}
        >
          {text}
        </a>
      ))}
    </nav>
  );
}

/**
 * `+50%`, `−20%`, `0%`; "new" whenever the previous period had no clicks — the REST
 * field's `trend_pct: null` — whatever the link's age (the tooltip tells which).
 */
export function Trend({ link }: { link: TopLink }) {
  if (link.trendPct === null)
    return (
      <span class="badge badge-sm badge-info" title={link.isNew ? 'Created in this period' : 'No clicks in the previous period'}>
        new
      </span>
    );
  const pct = link.trendPct;
  const rounded = Math.abs(pct) < 10 && Math.round(pct) !== pct ? Math.round(pct * 10) / 10 : Math.round(pct);
  if (rounded === 0) return <span class="text-base-content/80">0%</span>;
  const up = rounded > 0;
  return (
    <span class={`inline-flex items-center gap-0.5 font-medium ${up ? 'success-text' : 'error-text'}`}>
      <span aria-hidden="true">{up ? '▲' : '▼'}</span>
      {up ? `+${rounded}%` : `−${Math.abs(rounded)}%`}
    </span>
  );
}

function Panel({ id, title, subtitle, children }: { id: string; title: string; subtitle?: string; children: ComponentChildren }) {
  return (
    <section class="card bg-base-100 border border-base-300" aria-labelledby={`${id}-title`} id={id}>
      <div class="card-body gap-3 p-4">
        <div>
          <h2 id={`${id}-title`} class="card-title text-base">
            {title}
          </h2>
          {subtitle && <p class="text-sm text-base-content/80">{subtitle}</p>}
        </div>
        {children}
      </div>
    </section>
  );
}

function Empty({ children }: { children: ComponentChildren }) {
  return <p class="text-sm text-base-content/80 py-2">{children}</p>;
}

function SlugLink({ linkId, slug }: { linkId: string; slug: string }) {
  return (
    // break-words, not wrap-anywhere: in a table the latter lets the column shrink until the slug breaks mid-word.
    <a class="link link-hover link-brand font-mono break-words" href={statsPath(linkId)}>
      <BreakableSlug slug={slug} />
    </a>
  );
}

export function AnalyticsPanels({ dashboard: d, isAdmin, retentionActive }: AnalyticsProps) {
  const period = PERIOD_LABEL[d.period].toLowerCase();
  return (
    <div id={PANELS_ID} class="space-y-4" data-period={d.period} data-scope={d.scope}>
      <div class="flex flex-wrap items-center gap-3">
        <Toggle
          label="Period"
          current={d.period}
          options={[
            ['week', 'Week'],
            ['month', 'Month'],
          ]}
          href={(v) => analyticsUrl({ period: v, scope: d.scope })}
        />
        {isAdmin && (
          <Toggle
            label="Scope"
            current={d.scope}
            options={[
              ['mine', 'My links'],
              ['all', 'All links'],
            ]}
            href={(v) => analyticsUrl({ period: d.period, scope: v })}
          />
        )}
        <Spinner id={`${PANELS_ID}-spinner`} />
        <p class="text-sm text-base-content/80">
          {d.scope === 'all' ? 'Every link on this instance' : 'Links you own or co-own, and links shared with you'}
          {` · ${PERIOD_LABEL[d.period]}`}
        </p>
      </div>

      <Panel
        id="top-links"
        title="Top links"
        subtitle={`Most clicked in the ${period}, compared with the ${d.period === 'week' ? '7' : '30'} days before`}
      >
        {d.topLinks.length === 0 ? (
          <Empty>{`No clicks in the ${period}.`}</Empty>
        ) : (
          <div class="overflow-x-auto" tabindex={0} role="region" aria-labelledby="top-links-title">
            <table class="table table-sm">
              <thead>
                <tr>
                  <th scope="col">Link</th>
                  <th scope="col" class="text-right">
                    Clicks
                  </th>
                  <th scope="col" class="text-right">
                    Previous
                  </th>
                  <th scope="col" class="text-right">
                    Trend
                  </th>
                </tr>
              </thead>
              <tbody>
                {d.topLinks.map((l) => (
                  <tr data-link-id={l.linkId}>
                    <td>
                      <SlugLink linkId={l.linkId} slug={l.slug} />
                    </td>
                    <td class="text-right tabular-nums">{String(l.count)}</td>
                    <td class="text-right tabular-nums">{String(l.previousCount)}</td>
                    <td class="text-right whitespace-nowrap">
                      <Trend link={l} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Panel>

      <div class="grid gap-4 lg:grid-cols-2">
        <Panel
          id="never-clicked"
          title="Never clicked"
          subtitle={retentionActive ? 'Created over 7 days ago, no clicks within retention' : 'Created over 7 days ago, never clicked'}
        >
          {d.neverClicked.length === 0 ? (
            <Empty>{retentionActive ? 'No links without clicks within retention.' : 'No links older than a week without clicks.'}</Empty>
          ) : (
            <ul class="divide-y divide-base-300">
              {d.neverClicked.map((l) => (
                <li class="flex flex-wrap items-baseline justify-between gap-2 py-2" data-link-id={l.linkId}>
                  <SlugLink linkId={l.linkId} slug={l.slug} />
                  <span class="text-sm text-base-content/80">
                    {'Created '}
                    <LocalTime ms={l.createdAt} date />
                  </span>
                </li>
              ))}
            </ul>
          )}
        </Panel>

        <Panel id="busiest-referrers" title="Busiest referrers" subtitle={`Referrer hosts across these links, ${period}`}>
          {d.topReferrers.length === 0 ? (
            <Empty>{`No clicks in the ${period}.`}</Empty>
          ) : (
            <table class="table table-sm">
              <thead>
                <tr>
                  <th scope="col">Host</th>
                  <th scope="col" class="text-right">
                    Clicks
                  </th>
                </tr>
              </thead>
              <tbody>
                {d.topReferrers.map((r) => (
                  <tr>
                    <td class="wrap-anywhere">{r.host}</td>
                    <td class="text-right tabular-nums">{String(r.count)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </Panel>
      </div>
    </div>
  );
}

export function AnalyticsPage(p: AnalyticsProps) {
  return (
    <div class="space-y-6">
      <PageHeader title="Analytics" subtitle="Aggregate click counts across your links. Counts only: no clicker is ever named here." />
      <AnalyticsPanels {...p} />
    </div>
  );
}
