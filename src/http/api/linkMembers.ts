import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { memberOf } from '../../domain/members.js';
import {
  isUuid,
  toGroupOwnerResource,
  toGroupShareResource,
  toOwnerResource,
  toShareResource,
  type LinkService,
} from '../../links/index.js';
import type { Store } from '../../store/index.js';
import { errorResponses, sendApiError } from './errors.js';
import { BEARER, requestLink, requireLinkCap } from './guards.js';
import { AddOwnerSchema, AddShareSchema, OwnerSchema, ShareSchema } from './schemas/links.js';
import { GroupOwnerSchema, GroupShareSchema } from './schemas/groups.js';
import { ref } from './schemas/ref.js';

/**
 * Co-owners and share rosters (docs/api.md#owner-and-share-endpoints). Every route needs
 * CanManageShares, so a share recipient can neither read nor change who
 * else has access — the roster of a secure link stays with its owners.
 */

const MemberParams = Type.Object({
  id: Type.String({ description: 'link id' }),
  uid: Type.String({ description: 'user id, or group id for a group' }),
});
const LinkParams = Type.Object({ id: Type.String({ description: 'link id' }) });

export function registerLinkMemberRoutes(
  app: FastifyInstance,
  deps: { store: Pick<Store, 'owners' | 'shares' | 'groups'>; links: LinkService },
): void {
  const { store, links } = deps;
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const manage = requireLinkCap(deps, 'canManageShares');

  api.get(
    '/links/:id/owners',
    {
      onRequest: manage,
      schema: {
        operationId: 'listLinkOwners',
        summary: 'List owners: people, primary first, then groups by name',
        tags: ['Owners'],
        security: BEARER,
        params: LinkParams,
        response: {
          200: Type.Array(Type.Union([ref(OwnerSchema), ref(GroupOwnerSchema)]), { description: 'Bare array of owners' }),
          ...errorResponses(401, 403, 404, 500),
        },
      },
    },
    async (req) => {
      const id = requestLink(req).link.id;
      const [people, groups] = await Promise.all([store.owners.list(id), store.groups.ofLinks('owner', [id])]);
      return [...people.map(toOwnerResource), ...(groups.get(id) ?? []).map(toGroupOwnerResource)];
    },
  );

  api.post(
    '/links/:id/owners',
    {
      onRequest: manage,
      schema: {
        operationId: 'addLinkOwner',
        summary: 'Add a co-owner: a person by email or a group by name',
        tags: ['Owners'],
        security: BEARER,
        params: LinkParams,
        body: ref(AddOwnerSchema),
        response: {
          201: Type.Union([ref(OwnerSchema), ref(GroupOwnerSchema)], { description: 'The new co-owner' }),
          ...errorResponses(400, 401, 403, 404, [409, 'DUPLICATE_OWNER'], 413, 500),
        },
      },
    },
    async (req, reply) => {
      const granted = requestLink(req);
      const member = memberOf(req.body);
      if ('group' in member) {
        return reply.code(201).send(toGroupOwnerResource(await links.addGroup(granted.actor, granted, 'owner', member.group)));
      }
      const user = await links.addOwner(granted.actor, granted, member.email);
      return reply.code(201).send({ id: user.id, email: user.email, is_primary: false });
    },
  );

  api.delete(
    '/links/:id/owners/:uid',
    {
      onRequest: manage,
      schema: {
        operationId: 'removeLinkOwner',
        summary: 'Remove a co-owner, a person or a group (never the primary owner)',
        tags: ['Owners'],
        security: BEARER,
        params: MemberParams,
        response: {
          204: Type.Null({ description: 'Removed' }),
          ...errorResponses([400, 'BAD_REQUEST', 'PRIMARY_OWNER_PROTECTED'], 401, 403, 404, 500),
        },
      },
    },
    async (req, reply) => {
      if (!isUuid(req.params.uid)) return sendApiError(reply, 'NOT_FOUND', 'owner not found');
      const granted = requestLink(req);
      if (await store.groups.hasLink('owner', granted.link.id, req.params.uid)) {
        await links.removeGroup(granted.actor, granted, 'owner', req.params.uid);
      } else {
        await links.removeOwner(granted.actor, granted, req.params.uid);
      }
      return reply.code(204).send(null);
    },
  );

  api.get(
    '/links/:id/shares',
    {
      onRequest: manage,
      schema: {
        operationId: 'listLinkShares',
        summary: 'List who the link is shared with: people, oldest first, then groups by name',
        tags: ['Shares'],
        security: BEARER,
        params: LinkParams,
        response: {
          200: Type.Array(Type.Union([ref(ShareSchema), ref(GroupShareSchema)]), { description: 'Bare array of shares' }),
          ...errorResponses(401, 403, 404, 500),
        },
      },
    },
    async (req) => {
      const id = requestLink(req).link.id;
      const [people, groups] = await Promise.all([store.shares.list(id), store.groups.ofLinks('share', [id])]);
      return [...people.map(toShareResource), ...(groups.get(id) ?? []).map(toGroupShareResource)];
    },
  );

  api.post(
    '/links/:id/shares',
    {
      onRequest: manage,
      schema: {
        operationId: 'shareLink',
        summary: 'Share the link with a person by email or a group by name',
        tags: ['Shares'],
        security: BEARER,
        params: LinkParams,
        body: ref(AddShareSchema),
        response: {
          201: Type.Union([ref(ShareSchema), ref(GroupShareSchema)], { description: 'The new share' }),
          ...errorResponses(400, 401, 403, 404, [409, 'DUPLICATE_SHARE'], 413, 500),
        },
      },
    },
    async (req, reply) => {
      const granted = requestLink(req);
      const member = memberOf(req.body);
      if ('group' in member) {
        return reply.code(201).send(toGroupShareResource(await links.addGroup(granted.actor, granted, 'share', member.group)));
      }
      return reply.code(201).send(toShareResource(await links.addShare(granted.actor, granted, member.email)));
    },
  );

  api.delete(
    '/links/:id/shares/:uid',
    {
      onRequest: manage,
      schema: {
        operationId: 'unshareLink',
        summary: 'Stop sharing the link with a person or a group',
        tags: ['Shares'],
        security: BEARER,
        params: MemberParams,
        response: { 204: Type.Null({ description: 'Removed' }), ...errorResponses(401, 403, 404, 500) },
      },
    },
    async (req, reply) => {
      if (!isUuid(req.params.uid)) return sendApiError(reply, 'NOT_FOUND', 'share not found');
      const granted = requestLink(req);
      if (await store.groups.hasLink('share', granted.link.id, req.params.uid)) {
        await links.removeGroup(granted.actor, granted, 'share', req.params.uid);
      } else {
        await links.removeShare(granted.actor, granted, req.params.uid);
      }
      return reply.code(204).send(null);
    },
  );
}
