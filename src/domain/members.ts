import { AppError } from './errors.js';

/** Who an owner or share request names: a person by email or a group by name (docs/groups.md). */
export type Member = { email: string } | { group: string };

/** Exactly one of `email` and `group`, the one rule REST's bodies and MCP's arguments share. */
export function memberOf(given: { email?: string; group?: string }): Member {
  if (given.email !== undefined && given.group !== undefined) {
    throw new AppError('BAD_REQUEST', 'give either email or group, not both', 'group');
  }
  if (given.group !== undefined) return { group: given.group };
  if (given.email !== undefined) return { email: given.email };
  throw new AppError('BAD_REQUEST', 'email or group is required', 'email');
}
