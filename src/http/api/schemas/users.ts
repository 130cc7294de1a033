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
