import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../../metrics.js';
import type { ClickEvent } from '../../workers/clickWriter.js';
import type { Resolver } from '../../resolve/resolver.js';
import type { ApiBudgets } from '../shared/rateLimit.js';
import { nameSurface } from '../shared/actor.js';
import { registerResolver } from '../resolve.js';
import { registerOpenSearchRoutes } from './opensearch.js';
import { registerStateLinkPages } from '../stateLinks.js';
import { registerAdminRoutes } from './admin.js';
import { registerAdminLinkRoutes } from './adminLinks.js';
import { registerAnalyticsRoutes } from './analytics.js';
import { registerAuth } from './auth.js';
import { registerBrowseRoutes } from './browse.js';
import { crossSiteGuard } from './crossSite.js';
import { registerDashboardRoutes } from './dashboard.js';
import { webErrorHandler, webNotFound } from './errors.js';
import { registerLandingRoute } from './landing.js';
import { registerImportRoutes } from './importLinks.js';
import { registerGroupRoutes } from './groups.js';
import { registerHealthRecheckRoute } from './healthRecheck.js';
import { registerHistoryRoutes } from './history.js';
import { registerLinkDetailRoutes } from './linkDetail.js';
import { registerLinkLifecycleRoutes } from './linkLifecycle.js';
import { registerLinkMemberRoutes } from './linkMembers.js';
import { registerLinkRoutes } from './links.js';
import { registerNotificationRoutes } from './notifications.js';
import { registerPaletteRoute } from './palette.js';
import { registerWebhookRoutes } from './webhooks.js';
import { installNulGuard } from './nulGuard.js';
import { forwardAuthHook, vanishedUserHook } from './session.js';
import { registerStatsRoutes } from './stats.js';
import type { WebDeps } from './support.js';
import { registerTagRoutes } from './tags.js';
import { registerThemeRoute } from './theme.js';
import { registerTokenRoutes } from './tokens.js';

export interface WebSurfaceDeps extends WebDeps {
  resolver: Resolver;
  /** The per-user click-export budget, shared with the REST API (http/shared/rateLimit.ts). */
  budgets: Pick<ApiBudgets, 'clickExports'>;
  metrics: Metrics;
  recordClick(event: ClickEvent): void;
  /** Routes added to `pages` after the app's own (tests). */
  extend?: (pages: FastifyInstance) => void;
}

/**
 * Everything a browser is served, as one context registered without a
 * prefix (app.tsx), last. The rules come from where a route is registered:
 *
 * - this context: the cross-site check (http/web/crossSite.tsx), then
 *   forward-auth sign-in (http/web/session.ts), as onRequest hooks; HTML error
 *   pages; and the not-found page, which Fastify also uses for every path
 *   outside the prefixed contexts (`/api`, `/mcp`);
 * - `signIn`: the /auth/* routes, which replace the session themselves;
 * - `site`: every other page, which also drops a session whose user vanished;
 *   inside it `pages` (the dashboard, links, tags, browse, tokens and admin
 *   areas) refuses NUL characters, and the slug resolver's `GET /*` comes last.
 */
export async function registerWeb(web: FastifyInstance, deps: WebSurfaceDeps): Promise<void> {
  nameSurface(web, 'web');
  web.setErrorHandler(webErrorHandler(deps));
  web.setNotFoundHandler(webNotFound(deps));
  web.addHook('onRequest', crossSiteGuard(deps.config));
  web.addHook('onRequest', forwardAuthHook(deps));

  await web.register(async (signIn) => {
    registerAuth(signIn, deps);
  });

  await web.register(async (site) => {
    site.addHook('onRequest', vanishedUserHook(deps));
    registerThemeRoute(site);
    registerLandingRoute(site, deps);
    await site.register(async (pages) => {
      // First, so it reaches every page registered after it.
      installNulGuard(pages, deps);
      registerDashboardRoutes(pages, deps);
      registerImportRoutes(pages, deps);
      registerLinkRoutes(pages, deps);
      registerLinkDetailRoutes(pages, deps);
      registerLinkLifecycleRoutes(pages, deps);
      registerLinkMemberRoutes(pages, deps);
      registerHealthRecheckRoute(pages, deps);
      registerHistoryRoutes(pages, deps);
      registerStatsRoutes(pages, deps);
      registerAnalyticsRoutes(pages, deps);
      registerTagRoutes(pages, deps);
      registerBrowseRoutes(pages, deps);
      registerTokenRoutes(pages, deps);
      registerGroupRoutes(pages, deps);
      registerNotificationRoutes(pages, deps);
      registerAdminRoutes(pages, deps);
      registerAdminLinkRoutes(pages, deps);
      registerWebhookRoutes(pages, deps);
      registerPaletteRoute(pages, deps);
      deps.extend?.(pages);
    });
    registerStateLinkPages(site, deps);
    registerOpenSearchRoutes(site, deps);
    registerResolver(site, deps);
  });
}
