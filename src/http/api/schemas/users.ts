import { Type, type Static } from '@sinclair/typebox';
import { Nullable, ref, StringEnum } from './ref.js';

/** The User resource (docs/api.md#the-link-resource, docs/api.md#config-keywords-users-and-tokens). */
export const UserSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    email: Type.String(),
    display_name: Type.String(),
    role: StringEnum(['user', 'admin']),
    role_source: StringEnum(['manual', 'config'], {
      description: 'who set the role: an admin (`manual`) or a configured grant (`config`)',
    }),
    created_at: Type.String({ format: 'date-time', description: 'RFC 3339, UTC' }),
  },
  { $id: 'UserResponse', additionalProperties: false },
);

export type UserBody = Static<typeof UserSchema>;

export const UserListSchema = Type.Object(
  { users: Type.Array(ref(UserSchema)), next_cursor: Nullable(Type.String()) },
  { $id: 'UserListResponse', additionalProperties: false },
);

export const UpdateRoleSchema = Type.Object({ role: StringEnum(['user', 'admin']) }, { $id: 'UpdateRoleRequest' });

/** What `DELETE /admin/users/{id}` did with the user's links and groups. */
export const UserDeletionSchema = Type.Object(
  {
    link_action: StringEnum(['reassign', 'delete']),
    links: Type.Object(
      {
        to_successor: Type.Integer({ description: 'links the user owned alone, now the successor’s' }),
        to_co_owners: Type.Integer({ description: 'links whose longest-standing co-owner became primary owner' }),
        co_owned: Type.Integer({ description: 'links the user co-owned, which simply lost them' }),
        deleted: Type.Integer({ description: 'links deleted with the user (`link_action=delete`)' }),
      },
      { additionalProperties: false },
    ),
    groups_handed_over: Type.Integer({ description: 'groups the user managed alone, now managed by the successor' }),
    successor: Nullable(
      Type.Object(
        { id: Type.String({ format: 'uuid' }), email: Type.String(), display_name: Type.String() },
        { additionalProperties: false, description: 'who took over; null for `delete`' },
      ),
    ),
  },
  { $id: 'UserDeletionResponse', additionalProperties: false },
);
