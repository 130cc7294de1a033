import type { FastifyBaseLogger, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { sendUnauthorized } from '../http/api/errors.js';
import type { Store } from '../store/index.js';
import { setCurrentSession } from './currentUser.js';

/**
 * Personal-access-token authentication for `/api/v1` and `/mcp` (api.md §3.3,
 * §3.4). Only `Authorization: Bearer <token>` counts: a session cookie is
 * never consulted and no cookie is ever set, so a browser's ambient
 * credentials cannot reach the API. Every rejection looks the same.
 */

export interface BearerDeps {
  store: Store;
  log?: FastifyBaseLogger;
}

const PREFIX = 'Bearer ';

/** The presented token, or null when the header is absent or not exactly `Bearer <token>`. */
export function bearerToken(req: FastifyRequest): string | null {
  const h = req.headers.authorization;
  if (typeof h !== 'string' || !h.startsWith(PREFIX)) return null;
  const token = h.slice(PREFIX.length);
  return token === '' ? null : token;
}

export function requireBearer(deps: BearerDeps): preHandlerAsyncHookHandler {
  const { store } = deps;
  return async function requireBearerToken(req, reply) {
    const token = bearerToken(req);
    // Malformed or oversized values fail the shape check inside `authenticate` without a query.
    const found = token === null ? null : await store.tokens.authenticate(token);
    if (!found) return sendUnauthorized(reply);
    setCurrentSession(req, { token: null, user: found.user, orphaned: false });
    // Fire and forget: the response never waits for bookkeeping, and its failure never fails the call.
    store.tokens.touch(found.tokenId).catch((err: unknown) => {
      (deps.log ?? req.log).warn({ err, tokenId: found.tokenId }, 'could not record token use');
    });
  };
}
