import type { FastifyRequest } from 'fastify';
import type { Store } from '../store/index.js';
import type { User } from '../store/types.js';
import { sessionToken } from './cookies.js';

const cache = new WeakMap<FastifyRequest, Promise<CurrentSession>>();
/** The same answer once known, for handlers behind a guard that need it synchronously. */
const settled = new WeakMap<FastifyRequest, CurrentSession>();

export interface CurrentSession {
  token: string | null;
  /** Reloaded from the database on every request, so role changes apply at once. */
  user: User | null;
  /** The cookie named a session whose user no longer exists. */
  orphaned: boolean;
}

const ANONYMOUS: CurrentSession = { token: null, user: null, orphaned: false };

async function load(req: FastifyRequest, store: Pick<Store, 'sessions' | 'users'>): Promise<CurrentSession> {
  const token = sessionToken(req.headers.cookie);
  if (token === null) return ANONYMOUS;
  const data = await store.sessions.get(token);
  if (!data) return ANONYMOUS;
  const user = await store.users.findById(data.userId);
  if (!user) return { token, user: null, orphaned: true };
  return { token, user, orphaned: false };
}

/** The signed-in user of a browser request (session cookie), loaded once per request. */
export function currentSession(req: FastifyRequest, store: Pick<Store, 'sessions' | 'users'>): Promise<CurrentSession> {
  let p = cache.get(req);
  if (!p) {
    p = load(req, store).then((s) => {
      settled.set(req, s);
      return s;
    });
    cache.set(req, p);
  }
  return p;
}

export async function currentUser(req: FastifyRequest, store: Pick<Store, 'sessions' | 'users'>): Promise<User | null> {
  return (await currentSession(req, store)).user;
}

/** Lets sign-in code replace what later handlers of the same request see. */
export function setCurrentSession(req: FastifyRequest, session: CurrentSession): void {
  cache.set(req, Promise.resolve(session));
  settled.set(req, session);
}

/**
 * The user a guard (`requireUser`, `requireAdmin`) or the bearer middleware
 * has already established for this request. Throws when called on a route
 * without one: that is a wiring mistake, not an anonymous visitor.
 */
export function requestUser(req: FastifyRequest): User {
  const user = settled.get(req)?.user;
  if (!user) throw new Error(`no authenticated user on ${req.method} ${req.url}: is the route missing its guard?`);
  return user;
}
