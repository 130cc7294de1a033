import type { FastifyInstance } from 'fastify';
import { requestUser } from '../../auth/currentUser.js';
import type { User } from '../../store/types.js';
import { errorResponses } from './errors.js';
import { BEARER } from './guards.js';
import { ref } from './schemas/ref.js';
import { UserSchema, type UserBody } from './schemas/users.js';

/** The User resource as the API writes it (docs/api.md#config-keywords-users-and-tokens). */

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
        operationId: 'getCurrentUser',
        summary: 'The user who owns the presented token',
        tags: ['Users'],
        security: BEARER,
        response: { 200: ref(UserSchema, { description: 'The caller' }), ...errorResponses(401) },
      },
    },
    async (req) => toUserBody(requestUser(req)),
  );
}
