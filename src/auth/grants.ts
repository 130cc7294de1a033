import type { FastifyBaseLogger } from 'fastify';
import type { Store } from '../store/index.js';
import type { Role, RoleSource, User } from '../store/types.js';

/**
 * Admin grants from configuration (docs/auth.md#roles-and-admin-grants), applied at every login.
 */

export interface GrantInput {
  email: string;
  /** The raw groups claim of an OIDC ID token; absent for local and forward-auth logins. */
  groups?: unknown;
}

/**
 * "Env-granted admin": the email equals JOE_ADMIN_EMAIL exactly, or the
 * groups claim is an array holding one of JOE_OIDC_ADMIN_GROUPS. A claim that
 * is absent or not an array grants nothing; non-string entries are ignored.
 */
export function isEnvGrantedAdmin(
  config: { adminEmail: string | null; oidc: { adminGroups: readonly string[] } },
  input: GrantInput,
): boolean {
  if (config.adminEmail !== null && input.email === config.adminEmail) return true;
  if (!Array.isArray(input.groups) || config.oidc.adminGroups.length === 0) return false;
  const wanted = new Set(config.oidc.adminGroups);
  return input.groups.some((g) => typeof g === 'string' && wanted.has(g));
}

/**
 * The role a login leaves behind, or null when it changes nothing.
 * A grant promotes (and undoes a manual demotion); configuration revokes only
 * what configuration granted; a manually granted admin is never demoted here.
 */
export function roleAfterLogin(user: Pick<User, 'role' | 'roleSource'>, granted: boolean): { role: Role; roleSource: RoleSource } | null {
  if (granted) return user.role === 'admin' ? null : { role: 'admin', roleSource: 'config' };
  if (user.role === 'admin' && user.roleSource === 'config') return { role: 'user', roleSource: 'config' };
  return null;
}

/**
 * Applies the grant rule to a freshly upserted user. A failed write is
 * logged and does not block the login: the user keeps the stored role for
 * this session (docs/auth.md#roles-and-admin-grants).
 */
export async function applyLoginGrant(
  store: Pick<Store, 'identities' | 'now' | 'sessions'>,
  log: FastifyBaseLogger,
  user: User,
  granted: boolean,
): Promise<User> {
  const next = roleAfterLogin(user, granted);
  if (!next) return user;
  try {
    await store.identities.setRoleFromConfig(user.id, next.role);
  } catch (err) {
    log.error(
      { err, userId: user.id, role: next.role },
      'could not apply the configured admin grant; the login proceeds with the stored role',
    );
    return user;
  }
  if (next.role === 'admin') log.info({ userId: user.id }, 'granted admin by configuration');
  else log.info({ userId: user.id }, 'admin granted by configuration revoked: the user no longer matches any grant');
  return { ...user, role: next.role, roleSource: next.roleSource };
}
