import type { FastifyReply, FastifyRequest } from 'fastify';
import { sessionToken } from '../../auth/cookies.js';
import { signInByProxy, type WebSessionDeps } from '../../auth/webSession.js';
import { dropOrphanedSession } from './guards.js';

/**
 * The session side of browser requests, as hooks of the web context
 * (http/web/index.ts). Only routes registered inside that context pass them:
 * the API, MCP, state links, probes and static files never read or set a
 * session.
 */

/** Every web request: forward-auth sign-in from a trusted proxy (auth/webSession.ts). */
export function forwardAuthHook(deps: WebSessionDeps) {
  return async function forwardAuth(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    await signInByProxy(deps, req, reply);
  };
}

/**
 * Every web request but the sign-in routes (which replace the session
 * themselves; sending them to /auth/login would break a callback): a session
 * whose user has vanished is destroyed and the browser sent to sign in.
 */
export function vanishedUserHook(deps: WebSessionDeps) {
  return async function dropVanishedUser(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    // Anonymous requests cost no query.
    if (sessionToken(req.headers.cookie) === null) return undefined;
    return (await dropOrphanedSession(deps, req, reply)) ?? undefined;
  };
}
