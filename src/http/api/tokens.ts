import { Type, type Static } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { requestUser } from '../../auth/currentUser.js';
import { parseRfc3339 } from '../../domain/timeseries.js';
import type { Store } from '../../store/index.js';
import type { ApiToken } from '../../store/tokens.js';
import { errorResponses, sendApiError } from './errors.js';
import { BEARER } from './guards.js';
import { ref } from './schemas/ref.js';
import { CreateTokenSchema, TokenCreatedSchema, TokenListSchema, type TokenSchema } from './schemas/tokens.js';
import { iso } from '../../links/index.js';
import { idempotent, IdempotencyHeaders } from './idempotency.js';

/**
 * The caller's own personal access tokens (docs/api.md#config-keywords-users-and-tokens). A token never
 * reveals another user's tokens, not even whether one exists: someone
 * else's id answers exactly like an unknown one.
 */

function toTokenBody(t: ApiToken): Static<typeof TokenSchema> {
  return {
    id: t.id,
    name: t.name,
    created_at: iso(t.createdAt),
    // Omitted, not null, when unset (docs/api.md#the-link-resource).
    ...(t.lastUsedAt !== null ? { last_used_at: iso(t.lastUsedAt) } : {}),
    ...(t.expiresAt !== null ? { expires_at: iso(t.expiresAt) } : {}),
  };
}

const TokenIdParams = Type.Object({ id: Type.String({ description: 'token id' }) });

export function registerTokenRoutes(app: FastifyInstance, deps: { store: Pick<Store, 'tokens' | 'idempotency'> }): void {
  const { store } = deps;
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.get(
    '/tokens',
    {
      schema: {
        operationId: 'listTokens',
        summary: "List the caller's tokens, newest first (revoked ones included)",
        tags: ['Tokens'],
        security: BEARER,
        response: {
          200: ref(TokenListSchema, { description: 'Every token of the caller; never the token itself or its hash' }),
          ...errorResponses(401, 500),
        },
      },
    },
    async (req) => ({ tokens: (await store.tokens.listForUser(requestUser(req).id)).map(toTokenBody) }),
  );

  api.post(
    '/tokens',
    {
      ...idempotent(deps),
      schema: {
        operationId: 'createToken',
        summary: 'Create a token; the response is the only time it is shown (or a retry with its Idempotency-Key)',
        tags: ['Tokens'],
        security: BEARER,
        headers: IdempotencyHeaders,
        body: ref(CreateTokenSchema),
        response: {
          201: ref(TokenCreatedSchema, { description: 'The new token, with its plaintext' }),
          ...errorResponses(400, 401, [409, 'IDEMPOTENCY_KEY_IN_USE'], 413, 422, 500),
        },
      },
    },
    async (req, reply) => {
      const body = req.body;
      const expiresAt = body.expires_at === undefined || body.expires_at === null ? null : parseRfc3339(body.expires_at);
      const { token, plaintext } = await store.tokens.create(requestUser(req).id, body.name, expiresAt);
      const { last_used_at: _never, ...created } = toTokenBody(token);
      return reply.code(201).send({ ...created, token: plaintext });
    },
  );

  api.delete(
    '/tokens/:id',
    {
      schema: {
        operationId: 'revokeToken',
        summary: 'Revoke one of the caller’s tokens',
        tags: ['Tokens'],
        security: BEARER,
        params: TokenIdParams,
        response: { 204: Type.Null({ description: 'Revoked' }), ...errorResponses(401, 404, 500) },
      },
    },
    async (req, reply) => {
      const { id } = req.params;
      if (!(await store.tokens.revoke(requestUser(req).id, id))) return sendApiError(reply, 'NOT_FOUND', 'token not found');
      return reply.code(204).send(null);
    },
  );
}
