import type { ComponentChildren } from 'preact';
import { percentOf } from '../../domain/breakdowns.js';
import type { DailySeries } from '../../domain/timeseries.js';
import type { LinkBreakdowns, LinkTotals, RecentClick } from '../../store/analytics.js';
import { plural } from '../format.js';
import { ClickChart } from '../partials/clickChart.js';
import { Icon } from '../partials/icons.js';
import { LocalTime } from '../partials/localTime.js';
import { PageHeader, Spinner } from '../partials/ui.js';

/**
 * The per-link stats page (docs/web-ui.md#stats-page, docs/analytics.md):
 * counters, the daily chart with its breakdowns in one swappable window
 * (30/90 days), and the 50 latest clicks. Whoever renders this has CanStats;
 * `attribution` (CanManageShares) alone decides whether the User column — the
 * only clicker identity on the page — exists at all.
 */

export const WINDOW_ID = 'stats-window';

/** Retention as the page labels it: off, or the N-day window and its horizon. */
export type RetentionLabel = { days: number; horizon: number } | null;

export interface StatsWindowProps {
  linkId: string;
  days: 30 | 90;
  series: DailySeries;
  breakdowns: LinkBreakdowns;
}

export interface LinkStatsProps {
  linkId: string;
  slug: string;
  totals: LinkTotals;
  recent: RecentClick[];
  /** CanManageShares: the recent-clicks table gets its User column. */
  attribution: boolean;
  retention: RetentionLabel;
  window: StatsWindowProps;
}

export const statsPath = (linkId: string) => `/dashboard/links/${linkId}/stats`;

function StatCard({ title, value, desc }: { title: ComponentChildren; value: number; desc: string }) {
  return (
    <div class="stat">
      <div class="stat-title text-base-content/80">{title}</div>
      <div class="stat-value tabular-nums">{String(value)}</div>
      <div class="stat-desc text-base-content/80">{desc}</div>
    </div>
  );
}

/** The 30/90 toggle: plain links to the page without JavaScript, an HTMX swap of the window with it. */
function WindowToggle({ linkId, days }: { linkId: string; days: 30 | 90 }) {
  return (
    <nav class="join" aria-label="Chart window">
      {([30, 90] as const).map((d) => {
        const page = `${statsPath(linkId)}?days=${d}`;
        const active = d === days;
        return (
          <a
            href={page}
            hx-get={`${statsPath(linkId)}/chart?days=${d}`}
            hx-target={`#${WINDOW_ID}`}
            hx-swap="outerHTML"
            hx-push-url={page}
            hx-indicator={`#${WINDOW_ID}-spinner`}
            class="join-item btn btn-sm"
            role="button"
            aria-pressed={active ? 'true' : 'false'}
          >
            {`${d} days`}
          </a>
        );
      })}
    </nav>
  );
}

interface BreakdownRow {
  label: string;
  count: number;
  muted?: boolean;
}

