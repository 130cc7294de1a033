import type { Selectable } from 'kysely';
import { asVisibility } from '../domain/caps.js';
import type { LinksTable, UsersTable } from '../db/schema.js';
import type { Link, Role, RoleSource, User } from './types.js';

/** Row → domain object conversions shared by the store modules. */

export const USER_COLUMNS = [
  'users.id',
  'users.provider',
  'users.subject',
  'users.email',
  'users.display_name',
  'users.display_name_slug',
  'users.role',
  'users.role_source',
  'users.created_at',
  'users.updated_at',
] as const;

/** The user columns without their table prefix: the row keys of a compiled lookup (HotQuery). */
export const USER_FIELDS = USER_COLUMNS.map((c) => c.slice('users.'.length) as keyof UsersTable);

/** A user from the values of USER_COLUMNS in their order, as a compiled lookup answers them. */
export function userFromValues(values: readonly unknown[]): User {
  return toUser(Object.fromEntries(USER_FIELDS.map((f, i) => [f, values[i]])) as unknown as Selectable<UsersTable>);
}

export function toUser(r: Selectable<UsersTable>): User {
  return {
    id: r.id,
    provider: r.provider,
    subject: r.subject,
    email: r.email,
    displayName: r.display_name,
    displayNameSlug: r.display_name_slug,
    role: (r.role === 'admin' ? 'admin' : 'user') as Role,
    roleSource: (r.role_source === 'config' ? 'config' : 'manual') as RoleSource,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

export const LINK_COLUMNS = [
  'links.id',
  'links.slug',
  'links.url',
  'links.title',
  'links.description',
  'links.visibility',
  'links.created_at',
  'links.updated_at',
  'links.expires_at',
  'links.archived_at',
  'links.health_checks_disabled',
  'links.forward_path_and_query',
  'links.default_url',
] as const;

const num = (v: number | string | null): number | null => (v === null ? null : Number(v));

/** A link's row as LINK_COLUMNS reads it; `slug_key` is the lookup's alone. */
export function toLink(r: Omit<Selectable<LinksTable>, 'slug_key'>): Link {
  return {
    id: r.id,
    slug: r.slug,
    url: r.url,
    title: r.title ?? '',
    description: r.description ?? '',
    visibility: asVisibility(r.visibility),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    expiresAt: num(r.expires_at),
    archivedAt: num(r.archived_at),
    healthChecksDisabled: Number(r.health_checks_disabled) === 1,
    forwardPathAndQuery: Number(r.forward_path_and_query) === 1,
    defaultUrl: r.default_url ?? null,
  };
}
