import { Type, type Static } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { ERROR_STATUS, type ErrorCode } from '../../domain/errors.js';

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
  { additionalProperties: false },
);

export type ApiErrorBody = Static<typeof ApiErrorSchema>;

export function sendApiError(reply: FastifyReply, code: ErrorCode, message: string): FastifyReply {
  return reply.code(ERROR_STATUS[code]).type('application/json').send({ error: message, code } satisfies ApiErrorBody);
}

/** The exact body every rejected credential gets (api.md §3.3 rule 4): nothing about why. */
export function sendUnauthorized(reply: FastifyReply): FastifyReply {
  return sendApiError(reply, 'UNAUTHORIZED', 'unauthorized');
}
