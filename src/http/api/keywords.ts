import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { KeywordService } from '../../links/index.js';
import { errorResponses } from './errors.js';
import { PUBLIC } from './guards.js';

/**
 * `GET /api/v1/keywords` (docs/api.md#config-keywords-users-and-tokens): the keyword names, ordered by name.
 * Public on purpose (docs/api.md#conventions): the browser extension asks before
 * any token is configured, and the names are no secret (each keyword host
 * answers anyone who types it). It never reads credentials, so a stale or
 * foreign `Authorization` header changes nothing. Its request budget is per
 * client address (http/shared/rateLimit.ts); a store failure becomes the API's
 * `500 INTERNAL_ERROR` body in the error handler.
 */
export function registerKeywordRoutes(app: FastifyInstance, deps: { keywords: KeywordService }): void {
  app.get(
    '/keywords',
    {
      schema: {
        operationId: 'listKeywords',
        security: PUBLIC,
        summary: 'Keyword host names, ordered by name (public)',
        tags: ['Keywords'],
        response: {
          200: Type.Array(Type.String(), { description: 'Bare array of keyword names ordered by name; `[]` when none' }),
          ...errorResponses(500),
        },
      },
    },
    async () => (await deps.keywords.list()).map((k) => k.keyword),
  );
}
