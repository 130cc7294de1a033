import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requestUser } from '../../auth/currentUser.js';
import { requireUser } from './guards.js';
import { isAppError } from '../../domain/errors.js';
import { parsePeriod } from '../../domain/timeseries.js';
import { dashboardScopeFor, parseDashboardScope } from '../../domain/statsScope.js';
import { viewerOf } from '../../store/types.js';
import { AnalyticsPage, AnalyticsPanels, type AnalyticsProps } from '../../views/pages/analytics.js';
import { isHtmx, pageContext, sendHtml } from './render.js';
import { badRequest } from './stats.js';
import { forbidden, query, type WebDeps } from './support.js';

/** A query value, with an empty one (`?period=`) read as absent. */
function opt(req: FastifyRequest, name: string): string | undefined {
  return query(req, name) || undefined;
}

/**
 * `GET /dashboard/analytics` (docs/analytics.md#dashboard):
 * any signed-in user, over their personal scope — resolved by the store from
 * link_owners and link_shares, never here. `scope=all` is the admin-only
 * instance-wide view; the domain rule refuses it to anyone else, which this
 * route shows as the styled 403. HTMX toggles get the panels only.
 */
export function registerAnalyticsRoutes(app: FastifyInstance, deps: WebDeps): void {
  const { store, config } = deps;

  app.get('/dashboard/analytics', { preHandler: requireUser(deps) }, async (req, reply) => {
    const user = requestUser(req);
    const viewer = viewerOf(user)!;
    const period = parsePeriod(opt(req, 'period'));
    if (period === null) return badRequest(deps, req, reply, 'period must be week or month');
    const scope = parseDashboardScope(opt(req, 'scope'));
    if (scope === null) return badRequest(deps, req, reply, 'scope must be mine or all');
    let dashboard;
    try {
      // Governing: docs/analytics.md#who-sees-what — personal scope for everyone; scope=all admin-only (domain/statsScope.ts).
      dashboard = await store.analytics.dashboard({ period, scope: dashboardScopeFor(viewer, scope) });
    } catch (e) {
      if (isAppError(e) && e.code === 'FORBIDDEN') return forbidden(deps, req, reply);
      throw e;
    }
    const props: AnalyticsProps = { dashboard, isAdmin: viewer.isAdmin, retentionActive: config.clickRetentionDays !== null };
    const ctx = await pageContext(deps, req, user);
    if (isHtmx(req)) return sendHtml(req, reply, ctx, 'Analytics', <AnalyticsPanels {...props} />);
    return sendHtml(req, reply, ctx, 'Analytics', <AnalyticsPage {...props} />);
  });
}
