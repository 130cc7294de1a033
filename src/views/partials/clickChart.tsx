import type { DailySeries, SeriesPoint } from '../../domain/timeseries.js';
import { formatDate, plural } from '../format.js';

/**
 * The daily-clicks chart of the stats page
 * (docs/analytics.md#daily-series): an inline SVG bar chart computed here from the
 * gap-filled series — no chart library, no client-side rendering. Colours
 * come from the theme through `currentColor` (the bars take `--joe-link`, the
 * AA-contrast text colour of each theme; axes and grid the base content
 * colour), so one markup reads in both themes. Every day carries a <title>
 * tooltip. Days before the retention horizon are drawn hatched as no-data,
 * unlike zero days, which get a thin mark on the baseline. The chart holds
 * counts only, never anything about clickers.
 *
 * Only SVG presentation attributes and classes are used: the
 * Content-Security-Policy forbids inline styles.
 */

/**
 * Two drawings of one series: the wide one from the `sm` breakpoint up, a compact one on a
 * phone, each scaled to its container (never scrolled), so today stays in view and the axis
 * text keeps about 11 px or more at the container widths they are shown in.
 */
interface Geometry {
  width: number;
  height: number;
  pad: { left: number; right: number; top: number; bottom: number };
  font: number;
  /** Days between x-axis labels for a 30-day window (twice as many for longer ones). */
  every: number;
}
const WIDE: Geometry = { width: 720, height: 240, pad: { left: 44, right: 12, top: 12, bottom: 30 }, font: 11, every: 7 };
const COMPACT: Geometry = { width: 360, height: 210, pad: { left: 34, right: 8, top: 12, bottom: 30 }, font: 14, every: 14 };

/** `Jul 17` — chart days are UTC calendar days (the spec's documented simplification). */
function shortDay(dayStart: number): string {
  return formatDate(dayStart).replace(/, \d+$/, '');
}

/** An integer step from 1, 2, 5 × 10^k giving at most `maxTicks` intervals up to `max`. */
export function niceStep(max: number, maxTicks = 4): number {
  if (max <= maxTicks) return 1;
  const raw = max / maxTicks;
  const mag = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * mag >= raw) return m * mag;
  return 10 * mag;
}

/** Indices of the days that get an x-axis label: today, then every `every` days back, and the first day when there is room. */
export function labelledDays(days: number, every30 = 7): number[] {
  const every = days <= 30 ? every30 : every30 * 2;
  const out: number[] = [];
  for (let i = days - 1; i >= 0; i -= every) out.push(i);
  const lowest = out[out.length - 1]!;
  if (lowest !== 0 && lowest >= every / 2) out.push(0);
  return out.sort((a, b) => a - b);
}

function dayTitle(p: SeriesPoint): string {
  const day = formatDate(p.dayStart);
  if (p.noData) return `${day}: no data (before the retention horizon)`;
  return `${day}: ${plural(p.count, 'click')}`;
}

/** The one-sentence description screen readers get for the whole chart. */
export function chartSummary(s: DailySeries): string {
  const points = s.series;
  if (points.length === 0) return 'Daily clicks: no days in range.';
  const first = formatDate(points[0]!.dayStart);
  const last = formatDate(points[points.length - 1]!.dayStart);
  const kept = points.filter((p) => !p.noData);
  const total = kept.reduce((n, p) => n + p.count, 0);
  let text = `Daily clicks over the last ${s.days} days, ${first} to ${last} (UTC days): ${plural(total, 'click')} in total`;
  const peak = kept.reduce<SeriesPoint | null>((best, p) => (p.count > 0 && (best === null || p.count > best.count) ? p : best), null);
  text += peak ? `, busiest day ${formatDate(peak.dayStart)} with ${plural(peak.count, 'click')}.` : '.';
  const missing = points.length - kept.length;
  if (missing > 0) text += ` The first ${plural(missing, 'day')} fall before the retention horizon and have no data.`;
  return text;
}

