import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import { AppError } from '../../domain/errors.js';
import type { LinkSuggestions } from '../../llm/index.js';
import type { Store } from '../../store/index.js';
import { ApiErrorSchema, errorResponses } from './errors.js';
import { BEARER } from './guards.js';
import { ref } from './schemas/ref.js';
import { addNamedSchema } from './validation.js';

/**
 * `POST /api/v1/links/suggest` (docs/agents.md#llm-suggestions): LLM-suggested metadata for a
 * destination, advisory and never stored. Checks run in the documented order:
 * token (401) → JSON shape (400) → non-empty `url` (400) → a provider is configured (503)
 * → the provider (502 on any failure): a client learns its request is wrong before it learns
 * that no model would answer it.
 */

export const SuggestRequestSchema = Type.Object(
  {
    url: Type.String({ description: 'the destination to describe' }),
    title: Type.Optional(Type.String({ description: 'the page title when known; when empty the server reads it from the page' })),
    description: Type.Optional(
      Type.String({ description: 'the page description when known; when empty the server reads it from the page' }),
    ),
  },
  { $id: 'SuggestRequest', description: 'Unknown fields are ignored.' },
);

export const SuggestResponseSchema = Type.Object(
  {
    slug: Type.String({ description: 'a valid, unreserved slug, or empty when the model proposed none that passes the slug rules' }),
    title: Type.String({ description: 'empty when the model’s title was over 200 characters' }),
    description: Type.String({ description: 'empty when the model’s description was over 2000 characters' }),
    tags: Type.Array(Type.String(), { description: 'tag names that pass the tag rules; always present' }),
  },
  { $id: 'SuggestResponseBody', additionalProperties: false, description: 'Advisory metadata; nothing is saved.' },
);

export function registerLinkSuggestRoute(
  app: FastifyInstance,
  deps: { config: Config; store: Pick<Store, 'now' | 'shares'>; suggestions: LinkSuggestions | null },
): void {
  addNamedSchema(app, SuggestRequestSchema);
  addNamedSchema(app, SuggestResponseSchema);
  const { suggestions } = deps;
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.post(
    '/links/suggest',
    {
      schema: {
        operationId: 'suggestLinkMetadata',
        summary: 'LLM metadata: suggest a slug, title, description and tags for a URL',
        tags: ['Links'],
        security: BEARER,
        body: ref(SuggestRequestSchema),
        response: {
          200: ref(SuggestResponseSchema, { description: 'Suggested metadata' }),
          ...errorResponses(400, 401, 413, 502),
          503: ref(ApiErrorSchema, {
            description: 'No LLM provider is configured (LLM_NOT_CONFIGURED), or the database is busy or unreachable',
          }),
        },
      },
    },
    async (req) => {
      if (req.body.url.trim() === '') throw new AppError('BAD_REQUEST', 'url is required', 'url');
      if (!suggestions) throw new AppError('LLM_NOT_CONFIGURED', 'LLM suggestions are not configured');
      return suggestions.suggest(req.body, req.log);
    },
  );
}
