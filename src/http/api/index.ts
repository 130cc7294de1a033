import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import type { KeywordService, LinkService, UserService } from '../../links/index.js';
import type { LinkSuggestions } from '../../llm/index.js';
import type { Store } from '../../store/index.js';
import { nameSurface } from '../shared/actor.js';
import { registerAdminRoutes } from './admin.js';
import { registerAnalyticsRoutes } from './analytics.js';
import { registerConfigRoutes } from './config.js';
import { registerLinkExportRoute } from './export.js';
import { registerImportRoute } from './import.js';
import { authenticate } from './guards.js';
import { registerHistoryRoutes } from './history.js';
import { registerKeywordRoutes } from './keywords.js';
import { registerKeywordTemplateRoutes } from './keywordTemplates.js';
import { registerGroupRoutes } from './groups.js';
import { registerLinkMemberRoutes } from './linkMembers.js';
import { registerLinkRoutes } from './links.js';
import { RouteMethods } from './methods.js';
import { registerNotificationRoutes } from './notifications.js';
import { registerWebhookRoutes } from './webhooks.js';
import { spend, type ApiBudgets } from '../shared/rateLimit.js';
import { registerStatsRoutes } from './stats.js';
import { registerLinkSuggestRoute } from './suggest.js';
import { registerTagRoutes } from './tags.js';
import { registerTokenRoutes } from './tokens.js';
import { registerUserRoutes } from './users.js';
import { addNamedSchema, apiErrorHandler, apiValidatorCompiler, jsonBodiesOnly } from './validation.js';
import { NAMED_SCHEMAS } from './schemas/index.js';

export interface ApiDeps {
  config: Config;
  store: Store;
  links: LinkService;
  users: UserService;
  keywords: KeywordService;
  suggestions: LinkSuggestions | null;
  budgets: ApiBudgets;
  /** Routes added to the authenticated context after the API's own (a test adds one to watch the rules reach it). */
  extend?: (api: FastifyInstance) => void;
}

/** Where the REST API is registered inside the `/api` context (app.tsx), and the base URL of its OpenAPI document. */
export const REST_PREFIX = '/v1';

/**
 * The REST API under `/api/v1`: bearer tokens only, JSON only. Registered
 * with `prefix: REST_PREFIX` inside the `/api` context, whose error handler
 * answers in the API's error body. The rules are those of the contexts a
 * route is registered in, never of its URL:
 *
 * - this context: strict TypeBox validation, JSON-only bodies, body errors
 *   in the error body, the named schemas of the OpenAPI document;
 * - `open`: the public routes, budgeted per client address, no credentials read;
 * - `authenticated`: every other route, budgeted per token, behind the bearer
 *   hook (401 before anything else). A route added here gets all of it;
 * - `unmatched`: unknown paths under /api/v1 spend the per-token budget and
 *   get the API's 404 body (never the slug resolver's page).
 *
 * One module per resource registers its routes (`register…Routes(api, deps)`,
 * paths relative to /api/v1), with TypeBox schemas on every route and named
 * schemas added through `addNamedSchema`.
 */
export async function registerRestApi(v1: FastifyInstance, deps: ApiDeps): Promise<void> {
  nameSurface(v1, 'api');
  for (const schema of NAMED_SCHEMAS) addNamedSchema(v1, schema);
  strictValidation(v1);
  jsonBodiesOnly(v1);
  apiErrorHandler(v1);
  const methods = new RouteMethods();
  methods.watch(v1);

  await v1.register(async (open) => {
    strictValidation(open);
    spend(open, deps.budgets.perClient);
    registerConfigRoutes(open, deps);
    registerKeywordRoutes(open, deps);
  });

  await v1.register(async (api) => {
    strictValidation(api);
    spend(api, deps.budgets.perToken);
    api.addHook('onRequest', authenticate(deps));
    registerKeywordTemplateRoutes(api, deps);
    registerUserRoutes(api);
    registerTokenRoutes(api, deps);
    registerLinkRoutes(api, deps);
    registerLinkSuggestRoute(api, deps);
    registerLinkMemberRoutes(api, deps);
    registerGroupRoutes(api, deps);
    registerHistoryRoutes(api, deps);
    registerStatsRoutes(api, deps);
    registerAnalyticsRoutes(api, deps);
    registerTagRoutes(api, deps);
    registerAdminRoutes(api, deps);
    registerLinkExportRoute(api, deps);
    registerNotificationRoutes(api, deps);
    registerWebhookRoutes(api, deps);
    registerImportRoute(api, deps);
    deps.extend?.(api);
  });

  // Unknown paths under /api/v1 spend the per-token budget and answer the API's
  // 404 body, or 405 with Allow for a known path asked with another method. GET needs routes of its own, or the slug resolver's `GET /*`
  // would answer; other methods reach the not-found handler, which this
  // context (without a prefix of its own) sets for /api/v1, running its hooks.
  await v1.register(async (unmatched) => {
    spend(unmatched, deps.budgets.perToken);
    for (const url of ['', '/*']) unmatched.get(url, { schema: { hide: true } }, methods.unmatched);
    unmatched.setNotFoundHandler(methods.unmatched);
  });
}

/**
 * TypeBox validation for a context. Each context that defines routes sets it
 * itself: a child context that adds schemas of its own (as the suggestion
 * route does) would otherwise get its validator rebuilt from Fastify's
 * server-wide default (Ajv, which coerces types).
 */
function strictValidation(instance: FastifyInstance): void {
  instance.setValidatorCompiler(apiValidatorCompiler(instance));
}