/** A small legend swatch, drawn like the chart draws the same kind of day. */
function Swatch({ kind }: { kind: 'bar' | 'zero' | 'nodata' }) {
  return (
    <svg viewBox="0 0 14 14" class={`size-3.5 shrink-0 ${kind === 'bar' ? 'link-brand' : ''}`} aria-hidden="true" focusable="false">
      {kind === 'bar' && <rect x="1" y="1" width="12" height="12" rx="2" fill="currentColor" />}
      {kind === 'zero' && <rect x="1" y="11" width="12" height="2" fill="currentColor" fill-opacity="0.55" />}
      {kind === 'nodata' && (
        <>
          {/* Its own hatch: the chart's drawing at the other width is not displayed, and neither are its patterns. */}
          <defs>
            <pattern id="chart-nodata-swatch" patternUnits="userSpaceOnUse" width="6" height="6" patternTransform="rotate(45)">
              <rect width="6" height="6" fill="currentColor" fill-opacity="0.06" />
              <line x1="0" y1="0" x2="0" y2="6" stroke="currentColor" stroke-width="2" stroke-opacity="0.4" />
            </pattern>
          </defs>
          <rect x="1" y="1" width="12" height="12" rx="2" fill="url(#chart-nodata-swatch)" stroke="currentColor" stroke-opacity="0.35" />
        </>
      )}
    </svg>
  );
}

/** One drawing of the chart at geometry `g`; `shown` says at which widths it is displayed. */
function ChartSvg({ series, g, layout, shown }: { series: DailySeries; g: Geometry; layout: 'wide' | 'compact'; shown: string }) {
  // Each drawing's hatch pattern has an id of its own: ids are unique in a page.
  const nodata = `chart-nodata-${layout}`;
  const { width: WIDTH, height: HEIGHT, pad: PAD } = g;
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const baseline = PAD.top + plotH;
  const points = series.series;
  const days = points.length;
  const max = points.reduce((m, p) => Math.max(m, p.noData ? 0 : p.count), 0);
  const step = niceStep(max);
  const yMax = Math.max(step, Math.ceil(max / step) * step);
  const ticks: number[] = [];
  for (let v = 0; v <= yMax; v += step) ticks.push(v);
  const slot = days > 0 ? plotW / days : plotW;
  const barW = Math.max(1, Math.min(slot * 0.72, 24));
  const y = (v: number) => baseline - (v / yMax) * plotH;
  const labels = new Set(labelledDays(days, g.every));
  const summary = chartSummary(series);
  const r = (n: number) => Math.round(n * 100) / 100;

  return (
    <svg
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      class={`w-full h-auto text-base-content ${shown}`}
      role="img"
      aria-label={summary}
      data-chart-days={String(days)}
      data-chart-layout={layout}
      focusable="false"
    >
      <defs>
        <pattern id={nodata} patternUnits="userSpaceOnUse" width="6" height="6" patternTransform="rotate(45)">
          <rect width="6" height="6" fill="currentColor" fill-opacity="0.06" />
          <line x1="0" y1="0" x2="0" y2="6" stroke="currentColor" stroke-width="2" stroke-opacity="0.4" />
        </pattern>
      </defs>
      <g class="chart-grid" fill="currentColor" font-size={String(g.font)} aria-hidden="true">
        {ticks.map((t) => (
          <g>
            <line
              x1={PAD.left}
              x2={WIDTH - PAD.right}
              y1={r(y(t))}
              y2={r(y(t))}
              stroke="currentColor"
              stroke-opacity={t === 0 ? '0.6' : '0.15'}
              stroke-width="1"
            />
            <text x={PAD.left - 6} y={r(y(t) + 4)} text-anchor="end" fill-opacity="0.8">
              {String(t)}
            </text>
          </g>
        ))}
      </g>
      <g class="chart-days">
        {points.map((p, i) => {
          const x0 = PAD.left + i * slot;
          const cx = x0 + slot / 2;
          const kind = p.noData ? 'nodata' : p.count === 0 ? 'zero' : 'bar';
          return (
            <g data-day={p.date} data-kind={kind} data-count={p.noData ? undefined : String(p.count)}>
              <title>{dayTitle(p)}</title>
              {/* The whole column answers hover, so a short bar is as easy to point at as a tall one. */}
              <rect x={r(x0)} y={PAD.top} width={r(slot)} height={plotH} fill="transparent" />
              {kind === 'nodata' && (
                <rect x={r(x0 + 0.5)} y={PAD.top} width={r(Math.max(0.5, slot - 1))} height={plotH} fill={`url(#${nodata})`} />
              )}
              {kind === 'zero' && (
                <rect x={r(cx - barW / 2)} y={baseline - 2} width={r(barW)} height="2" fill="currentColor" fill-opacity="0.55" />
              )}
              {kind === 'bar' && (
                <rect
                  class="link-brand"
                  x={r(cx - barW / 2)}
                  y={r(Math.min(y(p.count), baseline - 2))}
                  width={r(barW)}
                  height={r(Math.max(2, baseline - y(p.count)))}
                  rx={barW > 4 ? '1.5' : '0'}
                  fill="currentColor"
                />
              )}
            </g>
          );
        })}
      </g>
      <g class="chart-x-axis" fill="currentColor" font-size={String(g.font)} aria-hidden="true">
        {points.map((p, i) => {
          if (!labels.has(i)) return null;
          const cx = PAD.left + i * slot + slot / 2;
          const anchor = i === 0 && slot < 30 ? 'start' : i === days - 1 && slot < 30 ? 'end' : 'middle';
          const x = anchor === 'start' ? PAD.left + i * slot : anchor === 'end' ? PAD.left + (i + 1) * slot : cx;
          return (
            <g>
              <line x1={r(cx)} x2={r(cx)} y1={baseline} y2={baseline + 4} stroke="currentColor" stroke-opacity="0.6" />
              <text x={r(x)} y={baseline + 18} text-anchor={anchor} fill-opacity="0.8">
                {shortDay(p.dayStart)}
              </text>
            </g>
          );
        })}
      </g>
    </svg>
  );
}

