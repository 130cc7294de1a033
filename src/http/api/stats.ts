import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import { AppError } from '../../domain/errors.js';
import { parseSeriesDays, SERIES_DAYS, type SeriesDays } from '../../domain/timeseries.js';
import type { LinkService } from '../../links/index.js';
import type { Store } from '../../store/index.js';
import { sendClickCsv } from '../shared/clickCsv.js';
import { errorResponses } from './errors.js';
import type { ApiBudgets } from '../shared/rateLimit.js';
import { BEARER, requestLink, requireLinkCap } from './guards.js';
import { LinkIdParams } from './links.js';
import { ref, StringEnum } from './schemas/ref.js';
import { OPAQUE } from './validation.js';
import { BreakdownsSchema, ClickListSchema, LinkStatsSchema, TimeSeriesSchema } from './schemas/analytics.js';
import { iso } from '../../links/index.js';

/**
 * Per-link click statistics (docs/analytics.md#per-link-stats, docs/analytics.md#daily-series, docs/analytics.md#breakdowns, docs/analytics.md#csv-export):
 * totals, the recent-clicks list, the daily series, the breakdowns and the
 * CSV export. Every route is gated on CanStats through `requireLinkCap`
 * (owners, co-owners, share recipients, admins), so the order of checks is
 * 401 → 404 → 403, and only then are query values looked at (400). Clicker
 * identities depend on CanManageShares, read from the same LinkCaps; the
 * aggregates carry none, so recipients get them in full.
 */

const DaysQuery = Type.Object({
  days: Type.Optional(
    StringEnum(SERIES_DAYS.map(String), {
      description: 'window in UTC days ending today: exactly `30` (default) or `90`; anything else is a 400',
    }),
  ),
});

/** The `days` value as a window; the domain parser is the rule, the schema only documents it. */
function windowDays(raw: string | undefined): SeriesDays {
  const days = parseSeriesDays(raw);
  if (days === null) throw new AppError('BAD_REQUEST', 'days must be 30 or 90', 'days');
  return days;
}

