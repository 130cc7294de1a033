import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { isTrusted } from '../domain/clientIp.js';
import type { Store } from '../store/index.js';
import type { User } from '../store/types.js';
import { currentSession } from './currentUser.js';
import { applyLoginGrant, isEnvGrantedAdmin } from './grants.js';
import { applySignInGroups, headerGroups, type GroupSyncer } from './groupSync.js';
import { startSession } from './session.js';

/**
 * Forward-auth sign-in: a request that a trusted proxy vouches for signs in
 * the user named by JOE_AUTH_PROXY_HEADER. The header is read only when the
 * socket peer is in JOE_TRUSTED_PROXIES; from any other peer it is ignored,
 * because anyone can send any header. The web context runs this on every
 * request it answers (http/web/session.ts).
 */

export interface WebSessionDeps {
  config: Config;
  store: Pick<Store, 'identities' | 'now' | 'sessions' | 'users'>;
  /** Keeps synced groups in step with JOE_FORWARD_AUTH_GROUPS_HEADER. */
  links: GroupSyncer;
}

const EMAIL = /^[^\s@,;<>"]+@[^\s@,;<>"]+$/;

/** The email a trusted proxy vouches for, or null (untrusted peer, no header, not an email). */
export function proxiedEmail(
  config: Pick<Config, 'authProxyHeader' | 'trustedProxies'>,
  req: { socket: { remoteAddress?: string | undefined }; headers: IncomingHttpHeaders },
): string | null {
  if (config.authProxyHeader === null) return null;
  if (!isTrusted(req.socket.remoteAddress ?? '', config.trustedProxies)) return null;
  const raw = req.headers[config.authProxyHeader];
  if (typeof raw !== 'string') return null;
  const email = raw.trim();
  return email.length <= 254 && EMAIL.test(email) ? email : null;
}

/**
 * In forward-auth mode, signs in the user the proxy names unless the
 * request's session already belongs to them. Returns whether a proxy vouched
 * for the request at all (then the session is that user's either way).
 */
export async function signInByProxy(deps: WebSessionDeps, req: FastifyRequest, reply: FastifyReply): Promise<boolean> {
  const { config, store } = deps;
  if (config.authMode !== 'proxy') return false;
  const email = proxiedEmail(config, req);
  if (email === null) return false;
  const user = await store.identities.findOrCreateLocal(email);
  const current = await currentSession(req, store);
  if (current.user?.id === user.id) {
    await followGroupsHeader(deps, req, user, false);
    return true;
  }
  // No session for this user yet: this request is a login.
  const granted = await applyLoginGrant(store, req.log, user, isEnvGrantedAdmin(config, { email }));
  await startSession(deps, req, reply, granted);
  await followGroupsHeader(deps, req, user, true);
  req.log.info({ userId: user.id }, 'signed in by forward-auth proxy');
  return true;
}

/**
 * The groups header last applied per user, per server (keyed by its store). The proxy sends
 * the header with every request while the session lasts, so it is applied at the login and
 * then again only when its value changes: a page view or redirect with the same groups reads
 * nothing and writes nothing. A restarted server or another replica applies it once more,
 * which changes nothing when the memberships already match. Bounded: the oldest entry goes.
 */
const applied = new WeakMap<object, Map<string, string>>();
const APPLIED_MAX = 10_000;

async function followGroupsHeader(deps: WebSessionDeps, req: FastifyRequest, user: User, login: boolean): Promise<void> {
  const header = deps.config.forwardAuthGroupsHeader;
  if (header === null) return;
  const names = headerGroups(req.headers[header]);
  const key = [...new Set(names.map((n) => n.toLowerCase()))].sort().join(',');
  let seen = applied.get(deps.store);
  if (!seen) applied.set(deps.store, (seen = new Map()));
  if (!login && seen.get(user.id) === key) return;
  if (!(await applySignInGroups(deps.links, req.log, user, names))) return;
  seen.delete(user.id);
  seen.set(user.id, key);
  if (seen.size > APPLIED_MAX) seen.delete(seen.keys().next().value!);
}
