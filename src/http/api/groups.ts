import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { decodeCursor, encodeCursor, pageLimit } from '../../domain/keysetCursor.js';
import { toGroupDetailResource, toGroupResource, type LinkService } from '../../links/index.js';
import type { Store } from '../../store/index.js';
import { requestActor } from '../shared/actor.js';
import { errorResponses } from './errors.js';
import { idempotent, IdempotencyHeaders } from './idempotency.js';
import { BEARER } from './guards.js';
import { PageQueryFields } from './links.js';
import {
  AddGroupMemberSchema,
  CreateGroupSchema,
  GroupDetailSchema,
  GroupListSchema,
  SetGroupRoleSchema,
  UpdateGroupSchema,
} from './schemas/groups.js';
import { ref, StringEnum } from './schemas/ref.js';

/**
 * Groups (docs/api.md#groups): anyone signed in lists and reads them and creates one; a
 * group's managers and the admins change it. Rules live in the links layer (src/links/groups.ts).
 */

const GroupParams = Type.Object({ name: Type.String({ description: 'group name' }) });
const MemberParams = Type.Object({
  name: Type.String({ description: 'group name' }),
  email: Type.String({ description: 'the member’s email' }),
});

export function registerGroupRoutes(
  app: FastifyInstance,
  deps: { store: Pick<Store, 'groups' | 'idempotency'>; links: LinkService },
): void {
  const { store, links } = deps;
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.get(
    '/groups',
    {
      schema: {
        operationId: 'listGroups',
        summary: 'List groups by name',
        tags: ['Groups'],
        security: BEARER,
        querystring: Type.Object({
          ...PageQueryFields,
          mine: Type.Optional(StringEnum(['true', 'false'], { description: '`true`: only the groups the caller is a member of' })),
        }),
        response: { 200: ref(GroupListSchema, { description: 'A page of groups' }), ...errorResponses(400, 401, 500) },
      },
    },
    async (req) => {
      const after = decodeCursor(req.query.cursor);
      const actor = requestActor(req);
      const page = await store.groups.page({
        after: after?.key,
        limit: pageLimit(req.query.limit),
        memberId: req.query.mine === 'true' && actor.kind === 'user' ? actor.user.id : undefined,
      });
      const counts = await store.groups.memberCounts(page.groups.map((g) => g.id));
      const last = page.groups[page.groups.length - 1];
      return {
        groups: page.groups.map((g) => toGroupResource(g, counts.get(g.id) ?? 0)),
        next_cursor: page.hasMore && last ? encodeCursor({ key: last.name, id: last.id }) : null,
      };
    },
  );

  api.post(
    '/groups',
    {
      ...idempotent(deps),
      schema: {
        operationId: 'createGroup',
        summary: 'Create a group; the caller becomes its manager',
        tags: ['Groups'],
        security: BEARER,
        headers: IdempotencyHeaders,
        body: ref(CreateGroupSchema),
        response: {
          201: ref(GroupDetailSchema, { description: 'The new group' }),
          ...errorResponses(
            [400, 'BAD_REQUEST', 'INVALID_GROUP_NAME'],
            401,
            [409, 'GROUP_CONFLICT', 'IDEMPOTENCY_KEY_IN_USE'],
            413,
            422,
            500,
          ),
        },
      },
    },
    async (req, reply) => reply.code(201).send(toGroupDetailResource(await links.createGroup(requestActor(req), req.body))),
  );

  api.get(
    '/groups/:name',
    {
      schema: {
        operationId: 'getGroup',
        summary: 'Get a group with its members and their roles',
        tags: ['Groups'],
        security: BEARER,
        params: GroupParams,
        response: { 200: ref(GroupDetailSchema), ...errorResponses(401, 404, 500) },
      },
    },
    async (req) => toGroupDetailResource(await links.group(req.params.name)),
  );

  api.put(
    '/groups/:name',
    {
      schema: {
        operationId: 'updateGroup',
        summary: 'Rename a group or change its description (its managers and admins), or hand its members to sign-in (admins)',
        tags: ['Groups'],
        security: BEARER,
        params: GroupParams,
        body: ref(UpdateGroupSchema),
        response: {
          200: ref(GroupDetailSchema),
          ...errorResponses([400, 'BAD_REQUEST', 'INVALID_GROUP_NAME'], 401, 403, 404, [409, 'GROUP_CONFLICT'], 413, 500),
        },
      },
    },
    async (req) =>
      toGroupDetailResource(
        await links.updateGroup(requestActor(req), req.params.name, {
          name: req.body.name,
          description: req.body.description,
          managedBySignIn: req.body.managed_by_sign_in,
        }),
      ),
  );

  api.delete(
    '/groups/:name',
    {
      schema: {
        operationId: 'deleteGroup',
        summary: 'Delete a group (its managers and admins); links it owned keep their other owners',
        tags: ['Groups'],
        security: BEARER,
        params: GroupParams,
        response: { 204: Type.Null({ description: 'Deleted' }), ...errorResponses(401, 403, 404, 500) },
      },
    },
    async (req, reply) => {
      await links.deleteGroup(requestActor(req), req.params.name);
      return reply.code(204).send(null);
    },
  );

  api.post(
    '/groups/:name/members',
    {
      schema: {
        operationId: 'addGroupMember',
        summary: 'Add a member (its managers and admins)',
        tags: ['Groups'],
        security: BEARER,
        params: GroupParams,
        body: ref(AddGroupMemberSchema),
        response: {
          201: ref(GroupDetailSchema, { description: 'The group with its new member' }),
          ...errorResponses(400, 401, 403, 404, [409, 'DUPLICATE_MEMBER', 'GROUP_SYNCED'], 413, 500),
        },
      },
    },
    async (req, reply) =>
      reply
        .code(201)
        .send(toGroupDetailResource(await links.addGroupMember(requestActor(req), req.params.name, req.body.email, req.body.role))),
  );

  api.put(
    '/groups/:name/members/:email',
    {
      schema: {
        operationId: 'setGroupMemberRole',
        summary: 'Change a member’s role (its managers and admins)',
        tags: ['Groups'],
        security: BEARER,
        params: MemberParams,
        body: ref(SetGroupRoleSchema),
        response: { 200: ref(GroupDetailSchema), ...errorResponses(400, 401, 403, 404, [409, 'LAST_MANAGER', 'GROUP_SYNCED'], 413, 500) },
      },
    },
    async (req) => toGroupDetailResource(await links.setGroupRole(requestActor(req), req.params.name, req.params.email, req.body.role)),
  );

  api.delete(
    '/groups/:name/members/:email',
    {
      schema: {
        operationId: 'removeGroupMember',
        summary: 'Remove a member (its managers and admins; anyone may leave)',
        tags: ['Groups'],
        security: BEARER,
        params: MemberParams,
        response: {
          204: Type.Null({ description: 'Removed' }),
          ...errorResponses(400, 401, 403, 404, [409, 'LAST_MANAGER', 'GROUP_SYNCED'], 500),
        },
      },
    },
    async (req, reply) => {
      await links.removeGroupMember(requestActor(req), req.params.name, req.params.email);
      return reply.code(204).send(null);
    },
  );
}
