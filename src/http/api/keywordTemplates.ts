import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { KeywordService } from '../../links/index.js';
import { errorResponses } from './errors.js';
import { BEARER } from './guards.js';
import { ref } from './schemas/ref.js';
import { KeywordTemplateSchema } from './schemas/keywords.js';

/** `GET /api/v1/keywords/templates` (docs/api.md#config-keywords-users-and-tokens): every root-forward keyword with its template. */
export function registerKeywordTemplateRoutes(app: FastifyInstance, deps: { keywords: KeywordService }): void {
  app.get(
    '/keywords/templates',
    {
      schema: {
        operationId: 'listKeywordTemplates',
        summary: 'Keyword URL templates, ordered by keyword',
        tags: ['Keywords'],
        security: BEARER,
        response: {
          200: Type.Array(ref(KeywordTemplateSchema), { description: 'Bare array ordered by keyword; templates contain `{slug}`' }),
          ...errorResponses(401, 500),
        },
      },
    },
    async () => (await deps.keywords.list()).map((k) => ({ keyword: k.keyword, url_template: k.urlTemplate })),
  );
}
