import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { isTrusted } from '../domain/clientIp.js';
import type { Store } from '../store/index.js';
import { readCookie } from './cookies.js';
import { currentSession, SESSION_COOKIE } from './currentUser.js';
import { applyLoginGrant, isEnvGrantedAdmin } from './grants.js';
import { dropOrphanedSession } from './guards.js';
import { startSession } from './session.js';

/**
 * The session side of every browser request, one global onRequest hook:
 *
 * - forward-auth mode (api.md §2.12): a request that a trusted proxy vouches
 *   for signs in the user named by JOE_AUTH_PROXY_HEADER. The header is read
 *   only when the socket peer is in JOE_TRUSTED_PROXIES; from any other peer
 *   it is ignored, because anyone can send any header.
 * - a session whose user has vanished is destroyed and the browser sent to
 *   sign in (api.md §2.6 rule 5).
 *
 * Bearer-only surfaces, the state-link API and static or system endpoints are
 * left alone: they never read or set a session.
 */

export interface WebSessionDeps {
  config: Config;
  store: Store;
}

const EMAIL = /^[^\s@,;<>"]+@[^\s@,;<>"]+$/;

function skipsSessions(url: string): boolean {
  return (
    url === '/api' ||
    url.startsWith('/api/') ||
    url.startsWith('/api?') ||
    url === '/mcp' ||
    url.startsWith('/mcp/') ||
    url.startsWith('/mcp?') ||
    url.startsWith('/static/') ||
    url === '/healthz' ||
    url === '/readyz' ||
    url === '/metrics' ||
    url.startsWith('/healthz?') ||
    url.startsWith('/readyz?') ||
    url.startsWith('/metrics?')
  );
}

/** The email a trusted proxy vouches for, or null (untrusted peer, no header, not an email). */
export function proxiedEmail(config: Pick<Config, 'authProxyHeader' | 'trustedProxies'>, req: FastifyRequest): string | null {
  if (config.authProxyHeader === null) return null;
  if (!isTrusted(req.socket.remoteAddress ?? '', config.trustedProxies)) return null;
  const raw = req.headers[config.authProxyHeader];
  if (typeof raw !== 'string') return null;
  const email = raw.trim();
  return email.length <= 254 && EMAIL.test(email) ? email : null;
}

export function webSessionHook(deps: WebSessionDeps) {
  const { config, store } = deps;
  return async function webSession(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    if (skipsSessions(req.url)) return undefined;
    if (config.authMode === 'proxy') {
      const email = proxiedEmail(config, req);
      if (email !== null) {
        const user = await store.identities.findOrCreateLocal(email);
        const current = await currentSession(req, store);
        if (current.user?.id === user.id) return undefined;
        // No session for this user yet: this request is a login.
        const granted = await applyLoginGrant(store, req.log, user, isEnvGrantedAdmin(config, { email }));
        await startSession(deps, req, reply, granted);
        req.log.info({ userId: user.id }, 'signed in by forward-auth proxy');
        return undefined;
      }
    }
    // Anonymous requests cost no query.
    if (readCookie(req, SESSION_COOKIE) === undefined) return undefined;
    // The sign-in routes replace the session themselves; sending them to /auth/login would break a callback.
    if (req.url.startsWith('/auth/')) return undefined;
    return (await dropOrphanedSession(deps, req, reply)) ?? undefined;
  };
}
