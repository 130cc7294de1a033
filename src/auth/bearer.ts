import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { Store } from '../store/index.js';
import type { User } from '../store/types.js';
import { setCurrentSession } from './currentUser.js';

/**
 * Personal-access-token authentication for `/api/v1` and `/mcp`
 * (docs/auth.md#bearer-authentication). Only `Authorization: Bearer <token>` counts: a session cookie is
 * never consulted and no cookie is ever set, so a browser's ambient
 * credentials cannot reach the API. This module decides who is calling; the
 * API and MCP contexts run it as a hook and answer a null with their one 401
 * body (http/api/guards.ts), so every rejection looks the same.
 */

export interface BearerDeps {
  store: Pick<Store, 'tokens'>;
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

/**
 * The user the request's token belongs to, or null (no token, malformed,
 * unknown, expired or revoked). On success the request's user is set, so
 * handlers use `requestUser(req)` as behind a web guard.
 */
export async function authenticateBearer(deps: BearerDeps, req: FastifyRequest): Promise<User | null> {
  const { store } = deps;
  const token = bearerToken(req);
  // Malformed or oversized values fail the shape check inside `authenticate` without a query.
  const found = token === null ? null : await store.tokens.authenticate(token);
  if (!found) return null;
  setCurrentSession(req, { token: null, user: found.user, orphaned: false });
  // Fire and forget: the response never waits for bookkeeping, and its failure never fails the call.
  store.tokens.touch(found.tokenId).catch((err: unknown) => {
    (deps.log ?? req.log).warn({ err, tokenId: found.tokenId }, 'could not record token use');
  });
  return found.user;
}
