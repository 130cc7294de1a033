import { Type, type Static } from '@sinclair/typebox';
import { Id, Nullable, ref, StringEnum, Timestamp } from './ref.js';

/** Groups and their members (docs/api.md#groups, docs/groups.md). */

const groupFields = {
  id: Id('group id'),
  name: Type.String({ description: 'one word of lowercase letters, digits and inner hyphens; unique' }),
  description: Type.String(),
  managed_by_sign_in: Type.Boolean({
    description: 'true when sign-in keeps the members in step with the identity provider’s groups; they cannot be edited here',
  }),
  created_at: Timestamp(),
  updated_at: Timestamp(),
};

export const GroupSchema = Type.Object(
  { ...groupFields, member_count: Type.Integer({ minimum: 0 }) },
  { $id: 'GroupResponse', additionalProperties: false },
);

export const GroupMemberSchema = Type.Object(
  {
    id: Id('user id'),
    email: Type.String(),
    display_name: Type.String(),
    role: StringEnum(['member', 'manager']),
    added_at: Timestamp(),
  },
  { $id: 'GroupMemberResponse', additionalProperties: false },
);

export const GroupDetailSchema = Type.Object(
  { ...groupFields, members: Type.Array(ref(GroupMemberSchema), { description: 'by display name' }) },
  { $id: 'GroupDetailResponse', additionalProperties: false },
);

export const GroupListSchema = Type.Object(
  { groups: Type.Array(ref(GroupSchema), { description: 'by name' }), next_cursor: Nullable(Type.String()) },
  { $id: 'GroupListResponse', additionalProperties: false },
);

export const CreateGroupSchema = Type.Object(
  {
    name: Type.String({ description: 'one word of lowercase letters, digits and inner hyphens, at most 128 characters' }),
    description: Type.Optional(Type.String({ description: 'at most 2000 characters' })),
  },
  { $id: 'CreateGroupRequest', additionalProperties: false },
);

export const UpdateGroupSchema = Type.Object(
  {
    name: Type.Optional(Type.String({ description: 'a new name; links and shares follow the group' })),
    description: Type.Optional(Type.String()),
    managed_by_sign_in: Type.Optional(
      Type.Boolean({
        description:
          'admins only: `true` hands the members to sign-in, which from then on adds and removes each person by the identity provider’s groups of the same name',
      }),
    ),
  },
  { $id: 'UpdateGroupRequest', additionalProperties: false },
);

export const AddGroupMemberSchema = Type.Object(
  {
    email: Type.String({ description: 'email of an existing user, matched without regard to case or surrounding spaces' }),
    role: Type.Optional(StringEnum(['member', 'manager'], { description: 'default `member`' })),
  },
  { $id: 'AddGroupMemberRequest', additionalProperties: false },
);

export const SetGroupRoleSchema = Type.Object(
  { role: StringEnum(['member', 'manager']) },
  { $id: 'SetGroupRoleRequest', additionalProperties: false },
);

/** A group among a link's owners (`GET /links/{id}/owners`). */
export const GroupOwnerSchema = Type.Object(
  {
    id: Id('group id: `DELETE /links/{id}/owners/{group id}` removes it'),
    group: Type.String({ description: 'the group’s name' }),
    is_primary: Type.Boolean({ description: 'always false: the primary owner is a person' }),
  },
  { $id: 'GroupOwnerResponse', additionalProperties: false },
);

/** A group a link is shared with (`GET /links/{id}/shares`). */
export const GroupShareSchema = Type.Object(
  {
    link_id: Id('link id'),
    group_id: Id('group id: `DELETE /links/{id}/shares/{group id}` removes it'),
    group: Type.String({ description: 'the group’s name' }),
    created_at: Timestamp(),
  },
  { $id: 'GroupShareResponse', additionalProperties: false },
);

export type GroupBody = Static<typeof GroupSchema>;
export type GroupDetailBody = Static<typeof GroupDetailSchema>;
