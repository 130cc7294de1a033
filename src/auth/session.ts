import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { Store } from '../store/index.js';
import type { User } from '../store/types.js';
import { authCookieAttributes, clearAuthCookie, SESSION_COOKIE, sessionToken } from './cookies.js';
import { setCurrentSession } from './currentUser.js';
import { randomToken } from '../domain/secrets.js';

/**
 * Starting and ending browser sessions (docs/auth.md#sessions). Every sign-in path —
 * OIDC callback, local sign-in link, forward-auth — ends in `startSession`,
 * so session fixation is prevented in one place: the token the browser
 * arrived with is deleted and a fresh 256-bit one is issued.
 */

export interface SessionDeps {
  config: Pick<Config, 'insecureCookies' | 'sessionLifetimeMs'>;
  store: Pick<Store, 'now' | 'sessions'>;
}

export async function startSession(deps: SessionDeps, req: FastifyRequest, reply: FastifyReply, user: User): Promise<string> {
  const { store, config } = deps;
  const previous = sessionToken(req.headers.cookie);
  if (previous !== null) await store.sessions.delete(previous);
  const token = randomToken();
  const now = store.now();
  await store.sessions.create(token, { userId: user.id, role: user.role, createdAt: now }, now + config.sessionLifetimeMs);
  // Persistent for the session's absolute lifetime, so closing the browser does not end it early.
  reply.setCookie(SESSION_COOKIE, token, { ...authCookieAttributes(config), maxAge: Math.floor(config.sessionLifetimeMs / 1000) });
  setCurrentSession(req, { token, user, orphaned: false });
  return token;
}

/** Deletes the session row the request carries (if any) and clears the cookie. */
export async function endSession(deps: SessionDeps, req: FastifyRequest, reply: FastifyReply): Promise<void> {
  const token = sessionToken(req.headers.cookie);
  if (token !== null) await deps.store.sessions.delete(token);
  clearAuthCookie(reply, deps.config, SESSION_COOKIE);
  setCurrentSession(req, { token: null, user: null, orphaned: false });
}
