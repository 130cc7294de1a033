import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
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
 *
 * Some first answers carry a secret shown once (a token, a webhook's signing secret), and the
 * database keeps no secret a copy of it could use (docs/auth.md#sessions). So the
 * table holds the key's digest, never the key, and each kept answer sealed (AES-256-GCM) with a
 * key derived from the Idempotency-Key itself: only a client that sends the key again can read
 * it back.
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

/** What makes two requests the same one: `what` they carry, after the method and the route. */
function requestDigest(req: FastifyRequest, ...what: unknown[]): string {
  return createHash('sha256')
    .update(JSON.stringify(stable([req.method, req.routeOptions.url, ...what])))
    .digest('hex');
}

const requestHash = (req: FastifyRequest) => requestDigest(req, req.params, req.query, req.body ?? null);

/** What the table is keyed by: the digest of the key, so the key itself stays with the client. */
const keyDigest = (key: string) => createHash('sha256').update(key).digest('hex');

const SEAL_INFO = 'joe-links idempotent answer';

function sealingKey(key: string, userId: string): Buffer {
  return Buffer.from(hkdfSync('sha256', key, userId, SEAL_INFO, 32));
}

/** `iv.tag.ciphertext`, each base64: the answer readable only with the Idempotency-Key. */
function seal(body: string, key: string, userId: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(key, userId), iv);
  const sealed = Buffer.concat([cipher.update(body, 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), sealed].map((b) => b.toString('base64')).join('.');
}

/** The kept answer, or null when it cannot be opened (kept before answers were sealed). */
function open(kept: string, key: string, userId: string): string | null {
  const parts = kept.split('.');
  if (parts.length !== 3) return null;
  const [iv, tag, sealed] = parts.map((p) => Buffer.from(p, 'base64')) as [Buffer, Buffer, Buffer];
  try {
    const decipher = createDecipheriv('aes-256-gcm', sealingKey(key, userId), iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(sealed), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}

/** A key this request holds: keep the answer it got, or free the key for a retry. */
export interface ClaimedKey {
  keep(answer: { status: number; contentType: string; location: string | null; body: string }): Promise<void>;
  release(): Promise<void>;
}

/** The request's `Idempotency-Key`, checked; undefined when it sent none. */
export function idempotencyKey(req: FastifyRequest): string | undefined {
  const key = req.headers['idempotency-key'];
  if (key === undefined) return undefined;
  if (typeof key !== 'string' || !KEY.test(key)) {
    throw new AppError('BAD_REQUEST', 'Idempotency-Key must be 1 to 255 visible ASCII characters', 'Idempotency-Key');
  }
  return key;
}

/**
 * Claims `key` for the request whose digest is `requestDigest`: the claim to answer it, or the
 * first answer sent again (null: answered), or a refusal (thrown).
 */
export async function claimKey(
  store: Pick<Store, 'idempotency'>,
  reply: FastifyReply,
  userId: string,
  key: string,
  requestDigest: string,
): Promise<ClaimedKey | null> {
  const { idempotency } = store;
  const digest = keyDigest(key);
  const claim = await idempotency.claim(userId, digest, requestDigest);
  if (claim.kind === 'mismatch') {
    throw new AppError('IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was already used with another request', 'Idempotency-Key');
  }
  if (claim.kind === 'pending') {
    throw new AppError('IDEMPOTENCY_KEY_IN_USE', 'a request with this Idempotency-Key is still being answered; retry shortly');
  }
  if (claim.kind === 'replay') {
    const { answer } = claim;
    const body = open(answer.body, key, userId);
    if (body === null) throw new AppError('IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was already used', 'Idempotency-Key');
    reply.code(answer.status).type(answer.contentType).header('idempotent-replayed', 'true');
    if (answer.location !== null) reply.header('location', answer.location);
    await reply.send(body);
    return null;
  }
  return {
    keep: (answer) => idempotency.complete(userId, digest, { ...answer, body: seal(answer.body, key, userId) }),
    release: () => idempotency.release(userId, digest),
  };
}

/** Whether an answer is kept for retries: not a 5xx or 429, which a retry may get past. */
export const keepsAnswer = (status: number) => status < 500 && status !== 429;

/** The route hooks that make a create retry-safe; spread them into the route's options. */
export function idempotent(deps: { store: Pick<Store, 'idempotency'> }) {
  const claimed = new WeakMap<FastifyRequest, ClaimedKey>();
  return {
    async preHandler(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
      const key = idempotencyKey(req);
      if (key === undefined) return undefined;
      const claim = await claimKey(deps.store, reply, requestUser(req).id, key, requestHash(req));
      if (claim === null) return reply;
      claimed.set(req, claim);
      return undefined;
    },

    async onSend(req: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
      const claim = claimed.get(req);
      if (!claim) return payload;
      claimed.delete(req);
      const status = reply.statusCode;
      if (!keepsAnswer(status) || typeof payload !== 'string') {
        await claim.release();
        return payload;
      }
      const location = reply.getHeader('location');
      await claim.keep({
        status,
        contentType: String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'),
        location: typeof location === 'string' ? location : null,
        body: payload,
      });
      return payload;
    },
  };
}

/** An upload's request digest: the route, its query and the file's content. */
export function uploadRequestHash(req: FastifyRequest, fileDigest: string): string {
  return requestDigest(req, req.query, fileDigest);
}
