import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_STATUS, isAppError, type ErrorCode } from '../../domain/errors.js';
import { isBusy, isUnavailable } from '../../store/dbErrors.js';
import { ref } from './schemas/ref.js';

/**
 * The one error body of the REST API (docs/api.md#errors):
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

/** The exact body every rejected credential gets (docs/auth.md#bearer-authentication): nothing about why. */
export function sendUnauthorized(reply: FastifyReply): FastifyReply {
  return sendApiError(reply, 'UNAUTHORIZED', 'unauthorized');
}

/**
 * Every failure in the error body: domain errors keep their code, framework
 * errors (oversized or unreadable bodies) become PAYLOAD_TOO_LARGE or
 * BAD_REQUEST, an unreachable database UNAVAILABLE, anything else
 * INTERNAL_ERROR.
 */
export function answerApiError(
  error: Error & { statusCode?: number; code?: string },
  req: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  if (isAppError(error)) return sendApiError(reply, error.code, error.message);
  if (error.statusCode === 413 || error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return sendApiError(reply, 'PAYLOAD_TOO_LARGE', 'request body too large (limit 1 MiB)');
  }
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return sendApiError(reply, 'BAD_REQUEST', error.message || 'invalid request');
  }
  if (isUnavailable(error) || isBusy(error)) {
    req.log.warn({ err: error }, 'database unavailable');
    return sendApiError(reply, 'UNAVAILABLE', 'database unavailable, please retry later');
  }
  req.log.error({ err: error }, 'unhandled error');
  return sendApiError(reply, 'INTERNAL_ERROR', 'internal error');
}

/** The API's 404 body for a path no route of the context answers. */
export async function apiNotFound(_req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  return sendApiError(reply, 'NOT_FOUND', 'not found');
}

/**
 * Makes a context answer in the error body: its error handler, and — for a
 * context with a prefix of its own — its not-found handler, which Fastify
 * applies to every unknown path under that prefix.
 */
export function useApiErrors(instance: FastifyInstance, opts: { notFound: boolean }): void {
  instance.setErrorHandler(answerApiError);
  if (opts.notFound) instance.setNotFoundHandler(apiNotFound);
}

/** What each error status means on this API, for the OpenAPI document. */
const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid input (BAD_REQUEST)',
  401: 'Missing, invalid, expired or revoked token (UNAUTHORIZED)',
  403: 'The caller lacks the capability or role (FORBIDDEN)',
  404: 'Not found, or not visible to the caller (NOT_FOUND)',
  409: 'Conflict',
  412: 'The link is no longer at the version If-Match names (PRECONDITION_FAILED); nothing changed',
  413: 'Request body over 1 MiB (PAYLOAD_TOO_LARGE)',
  422: 'The Idempotency-Key was used with another request (IDEMPOTENCY_KEY_REUSED); nothing done',
  429: 'Rate limit exceeded (RATE_LIMITED); Retry-After says when to try again',
  500: 'Unexpected failure (INTERNAL_ERROR, TAG_WRITE_FAILED)',
  502: 'The LLM provider failed (LLM_ERROR)',
  503: 'Database busy or unreachable (DB_BUSY, UNAVAILABLE)',
};

/** A status with the codes this route answers it with, when they are more than its description's default. */
export type StatusCodes = [number, ...ErrorCode[]];

/** The codes of a 400 for a link's fields (docs/links.md#field-validation). */
export const LINK_FIELD_CODES: ErrorCode[] = [
  'BAD_REQUEST',
  'INVALID_URL',
  'INVALID_FIELD_LENGTH',
  'INVALID_VISIBILITY',
  'INVALID_TAG_NAME',
  'TOO_MANY_TAGS',
  'INVALID_ALIAS',
  'TOO_MANY_ALIASES',
  'INVALID_EXPIRES_AT',
];

const STATUS_NAMES: Record<number, string> = { 400: 'Invalid input', 409: 'Conflict' };

/**
 * Error responses for a route's schema: each status documented with the error body, and where
 * a route names them (`[409, 'SLUG_CONFLICT', 'ALIAS_CONFLICT']`) the codes it really answers
 * that status with. Every route may also answer 429 and 503 (docs/api.md#conventions), so those
 * are always included.
 */
export function errorResponses(...statuses: Array<number | StatusCodes>): Record<number, ReturnType<typeof ref<typeof ApiErrorSchema>>> {
  const named = new Map<number, ErrorCode[]>();
  for (const s of statuses) if (Array.isArray(s)) named.set(s[0], s.slice(1) as ErrorCode[]);
  const numbers = statuses.map((s) => (Array.isArray(s) ? s[0] : s));
  const out: Record<number, ReturnType<typeof ref<typeof ApiErrorSchema>>> = {};
  for (const status of [...new Set([...numbers, 429, 503])].sort((a, b) => a - b)) {
    const codes = named.get(status);
    const description = codes ? `${STATUS_NAMES[status] ?? 'Error'} (${codes.join(', ')})` : (ERROR_DESCRIPTIONS[status] ?? 'Error');
    // The rate-limit headers, Retry-After of a 429 included, are added to every response of the document (openapiHeaders.ts).
    out[status] = ref(ApiErrorSchema, { description });
  }
  return out;
}
