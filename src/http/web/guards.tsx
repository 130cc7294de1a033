import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { clearAuthCookie, SESSION_COOKIE } from '../../auth/cookies.js';
import { currentSession, setCurrentSession } from '../../auth/currentUser.js';
import type { Config } from '../../config.js';
import type { Store } from '../../store/index.js';
import { Forbidden } from '../../views/pages/errors.js';
import { isHtmx, pageContext, sendHtml } from './render.js';

/**
 * Web route guards (docs/auth.md#route-guards) as Fastify preHandlers:
 *
 *   app.get('/dashboard', { preHandler: requireUser(deps) }, handler)
 *   app.get('/admin/users', { preHandler: requireAdmin(deps) }, handler)
 *
 * Behind a guard, `requestUser(req)` (auth/currentUser.ts) returns the user.
 */

export interface GuardDeps {
  config: Config;
  store: Pick<Store, 'notifications' | 'now' | 'sessions' | 'users'>;
}

/**
 * `302 /auth/login?return_url=<request URI>`. An HTMX request gets
 * `HX-Redirect` instead: a 302 would be followed inside the XHR and the
 * sign-in page (or, with OIDC, the provider's redirect) swapped into a fragment.
 */
export function redirectToLogin(req: FastifyRequest, reply: FastifyReply, returnTo: string | null = req.url): FastifyReply {
  const location = returnTo === null ? '/auth/login' : `/auth/login?return_url=${encodeURIComponent(returnTo)}`;
  reply.header('cache-control', 'private, no-store');
  if (isHtmx(req)) return reply.code(204).header('hx-redirect', location).send();
  return reply.code(302).header('location', location).send();
}

/**
 * A session whose user no longer exists is destroyed and the browser sent to
 * sign in again (docs/auth.md#sessions). Returns the reply when it did so.
 */
export async function dropOrphanedSession(
  deps: { config: Config; store: Pick<Store, 'now' | 'sessions' | 'users'> },
  req: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply | null> {
  const s = await currentSession(req, deps.store);
  if (!s.orphaned) return null;
  if (s.token) await deps.store.sessions.delete(s.token);
  clearAuthCookie(reply, deps.config, SESSION_COOKIE);
  setCurrentSession(req, { token: null, user: null, orphaned: false });
  return redirectToLogin(req, reply, null);
}

/** Signed-in users only; everyone else is sent to sign in and brought back afterwards. */
export function requireUser(deps: GuardDeps): preHandlerAsyncHookHandler {
  return async function requireUserGuard(req, reply) {
    const orphan = await dropOrphanedSession(deps, req, reply);
    if (orphan) return orphan;
    const { user } = await currentSession(req, deps.store);
    if (!user) return redirectToLogin(req, reply);
  };
}

/** Admins only: anonymous visitors sign in first; signed-in users get the styled 403. */
export function requireAdmin(deps: GuardDeps): preHandlerAsyncHookHandler {
  const signedIn = requireUser(deps);
  return async function requireAdminGuard(req, reply) {
    await signedIn.call(this, req, reply);
    if (reply.sent) return reply;
    const { user } = await currentSession(req, deps.store);
    if (user?.role !== 'admin') {
      return sendHtml(req, reply, await pageContext(deps, req, user), 'Access denied', <Forbidden />, 403);
    }
  };
}
