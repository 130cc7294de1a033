import type { FastifyInstance } from 'fastify';
import { registerAdminRoutes } from './admin.js';
import { registerAdminLinkRoutes } from './adminLinks.js';
import { registerAnalyticsRoutes } from './analytics.js';
import { registerBrowseRoutes } from './browse.js';
import { registerDashboardRoutes } from './dashboard.js';
import { registerLinkRoutes } from './links.js';
import { installNulGuard } from './nulGuard.js';
import { registerStatsRoutes } from './stats.js';
import type { WebDeps } from './support.js';
import { registerTagRoutes } from './tags.js';
import { registerTokenRoutes } from './tokens.js';

/** Every HTML page and HTMX fragment of web-ui.md, registered before the resolver. */
export function registerWebRoutes(app: FastifyInstance, deps: WebDeps): void {
  // First, so it reaches every web route registered after it.
  installNulGuard(app, deps);
  registerDashboardRoutes(app, deps);
  registerLinkRoutes(app, deps);
  registerStatsRoutes(app, deps);
  registerAnalyticsRoutes(app, deps);
  registerTagRoutes(app, deps);
  registerBrowseRoutes(app, deps);
  registerTokenRoutes(app, deps);
  registerAdminRoutes(app, deps);
  registerAdminLinkRoutes(app, deps);
}
