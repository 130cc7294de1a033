import { Type } from '@sinclair/typebox';
import { BROWSER_FAMILIES, OS_FAMILIES } from '../../../domain/userAgent.js';
import { Id, Nullable, StringEnum, Timestamp } from './ref.js';

/**
 * Click analytics (docs/analytics.md#per-link-stats, docs/analytics.md#daily-series,
 * docs/analytics.md#breakdowns, docs/analytics.md#dashboard). Every field is listed with
 * additionalProperties: false, so the serialiser drops anything else the store returns (day
 * starts, no-data flags, clicker ids without CanManageShares).
 */

export const LinkStatsSchema = Type.Object(
  {
    link_id: Id('link id'),
    total: Type.Integer({ description: 'every retained click (with click retention on, only those within the retention window)' }),
    last_7d: Type.Integer({ description: 'clicks with clicked_at ≥ now − 7 days' }),
    last_30d: Type.Integer({ description: 'clicks with clicked_at ≥ now − 30 days' }),
  },
  { $id: 'LinkStatsResponse', additionalProperties: false },
);

export const ClickListSchema = Type.Object(
  {
    clicks: Type.Array(
      Type.Object(
        {
          clicked_at: Timestamp(),
          referrer: Nullable(Type.String({ description: 'stored referrer, query string and fragment removed; null when absent' })),
          user: Nullable(
            Type.Object(
              { id: Id('user id'), display_name: Type.String() },
              {
                additionalProperties: false,
                description: 'the clicker; null for anonymous clicks and for every click unless the caller holds CanManageShares',
              },
            ),
          ),
        },
        { additionalProperties: false },
      ),
      { description: 'newest first by (clicked_at, id)' },
    ),
    next_cursor: Nullable(Type.String({ description: 'pass as `before` for the next page; null on the last page' })),
  },
  { $id: 'ClickListResponse', additionalProperties: false },
);

const windowDays = Type.Integer({ description: 'the window in UTC days: 30 or 90' });

const hostCount = Type.Object(
  {
    host: Type.String({ description: 'referrer host, `Direct / unknown`, or `Other` summing the hosts below the top 10' }),
    count: Type.Integer(),
  },
  { additionalProperties: false },
);

export const TimeSeriesSchema = Type.Object(
  {
    link_id: Id('link id'),
    days: windowDays,
    series: Type.Array(
      Type.Object(
        { date: Type.String({ format: 'date', description: 'UTC calendar day, YYYY-MM-DD' }), count: Type.Integer() },
        { additionalProperties: false },
      ),
      { description: 'exactly `days` entries, ascending, ending today (UTC), zero-filled; days before a retention horizon read 0' },
    ),
  },
  { $id: 'TimeSeriesResponse', additionalProperties: false },
);

const familyCount = <T extends readonly string[]>(families: T) =>
  Type.Object({ name: StringEnum(families), count: Type.Integer() }, { additionalProperties: false });

export const BreakdownsSchema = Type.Object(
  {
    link_id: Id('link id'),
    days: windowDays,
    referrers: Type.Array(hostCount, { description: 'top 10 hosts by count (ties by name), then one `Other` row' }),
    browsers: Type.Array(familyCount(BROWSER_FAMILIES)),
    os: Type.Array(familyCount(OS_FAMILIES)),
    auth: Type.Object(
      { authenticated: Type.Integer({ description: 'clicks by signed-in users' }), anonymous: Type.Integer() },
      { additionalProperties: false },
    ),
  },
  { $id: 'BreakdownsResponse', additionalProperties: false, description: 'Counts only: nothing here identifies a clicker.' },
);

export const AnalyticsSchema = Type.Object(
  {
    period: StringEnum(['week', 'month']),
    scope: StringEnum(['mine', 'all']),
    top_links: Type.Array(
      Type.Object(
        {
          link_id: Id('link id'),
          slug: Type.String(),
          count: Type.Integer({ description: 'clicks in the period' }),
          previous_count: Type.Integer({ description: 'clicks in the equal-length period before it' }),
          trend_pct: Nullable(
            Type.Number({ description: '100 × (count − previous_count) / previous_count; null ("new") when previous_count is 0' }),
          ),
        },
        { additionalProperties: false },
      ),
      { description: 'the 10 most-clicked links of the period' },
    ),
    never_clicked: Type.Array(
      Type.Object({ link_id: Id('link id'), slug: Type.String(), created_at: Timestamp() }, { additionalProperties: false }),
      { description: 'links created at least 7 days ago with no recorded click, newest first, at most 10' },
    ),
    top_referrers: Type.Array(hostCount, { description: 'busiest referrer hosts of the period (top 10 plus `Other`)' }),
  },
  { $id: 'AnalyticsResponse', additionalProperties: false, description: 'Aggregate counts only; no clicker identities.' },
);
