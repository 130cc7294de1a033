import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { requestUser } from '../../auth/currentUser.js';
import { decodeCursor, encodeCursor, pageLimit } from '../../domain/keysetCursor.js';
import type { Store } from '../../store/index.js';
import { viewerOf } from '../../store/types.js';
import { errorResponses } from './errors.js';
import { isUuid, type LinkService, type UserService } from '../../links/index.js';
import { AppError } from '../../domain/errors.js';
import { requestActor } from '../shared/actor.js';
import { adminOnly, BEARER } from './guards.js';
import { linkPage, PageQueryFields } from './links.js';
import { toOwnerResource, isoOrNull } from '../../links/index.js';
import { LinkHealthReportSchema, LinkListSchema } from './schemas/links.js';
import { ref, StringEnum } from './schemas/ref.js';
import { toUserBody } from './users.js';
import { UpdateRoleSchema, UserDeletionSchema, UserListSchema, UserSchema } from './schemas/users.js';

/** Instance-wide views and role changes for admins (docs/api.md#admin-endpoints). */
export function registerAdminRoutes(
  app: FastifyInstance,
  deps: { store: Pick<Store, 'discovery' | 'health' | 'links' | 'now' | 'users'>; users: UserService; links: LinkService },
): void {
  const { store } = deps;
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const admin = adminOnly();

  api.get(
    '/admin/users',
    {
      onRequest: admin,
      schema: {
        operationId: 'listUsers',
        summary: 'List every user, by display name',
        tags: ['Admin'],
        security: BEARER,
        querystring: Type.Object(PageQueryFields),
        response: { 200: ref(UserListSchema, { description: 'A page of users' }), ...errorResponses(400, 401, 403, 500) },
      },
    },
    async (req) => {
      const after = decodeCursor(req.query.cursor);
      const page = await store.users.page({
        after: after ? { displayName: after.key, id: after.id } : undefined,
        limit: pageLimit(req.query.limit),
      });
      const last = page.users[page.users.length - 1];
      return {
        users: page.users.map(toUserBody),
        next_cursor: page.hasMore && last ? encodeCursor({ key: last.displayName, id: last.id }) : null,
      };
    },
  );

  api.put(
    '/admin/users/:id/role',
    {
      onRequest: admin,
      schema: {
        operationId: 'setUserRole',
        summary: 'Set a user’s role (recorded as set manually)',
        tags: ['Admin'],
        security: BEARER,
        params: Type.Object({ id: Type.String({ description: 'user id' }) }),
        body: ref(UpdateRoleSchema),
        response: { 200: ref(UserSchema, { description: 'The updated user' }), ...errorResponses(400, 401, 403, 404, 413, 500) },
      },
    },
    async (req) => {
      // A role set here is never revoked by configuration at the next login (docs/auth.md#roles-and-admin-grants).
      return toUserBody(await deps.users.setRole(requestActor(req), req.params.id, req.body.role));
    },
  );

  api.delete(
    '/admin/users/:id',
    {
      onRequest: admin,
      schema: {
        operationId: 'deleteUser',
        summary: 'Delete a user; their links and groups go to co-owners or a successor (docs/auth.md#deleting-a-user)',
        tags: ['Admin'],
        security: BEARER,
        params: Type.Object({ id: Type.String({ description: 'user id' }) }),
        querystring: Type.Object({
          successor: Type.Optional(
            Type.String({ description: 'email of who takes over what the user held alone; the calling admin when absent' }),
          ),
          link_action: Type.Optional(
            StringEnum(['reassign', 'delete'], {
              description: '`reassign` (the default) hands links on; `delete` deletes the links the user was primary owner of',
            }),
          ),
        }),
        response: { 200: ref(UserDeletionSchema), ...errorResponses(400, 401, 403, 404, 500) },
      },
    },
    async (req) => {
      if (!isUuid(req.params.id)) throw new AppError('NOT_FOUND', 'user not found');
      const { successor, link_action } = req.query;
      const result = await deps.links.deleteUser(requestActor(req), req.params.id, {
        linkAction: link_action ?? 'reassign',
        successor,
      });
      return {
        link_action: result.linkAction,
        links: {
          to_successor: result.toSuccessor,
          to_co_owners: result.toCoOwners,
          co_owned: result.coOwnedLinks,
          deleted: result.deletedLinks,
        },
        groups_handed_over: result.groupsHandedOver,
        successor: result.successor
          ? { id: result.successor.id, email: result.successor.email, display_name: result.successor.displayName }
          : null,
      };
    },
  );

  api.get(
    '/admin/links',
    {
      onRequest: admin,
      schema: {
        operationId: 'listAllLinks',
        summary: 'List every link, by slug',
        tags: ['Admin'],
        security: BEARER,
        querystring: Type.Object(PageQueryFields),
        response: { 200: ref(LinkListSchema, { description: 'A page of links' }), ...errorResponses(400, 401, 403, 500) },
      },
    },
    async (req) => linkPage(store, 'all', viewerOf(requestUser(req)), req.query),
  );

  api.get(
    '/admin/link-health',
    {
      onRequest: admin,
      schema: {
        operationId: 'listBrokenLinks',
        summary: 'Broken destinations: the rows of the admin link-health report',
        tags: ['Admin'],
        security: BEARER,
        response: {
          200: ref(LinkHealthReportSchema, {
            description: 'Active, checked links with 3 or more consecutive failures, most failures first, then slug',
          }),
          ...errorResponses(401, 403, 500),
        },
      },
    },
    async () => ({
      links: (await store.health.brokenReport()).map((r) => ({
        id: r.id,
        slug: r.slug,
        url: r.url,
        owners: r.owners.map(toOwnerResource),
        consecutive_failures: r.consecutiveFailures,
        last_status: r.lastStatus,
        // `last_error` stays on the admin page: it may quote whatever the destination answered.
        last_checked_at: isoOrNull(r.lastCheckedAt),
      })),
    }),
  );
}