export function registerStatsRoutes(
  app: FastifyInstance,
  deps: { config: Config; store: Pick<Store, 'analytics'>; links: LinkService; budgets: Pick<ApiBudgets, 'clickExports'> },
): void {
  const { store, config } = deps;
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  // Governing: docs/analytics.md#who-sees-what — every per-link analytics read is CanStats.
  const stats = requireLinkCap(deps, 'canStats');

  api.get(
    '/links/:id/stats',
    {
      onRequest: stats,
      schema: {
        operationId: 'getLinkStats',
        summary: 'Click totals of a link: all retained, last 7 days, last 30 days',
        tags: ['Stats'],
        security: BEARER,
        params: LinkIdParams,
        response: { 200: ref(LinkStatsSchema, { description: 'Click totals' }), ...errorResponses(401, 403, 404, 500) },
      },
    },
    async (req) => {
      const { link } = requestLink(req);
      const t = await store.analytics.totals(link.id);
      return { link_id: link.id, total: t.total, last_7d: t.last7d, last_30d: t.last30d };
    },
  );

  api.get(
    '/links/:id/clicks',
    {
      onRequest: stats,
      schema: {
        operationId: 'listLinkClicks',
        summary: 'Recent clicks of a link, newest first, one keyset page at a time',
        tags: ['Stats'],
        security: BEARER,
        params: LinkIdParams,
        querystring: Type.Object({
          limit: Type.Optional(
            Type.String({ description: 'page size: default 50, at most 200; a non-integer, zero or negative value means 50' }),
          ),
          before: Type.Optional(
            Type.String({
              description:
                '`next_cursor` of the previous page (rows strictly after it), or a bare RFC 3339 timestamp (rows strictly earlier); anything else is a 400',
              [OPAQUE]: true,
            }),
          ),
        }),
        response: { 200: ref(ClickListSchema, { description: 'A page of clicks' }), ...errorResponses(400, 401, 403, 404, 500) },
      },
    },
    async (req) => {
      const { link, caps } = requestLink(req);
      const page = await store.analytics.recentClicks(link.id, {
        limit: req.query.limit,
        before: req.query.before,
        // Governing: docs/analytics.md#who-sees-what — `user` only with CanManageShares.
        attribution: caps.canManageShares,
      });
      return {
        clicks: page.clicks.map((c) => ({
          clicked_at: iso(c.clickedAt),
          referrer: c.referrer,
          user: c.user ? { id: c.user.id, display_name: c.user.displayName } : null,
        })),
        next_cursor: page.nextCursor,
      };
    },
  );

  api.get(
    '/links/:id/stats/timeseries',
    {
      onRequest: stats,
      schema: {
        operationId: 'getLinkTimeseries',
        summary: 'Daily clicks of a link over the last 30 or 90 UTC days, gap-filled',
        tags: ['Stats'],
        security: BEARER,
        params: LinkIdParams,
        querystring: DaysQuery,
        response: {
          200: ref(TimeSeriesSchema, { description: 'One entry per UTC day, oldest first' }),
          ...errorResponses(400, 401, 403, 404, 500),
        },
      },
    },
    async (req) => {
      const { link } = requestLink(req);
      const days = windowDays(req.query.days);
      // Governing: docs/analytics.md#daily-series — counts only; days before the retention horizon read 0.
      const s = await store.analytics.dailySeries(link.id, { days, retentionDays: config.clickRetentionDays });
      return { link_id: link.id, days: s.days, series: s.series.map((p) => ({ date: p.date, count: p.count })) };
    },
  );

  api.get(
    '/links/:id/stats/breakdowns',
    {
      onRequest: stats,
      schema: {
        operationId: 'getLinkBreakdowns',
        summary: 'Referrer hosts, browsers, operating systems and signed-in share of a link’s clicks over 30 or 90 UTC days',
        tags: ['Stats'],
        security: BEARER,
        params: LinkIdParams,
        querystring: DaysQuery,
        response: { 200: ref(BreakdownsSchema, { description: 'Breakdowns, counts only' }), ...errorResponses(400, 401, 403, 404, 500) },
      },
    },
    async (req) => {
      const { link } = requestLink(req);
      const days = windowDays(req.query.days);
      // Governing: docs/analytics.md#breakdowns — identity-free aggregates, so every CanStats caller gets them whole.
      const b = await store.analytics.breakdowns(link.id, { days });
      return {
        link_id: link.id,
        days: b.days,
        referrers: b.referrers.map((r) => ({ host: r.host, count: r.count })),
        browsers: b.browsers.map((r) => ({ name: r.name, count: r.count })),
        os: b.os.map((r) => ({ name: r.name, count: r.count })),
        auth: { authenticated: b.auth.authenticated, anonymous: b.auth.anonymous },
      };
    },
  );

  // Governing: docs/api.md#rate-limits — the export also spends the user's export budget, shared with the web route.
  const exportBudget = deps.budgets.clickExports;
  api.get(
    '/links/:id/stats/export',
    {
      onRequest: exportBudget ? [exportBudget, stats] : stats,
      schema: {
        operationId: 'exportLinkClicks',
        summary: 'Export a link’s clicks as CSV, oldest first, at most 100,000 rows per request',
        tags: ['Stats'],
        security: BEARER,
        params: LinkIdParams,
        querystring: Type.Object({
          from: Type.Optional(Type.String({ description: 'inclusive lower bound, RFC 3339 date-time' })),
          to: Type.Optional(Type.String({ description: 'inclusive upper bound, RFC 3339 date-time' })),
          cursor: Type.Optional(
            Type.String({ description: 'the `X-Next-Cursor` of the previous response: resume at the row right after it', [OPAQUE]: true }),
          ),
        }),
        response: {
          200: {
            description:
              'CSV with the header `clicked_at,referrer,user_agent,browser,os,authenticated,user`, streamed. ' +
              '`user_agent` and `user` are empty unless the caller holds CanManageShares. ' +
              "Cells a spreadsheet would run as a formula are prefixed with `'`.",
            headers: {
              'x-next-cursor': Type.String({
                description: 'present only when the 100,000-row cap cut the export short: pass it as `cursor` for the rest',
              }),
              'content-disposition': Type.String({ description: 'attachment; filename="{slug}-clicks.csv"' }),
            },
            content: { 'text/csv': { schema: Type.String() } },
          },
          ...errorResponses(400, 401, 403, 404, 500),
        },
      },
    },
    async (req, reply) => {
      const { link, caps } = requestLink(req);
      // Governing: docs/analytics.md#csv-export — user_agent and user columns only with CanManageShares.
      return sendClickCsv(reply, store, { link, attribution: caps.canManageShares, query: req.query });
    },
  );
}
