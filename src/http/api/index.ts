import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import type { LinkService } from '../../links/index.js';
import type { LinkSuggestions } from '../../llm/index.js';
import type { Store } from '../../store/index.js';
import { registerAdminRoutes } from './admin.js';
import { registerAnalyticsRoutes } from './analytics.js';
import { registerConfigRoutes } from './config.js';
import { sendApiError } from './errors.js';
import { registerLinkExportRoute } from './export.js';
import { registerKeywordRoutes } from './keywords.js';
import { registerKeywordTemplateRoutes } from './keywordTemplates.js';
import { registerLinkMemberRoutes } from './linkMembers.js';
import { registerLinkRoutes } from './links.js';
import { registerApiRateLimit } from './rateLimit.js';
import { NAMED_SCHEMAS } from './schemas.js';
import { registerStatsRoutes } from './stats.js';
import { registerLinkSuggestRoute } from './suggest.js';
import { registerTagRoutes } from './tags.js';
import { registerTokenRoutes } from './tokens.js';
import { registerUserRoutes } from './users.js';
import { addNamedSchema, apiErrorHandler, apiValidatorCompiler, jsonBodiesOnly } from './validation.js';

export interface ApiDeps {
  config: Config;
  store: Store;
  links: LinkService;
  suggestions: LinkSuggestions | null;
}

/**
 * The REST API under `/api/v1` (api.md §4): bearer tokens only, JSON only.
 * Its routes live in one encapsulated context with strict TypeBox validation,
 * JSON-only body parsing and the named schemas of the OpenAPI document. One
 * module per resource registers its routes into that context
 * (`register…Routes(api, deps)`), with TypeBox schemas on every route and
 * named schemas added through `addNamedSchema`.
 */
export async function registerApiRoutes(app: FastifyInstance, deps: ApiDeps): Promise<void> {
  await registerApiRateLimit(app, deps.config);

  await app.register(async (api) => {
    for (const schema of NAMED_SCHEMAS) addNamedSchema(api, schema);
    api.setValidatorCompiler(apiValidatorCompiler(api));
    jsonBodiesOnly(api);
    apiErrorHandler(api);

    registerConfigRoutes(api, deps);
    registerKeywordRoutes(api, deps);
    registerKeywordTemplateRoutes(api, deps);
    registerUserRoutes(api, deps);
    registerTokenRoutes(api, deps);
    registerLinkRoutes(api, deps);
    registerLinkSuggestRoute(api, deps);
    registerLinkMemberRoutes(api, deps);
    registerStatsRoutes(api, deps);
    registerAnalyticsRoutes(api, deps);
    registerTagRoutes(api, deps);
    registerAdminRoutes(api, deps);
    registerLinkExportRoute(api, deps);

    // Unknown API paths answer the API's 404 body (api.md §4.1 rule 6). Without
    // these, the slug resolver's catch-all would answer them with an HTML page.
    const notFound = async (_req: unknown, reply: Parameters<typeof sendApiError>[0]) => sendApiError(reply, 'NOT_FOUND', 'not found');
    for (const url of ['/api/v1', '/api/v1/*']) {
      api.route({ method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'], url, schema: { hide: true }, handler: notFound });
    }
  });
}
