import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { requestUser } from '../../auth/currentUser.js';
import type { User } from '../../store/types.js';
import { errorResponses } from './errors.js';
import { BEARER } from './guards.js';
import { ref, StringEnum } from './schemaRef.js';

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

export function toUserBody(u: User): UserBody {
  return {
    id: u.id,
    email: u.email,
    display_name: u.displayName,
    role: u.role,
    role_source: u.roleSource,
    created_at: new Date(u.createdAt).toISOString(),
  };
}

export function registerUserRoutes(app: FastifyInstance): void {
  app.get(
    '/users/me',
    {
      schema: {
        summary: 'The user who owns the presented token',
        tags: ['Users'],
        security: BEARER,
        response: { 200: ref(UserSchema, { description: 'The caller' }), ...errorResponses(401) },
      },
    },
    async (req) => toUserBody(requestUser(req)),
  );
}