export function ClickChart({ series }: { series: DailySeries }) {
  const points = series.series;
  const anyNoData = points.some((p) => p.noData);
  return (
    <div class="space-y-2" data-chart>
      {/* Scaled to the box, never scrolled: a compact drawing on a phone, the wide one from sm up. */}
      <div>
        <ChartSvg series={series} g={COMPACT} layout="compact" shown="sm:hidden" />
        <ChartSvg series={series} g={WIDE} layout="wide" shown="hidden sm:block" />
      </div>
      <div class="flex flex-wrap items-center gap-x-4 gap-y-1 text-sm text-base-content/80" data-chart-legend>
        <span class="inline-flex items-center gap-1.5">
          <Swatch kind="bar" />
          Clicks per UTC day
        </span>
        <span class="inline-flex items-center gap-1.5">
          <Swatch kind="zero" />
          No clicks
        </span>
        {anyNoData && (
          <span class="inline-flex items-center gap-1.5" data-legend="nodata">
            <Swatch kind="nodata" />
            No data (before the retention horizon; older clicks were pruned)
          </span>
        )}
      </div>
      <details class="text-sm">
        <summary class="cursor-pointer link link-hover w-fit">Daily counts as a table</summary>
        <div class="overflow-x-auto max-h-80 mt-2" tabindex={0} role="region" aria-label="Clicks per UTC day">
          <table class="table table-xs w-auto">
            <caption class="sr-only">Clicks per UTC day</caption>
            <thead>
              <tr>
                <th scope="col">Day (UTC)</th>
                <th scope="col" class="text-right">
                  Clicks
                </th>
              </tr>
            </thead>
            <tbody>
              {points.map((p) => (
                <tr>
                  <td class="whitespace-nowrap">{formatDate(p.dayStart)}</td>
                  <td class="text-right tabular-nums">{p.noData ? 'no data' : String(p.count)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </div>
  );
}
