import { AppError } from './errors.js';
import { validateDescription } from './linkInput.js';
import { refuseNul } from './nul.js';
import { SLUG_MAX_LENGTH } from './slug.js';

/**
 * Groups (docs/groups.md): named sets of people that own links and receive shares as one.
 * A group's name is one word of the slug alphabet, so it reads like a link (`eng`,
 * `platform-team`) and can stand in a URL as it is.
 */

export type GroupRole = 'member' | 'manager';
export const GROUP_ROLES: readonly GroupRole[] = ['member', 'manager'];

const GROUP_NAME = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

/**
 * The name a group is looked up by, however it was typed: names are stored lowercase
 * (validateGroupName), so `Eng ` finds `eng` on every surface.
 */
export function groupLookupName(typed: string): string {
  return typed.trim().toLowerCase();
}

/** The name trimmed, or INVALID_GROUP_NAME saying the rule. */
export function validateGroupName(name: string): string {
  refuseNul([['name', name]]);
  const n = name.trim();
  if (n.length === 0 || n.length > SLUG_MAX_LENGTH || !GROUP_NAME.test(n)) {
    throw new AppError(
      'INVALID_GROUP_NAME',
      `group name must be 1 to ${SLUG_MAX_LENGTH} lowercase letters, digits and inner hyphens ([a-z0-9][a-z0-9-]*[a-z0-9])`,
      'name',
    );
  }
  return n;
}

/** A group's description: the same length rule as a link's. */
export function validateGroupDescription(description: string | null | undefined): string {
  refuseNul([['description', description ?? '']]);
  return validateDescription(description);
}

/** `member` or `manager`, defaulting to `member`; anything else is BAD_REQUEST on `role`. */
export function asGroupRole(role: string | null | undefined): GroupRole {
  if (role === undefined || role === null) return 'member';
  if (role === 'member' || role === 'manager') return role;
  throw new AppError('BAD_REQUEST', 'role must be member or manager', 'role');
}

/** Who may change a group's name, description and members: its managers and admins. */
export function canManageGroup(viewer: { isAdmin: boolean }, role: GroupRole | null): boolean {
  return viewer.isAdmin || role === 'manager';
}
