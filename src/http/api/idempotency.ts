import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { requestUser } from '../../auth/currentUser.js';
import { AppError } from '../../domain/errors.js';
import type { Store } from '../../store/index.js';

/**
 * Safe retries of a create (docs/api.md#safe-retries): a request with an `Idempotency-Key`
 * claims that key for its user before the handler runs. A retry with the same key and the same
 * request gets the first answer again (`Idempotent-Replayed: true`) and nothing is done twice;
 * the same key with another request is 422, and while the first is still being answered 409.
 * Answers of 5xx and 429 are not kept, so a retry after them runs again. Keys live in the
 * database, 24 hours, so every replica sees them.
 */

const KEY = /^[\x21-\x7e]{1,255}$/;

export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      maxLength: 255,
      description:
        'any unique string (a UUID): a retry with the same key and body within 24 hours gets the first answer, nothing done twice',
    }),
  ),
});

/** Keys without spaces in any order of an object's members: the same JSON body digests the same however it was written. */
function stable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stable);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, stable((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

function requestHash(req: FastifyRequest): string {
  return createHash('sha256')
    .update(JSON.stringify(stable([req.method, req.routeOptions.url, req.params, req.query, req.body ?? null])))
    .digest('hex');
}

/** The route hooks that make a create retry-safe; spread them into the route's options. */
export function idempotent(deps: { store: Pick<Store, 'idempotency'> }) {
  const { idempotency } = deps.store;
  const claimed = new WeakMap<FastifyRequest, { userId: string; key: string }>();
  return {
    async preHandler(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
      const key = req.headers['idempotency-key'];
      if (key === undefined) return undefined;
      if (typeof key !== 'string' || !KEY.test(key)) {
        throw new AppError('BAD_REQUEST', 'Idempotency-Key must be 1 to 255 visible ASCII characters', 'Idempotency-Key');
      }
      const userId = requestUser(req).id;
      const claim = await idempotency.claim(userId, key, requestHash(req));
      if (claim.kind === 'mismatch') {
        throw new AppError('IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was already used with another request', 'Idempotency-Key');
      }
      if (claim.kind === 'pending') {
        throw new AppError('IDEMPOTENCY_KEY_IN_USE', 'a request with this Idempotency-Key is still being answered; retry shortly');
      }
      if (claim.kind === 'replay') {
        const { answer } = claim;
        reply.code(answer.status).type(answer.contentType).header('idempotent-replayed', 'true');
        if (answer.location !== null) reply.header('location', answer.location);
        return reply.send(answer.body);
      }
      claimed.set(req, { userId, key });
      return undefined;
    },

    async onSend(req: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
      const mine = claimed.get(req);
      if (!mine) return payload;
      claimed.delete(req);
      const status = reply.statusCode;
      if (status >= 500 || status === 429 || typeof payload !== 'string') {
        await idempotency.release(mine.userId, mine.key);
        return payload;
      }
      const location = reply.getHeader('location');
      await idempotency.complete(mine.userId, mine.key, {
        status,
        contentType: String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'),
        location: typeof location === 'string' ? location : null,
        body: payload,
      });
      return payload;
    },
  };
}