/** A counts table with a proportional bar per row (decorative: the numbers are in the cells). */
function BreakdownTable({
  id,
  title,
  keyHeader,
  rows,
  total,
}: {
  id: string;
  title: string;
  keyHeader: string;
  rows: BreakdownRow[];
  total: number;
}) {
  return (
    <section class="card bg-base-100 border border-base-300" aria-labelledby={`${id}-title`} data-breakdown={id}>
      <div class="card-body gap-3 p-4">
        <h3 id={`${id}-title`} class="card-title text-base">
          {title}
        </h3>
        {rows.length === 0 ? (
          <p class="text-sm text-base-content/80">No clicks in this window.</p>
        ) : (
          <table class="table table-sm">
            <thead>
              <tr>
                <th scope="col">{keyHeader}</th>
                <th scope="col" class="text-right">
                  Clicks
                </th>
                <th scope="col" class="text-right">
                  Share
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => {
                const pct = percentOf(row.count, total);
                return (
                  <tr>
                    <th scope="row" class="font-normal max-w-[14rem]">
                      <span class={`block wrap-anywhere${row.muted ? ' italic text-base-content/80' : ''}`}>{row.label}</span>
                      <svg
                        viewBox="0 0 100 4"
                        preserveAspectRatio="none"
                        class="w-full h-1 mt-1 link-brand"
                        aria-hidden="true"
                        focusable="false"
                      >
                        <rect width="100" height="4" fill="currentColor" fill-opacity="0.12" />
                        <rect width={String(Math.round(pct * 10) / 10)} height="4" fill="currentColor" />
                      </svg>
                    </th>
                    <td class="text-right tabular-nums align-top">{String(row.count)}</td>
                    <td class="text-right tabular-nums align-top">{formatPct(pct)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      </div>
    </section>
  );
}

export function formatPct(pct: number): string {
  if (pct > 0 && pct < 1) return '<1%';
  return `${Math.round(pct)}%`;
}

const SYNTHETIC_HOSTS = new Set(['Direct / unknown', 'Other']);

/** The chart and the breakdowns of one window: what `GET …/stats/chart?days=` returns and the toggle swaps. */
export function StatsWindow({ linkId, days, series, breakdowns }: StatsWindowProps) {
  const b = breakdowns;
  const total = b.auth.authenticated + b.auth.anonymous;
  return (
    <section id={WINDOW_ID} class="space-y-4" aria-labelledby="stats-window-title" data-days={String(days)}>
      <div class="flex flex-wrap items-center justify-between gap-3">
        <div>
          <h2 id="stats-window-title" class="text-lg font-semibold">{`Daily clicks — last ${days} days`}</h2>
          <p class="text-sm text-base-content/80">{`${plural(total, 'click')} in this window. Days are UTC calendar days.`}</p>
        </div>
        <div class="flex items-center gap-2">
          <Spinner id={`${WINDOW_ID}-spinner`} />
          <WindowToggle linkId={linkId} days={days} />
        </div>
      </div>
      <div class="card bg-base-100 border border-base-300">
        <div class="card-body p-4">
          <ClickChart series={series} />
        </div>
      </div>
      <div class="grid gap-4 md:grid-cols-2">
        <BreakdownTable
          id="breakdown-referrers"
          title="Referrers"
          keyHeader="Host"
          total={total}
          rows={b.referrers.map((r) => ({ label: r.host, count: r.count, muted: SYNTHETIC_HOSTS.has(r.host) }))}
        />
        <BreakdownTable
          id="breakdown-auth"
          title="Authenticated vs anonymous"
          keyHeader="Visitor"
          total={total}
          rows={
            total === 0
              ? []
              : [
                  { label: 'Authenticated', count: b.auth.authenticated },
                  { label: 'Anonymous', count: b.auth.anonymous },
                ]
          }
        />
        <BreakdownTable
          id="breakdown-browsers"
          title="Browsers"
          keyHeader="Browser"
          total={total}
          rows={b.browsers.map((r) => ({ label: r.name, count: r.count, muted: r.name === 'Other' || r.name === 'Unknown' }))}
        />
        <BreakdownTable
          id="breakdown-os"
          title="Operating systems"
          keyHeader="OS"
          total={total}
          rows={b.os.map((r) => ({ label: r.name, count: r.count, muted: r.name === 'Other' || r.name === 'Unknown' }))}
        />
      </div>
    </section>
  );
}

function RecentClicks({ clicks, attribution }: { clicks: RecentClick[]; attribution: boolean }) {
  return (
    <section class="card bg-base-100 border border-base-300" aria-labelledby="recent-clicks-title">
      <div class="card-body gap-3 p-4">
        <h2 id="recent-clicks-title" class="card-title text-lg">
          Recent Clicks
        </h2>
        {clicks.length === 0 ? (
          <p class="text-base-content/80">No clicks recorded yet.</p>
        ) : (
          <div class="overflow-x-auto" tabindex={0} role="region" aria-labelledby="recent-clicks-title">
            <table class="table table-sm max-sm:stacked-table" id="recent-clicks">
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">Referrer</th>
                  {attribution && <th scope="col">User</th>}
                </tr>
              </thead>
              <tbody>
                {clicks.map((c) => (
                  <tr>
                    <td class="whitespace-nowrap" data-label="Time">
                      <LocalTime ms={c.clickedAt} />
                    </td>
                    <td class="max-w-[28rem]" data-label="Referrer">
                      {c.referrer ? (
                        <span class="block sm:min-w-48 wrap-anywhere">{c.referrer}</span>
                      ) : (
                        <span class="block sm:min-w-48 text-base-content/70 italic">Direct / unknown</span>
                      )}
                    </td>
                    {attribution && (
                      <td class="break-words" data-label="User">
                        {c.user ? c.user.displayName || 'unnamed user' : <span class="text-base-content/70 italic">anonymous</span>}
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </div>
    </section>
  );
}

export function LinkStatsPage(p: LinkStatsProps) {
  const base = `/dashboard/links/${p.linkId}`;
  return (
    <div class="space-y-6" id="link-stats">
      <PageHeader
        back={{ href: base, label: 'Back to link' }}
        title={`${p.slug} — Analytics`}
        actions={
          <a class="btn btn-sm" href={`${base}/stats/export`} download={`${p.slug}-clicks.csv`}>
            <Icon name="download" class="size-4" />
            Export CSV
          </a>
        }
      />
      <div class="stats stats-vertical sm:stats-horizontal w-full border border-base-300 bg-base-100">
        {p.retention ? (
          <StatCard
            title={
              <>
                {'Since '}
                <LocalTime ms={p.retention.horizon} date />
              </>
            }
            value={p.totals.total}
            desc={`clicks within the ${p.retention.days}-day retention window`}
          />
        ) : (
          <StatCard title="All Time" value={p.totals.total} desc="total clicks" />
        )}
        {/* The store's rolling counters (now − 7 d / now − 30 d), the figures REST and MCP report for the same link. */}
        <StatCard title="Last 7 Days" value={p.totals.last7d} desc="clicks since this time 7 days ago" />
        <StatCard title="Last 30 Days" value={p.totals.last30d} desc="clicks since this time 30 days ago" />
      </div>
      <StatsWindow {...p.window} />
      <RecentClicks clicks={p.recent} attribution={p.attribution} />
    </div>
  );
}
