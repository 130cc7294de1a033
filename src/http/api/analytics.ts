import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { requestUser } from '../../auth/currentUser.js';
import { AppError } from '../../domain/errors.js';
import { dashboardScopeFor, parseDashboardScope } from '../../domain/statsScope.js';
import { parsePeriod } from '../../domain/timeseries.js';
import type { Store } from '../../store/index.js';
import { viewerOf } from '../../store/types.js';
import { errorResponses } from './errors.js';
import { BEARER } from './guards.js';
import { ref, StringEnum } from './schemas/ref.js';
import { AnalyticsSchema } from './schemas/analytics.js';
import { iso } from '../../links/index.js';

/**
 * `GET /api/v1/analytics`
 * (docs/analytics.md#dashboard): the dashboard's panels as JSON. Which links count is decided
 * by the domain rule and the store — the caller's own, co-owned and shared links, or for admins
 * who ask, every link — never here, so no panel can be widened by a handler.
 */
export function registerAnalyticsRoutes(app: FastifyInstance, deps: { store: Pick<Store, 'analytics'> }): void {
  const { store } = deps;
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.get(
    '/analytics',
    {
      schema: {
        operationId: 'getAnalytics',
        summary: 'Top links with trend, never-clicked links and busiest referrers across the caller’s links',
        tags: ['Analytics'],
        security: BEARER,
        querystring: Type.Object({
          period: Type.Optional(
            StringEnum(['week', 'month'], { description: '`week` (default: the last 7 days) or `month` (the last 30)' }),
          ),
          scope: Type.Optional(
            StringEnum(['mine', 'all'], {
              description:
                '`mine` (default): links the caller owns, co-owns or has been shared; `all`: every link, admins only (403 otherwise)',
            }),
          ),
        }),
        response: { 200: ref(AnalyticsSchema, { description: 'The dashboard panels' }), ...errorResponses(400, 401, 403, 500) },
      },
    },
    async (req) => {
      const period = parsePeriod(req.query.period);
      if (period === null) throw new AppError('BAD_REQUEST', 'period must be week or month', 'period');
      const scope = parseDashboardScope(req.query.scope);
      if (scope === null) throw new AppError('BAD_REQUEST', 'scope must be mine or all', 'scope');
      const viewer = viewerOf(requestUser(req))!;
      // Governing: docs/analytics.md#who-sees-what — scope=all is refused (FORBIDDEN) to non-admins by the
      // domain rule; the store resolves the personal scope from link_owners + link_shares.
      const d = await store.analytics.dashboard({ period, scope: dashboardScopeFor(viewer, scope) });
      return {
        period: d.period,
        scope: d.scope,
        top_links: d.topLinks.map((l) => ({
          link_id: l.linkId,
          slug: l.slug,
          count: l.count,
          previous_count: l.previousCount,
          trend_pct: l.trendPct,
        })),
        never_clicked: d.neverClicked.map((l) => ({ link_id: l.linkId, slug: l.slug, created_at: iso(l.createdAt) })),
        top_referrers: d.topReferrers.map((r) => ({ host: r.host, count: r.count })),
      };
    },
  );
}
