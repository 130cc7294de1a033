import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { requireBearer } from '../../auth/bearer.js';
import { requestUser } from '../../auth/currentUser.js';
import type { Store } from '../../store/index.js';
import type { User } from '../../store/types.js';
import { ApiErrorSchema } from './errors.js';

/** The User resource (api.md §4.6, §6.4). */
export const UserSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    email: Type.String(),
    display_name: Type.String(),
    role: Type.Union([Type.Literal('user'), Type.Literal('admin')]),
    role_source: Type.Union([Type.Literal('manual'), Type.Literal('config')]),
    created_at: Type.String({ format: 'date-time', description: 'RFC 3339, UTC' }),
  },
  { additionalProperties: false },
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

export function registerUserRoutes(app: FastifyInstance, deps: { store: Store }): void {
  app.get(
    '/api/v1/users/me',
    {
      preHandler: requireBearer(deps),
      schema: {
        summary: 'The user who owns the presented token',
        response: { 200: UserSchema, 401: ApiErrorSchema },
      },
    },
    async (req) => toUserBody(requestUser(req)),
  );
}
