import type { FastifyBaseLogger } from 'fastify';
import type { LinkService } from '../links/index.js';
import type { User } from '../store/types.js';

/**
 * Group membership from sign-in (docs/groups.md#members-from-sign-in): the groups an OIDC
 * claim or a forward-auth header names decide the user's membership of the groups an admin
 * marked synced. The rule itself is the links layer's (`syncSignInGroups`); this reads what
 * sign-in said and keeps a failure from blocking the sign-in, as the admin grant does.
 */

export type GroupSyncer = Pick<LinkService, 'syncSignInGroups'>;

/** The group names of an OIDC groups claim: a list's strings; anything else names none. */
export function claimedGroups(claim: unknown): string[] {
  return Array.isArray(claim) ? claim.filter((g): g is string => typeof g === 'string') : [];
}

/** The group names of a forward-auth groups header (`eng, ops`): comma-separated; absent names none. */
export function headerGroups(value: string | string[] | undefined): string[] {
  const raw = Array.isArray(value) ? value.join(',') : (value ?? '');
  return raw
    .split(',')
    .map((g) => g.trim())
    .filter((g) => g !== '');
}

/**
 * Applies the names to the user's synced groups. A failed write is logged and the sign-in
 * goes on: the memberships stay as they were until the next sign-in brings them in step.
 * Whether it succeeded.
 */
export async function applySignInGroups(
  links: GroupSyncer,
  log: FastifyBaseLogger,
  user: User,
  names: readonly string[],
): Promise<boolean> {
  try {
    const { added, removed } = await links.syncSignInGroups(user, names);
    if (added.length > 0 || removed.length > 0) log.info({ userId: user.id, added, removed }, 'group memberships follow sign-in');
    return true;
  } catch (err) {
    log.error({ err, userId: user.id }, 'could not bring group memberships in step with sign-in; the sign-in proceeds');
    return false;
  }
}
