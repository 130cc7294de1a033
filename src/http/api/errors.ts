import { Type, type Static } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { ERROR_STATUS, type ErrorCode } from '../../domain/errors.js';
import { ref } from './schemaRef.js';

/**
 * The one error body of the REST API (api.md §4.2):
 * `{"error": "<human message>", "code": "<UPPER_SNAKE code>"}`. Clients switch
 * on `code`; the codes are the closed set in domain/errors.ts.
 */
export const ApiErrorSchema = Type.Object(
  {
    error: Type.String({ description: 'human-readable message; may change' }),
    code: Type.String({ description: 'stable UPPER_SNAKE error code', enum: Object.keys(ERROR_STATUS) }),
  },
  { $id: 'ErrorResponse', additionalProperties: false },
);

export type ApiErrorBody = Static<typeof ApiErrorSchema>;

export function sendApiError(reply: FastifyReply, code: ErrorCode, message: string): FastifyReply {
  return reply
    .code(ERROR_STATUS[code])
    .type('application/json')
    .send({ error: message, code } satisfies ApiErrorBody);
}

/** The exact body every rejected credential gets (api.md §3.3 rule 4): nothing about why. */
export function sendUnauthorized(reply: FastifyReply): FastifyReply {
  return sendApiError(reply, 'UNAUTHORIZED', 'unauthorized');
}

/** What each error status means on this API, for the OpenAPI document. */
const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid input (BAD_REQUEST or one of the INVALID_* / TOO_MANY_TAGS / PRIMARY_OWNER_PROTECTED codes)',
  401: 'Missing, invalid, expired or revoked token (UNAUTHORIZED)',
  403: 'The caller lacks the capability or role (FORBIDDEN)',
  404: 'Not found, or not visible to the caller (NOT_FOUND)',
  409: 'Conflict (SLUG_CONFLICT, DUPLICATE_OWNER, DUPLICATE_SHARE)',
  413: 'Request body over 1 MiB (PAYLOAD_TOO_LARGE)',
  429: 'Rate limit exceeded (RATE_LIMITED); Retry-After says when to try again',
  500: 'Unexpected failure (INTERNAL_ERROR, TAG_WRITE_FAILED)',
  502: 'The LLM provider failed (LLM_ERROR)',
  503: 'Database busy or unreachable (DB_BUSY, UNAVAILABLE)',
};

/**
 * Error responses for a route's schema: each status documented with the
 * error body. Every route may also answer 429 and 503 (api.md §5), so those
 * are always included.
 */
export function errorResponses(...statuses: number[]): Record<number, ReturnType<typeof ref<typeof ApiErrorSchema>>> {
  const out: Record<number, ReturnType<typeof ref<typeof ApiErrorSchema>>> = {};
  for (const status of [...new Set([...statuses, 429, 503])].sort((a, b) => a - b)) {
    const description = ERROR_DESCRIPTIONS[status] ?? 'Error';
    out[status] =
      status === 429
        ? ref(ApiErrorSchema, {
            description,
            headers: { 'retry-after': Type.Integer({ description: 'seconds until the budget refills' }) },
          })
        : ref(ApiErrorSchema, { description });
  }
  return out;
}
