import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import { ref } from './schemas/ref.js';
import { errorResponses } from './errors.js';
import { PUBLIC } from './guards.js';
import { shortKeyword } from '../shared/requestAddress.js';
import { ConfigSchema } from './schemas/config.js';

/**
 * `GET /api/v1/config` (docs/api.md#config-keywords-users-and-tokens): public, never reads credentials. The
 * short keyword is computed exactly as the web UI advertises it.
 */
export function registerConfigRoutes(app: FastifyInstance, deps: { config: Config }): void {
  app.get(
    '/config',
    {
      schema: {
        operationId: 'getConfig',
        security: PUBLIC,
        summary: 'Public server settings for clients (the short keyword)',
        tags: ['Config'],
        response: { 200: ref(ConfigSchema, { description: 'The settings' }), ...errorResponses() },
      },
    },
    async (req) => ({ short_keyword: shortKeyword(deps.config, req) }),
  );
}
