import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { isUuid, toOwnerResource, toShareResource, type LinkService } from '../../links/index.js';
import type { Store } from '../../store/index.js';
import { errorResponses, sendApiError } from './errors.js';
import { BEARER, requestLink, requireLinkCap } from './guards.js';
import { AddOwnerSchema, AddShareSchema, OwnerSchema, ShareSchema } from './schemas/links.js';
import { ref } from './schemas/ref.js';

/**
 * Co-owners and share rosters (docs/api.md#owner-and-share-endpoints). Every route needs
 * CanManageShares, so a share recipient can neither read nor change who
 * else has access — the roster of a secure link stays with its owners.
 */

const MemberParams = Type.Object({
  id: Type.String({ description: 'link id' }),
  uid: Type.String({ description: 'user id' }),
});
const LinkParams = Type.Object({ id: Type.String({ description: 'link id' }) });

export function registerLinkMemberRoutes(
  app: FastifyInstance,
  deps: { store: Pick<Store, 'owners' | 'shares'>; links: LinkService },
): void {
  const { store, links } = deps;
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const manage = requireLinkCap(deps, 'canManageShares');

  api.get(
    '/links/:id/owners',
    {
      onRequest: manage,
      schema: {
        summary: 'List owners, primary first',
        tags: ['Owners'],
        security: BEARER,
        params: LinkParams,
        response: { 200: Type.Array(ref(OwnerSchema), { description: 'Bare array of owners' }), ...errorResponses(401, 403, 404, 500) },
      },
    },
    async (req) => (await store.owners.list(requestLink(req).link.id)).map(toOwnerResource),
  );

  api.post(
    '/links/:id/owners',
    {
      onRequest: manage,
      schema: {
        summary: 'Add a co-owner by email',
        tags: ['Owners'],
        security: BEARER,
        params: LinkParams,
        body: ref(AddOwnerSchema),
        response: { 201: ref(OwnerSchema, { description: 'The new co-owner' }), ...errorResponses(400, 401, 403, 404, 409, 413, 500) },
      },
    },
    async (req, reply) => {
      const granted = requestLink(req);
      const user = await links.addOwner(granted.actor, granted, req.body.email);
      return reply.code(201).send({ id: user.id, email: user.email, is_primary: false });
    },
  );

  api.delete(
    '/links/:id/owners/:uid',
    {
      onRequest: manage,
      schema: {
        summary: 'Remove a co-owner (never the primary owner)',
        tags: ['Owners'],
        security: BEARER,
        params: MemberParams,
        response: { 204: Type.Null({ description: 'Removed' }), ...errorResponses(400, 401, 403, 404, 500) },
      },
    },
    async (req, reply) => {
      if (!isUuid(req.params.uid)) return sendApiError(reply, 'NOT_FOUND', 'owner not found');
      const granted = requestLink(req);
      await links.removeOwner(granted.actor, granted, req.params.uid);
      return reply.code(204).send(null);
    },
  );

  api.get(
    '/links/:id/shares',
    {
      onRequest: manage,
      schema: {
        summary: 'List the users the link is shared with, oldest first',
        tags: ['Shares'],
        security: BEARER,
        params: LinkParams,
        response: { 200: Type.Array(ref(ShareSchema), { description: 'Bare array of shares' }), ...errorResponses(401, 403, 404, 500) },
      },
    },
    async (req) => (await store.shares.list(requestLink(req).link.id)).map(toShareResource),
  );

  api.post(
    '/links/:id/shares',
    {
      onRequest: manage,
      schema: {
        summary: 'Share the link with a user by email',
        tags: ['Shares'],
        security: BEARER,
        params: LinkParams,
        body: ref(AddShareSchema),
        response: { 201: ref(ShareSchema, { description: 'The new share' }), ...errorResponses(400, 401, 403, 404, 409, 413, 500) },
      },
    },
    async (req, reply) => {
      const granted = requestLink(req);
      return reply.code(201).send(toShareResource(await links.addShare(granted.actor, granted, req.body.email)));
    },
  );

  api.delete(
    '/links/:id/shares/:uid',
    {
      onRequest: manage,
      schema: {
        summary: 'Stop sharing the link with a user',
        tags: ['Shares'],
        security: BEARER,
        params: MemberParams,
        response: { 204: Type.Null({ description: 'Removed' }), ...errorResponses(401, 403, 404, 500) },
      },
    },
    async (req, reply) => {
      if (!isUuid(req.params.uid)) return sendApiError(reply, 'NOT_FOUND', 'share not found');
      const granted = requestLink(req);
      await links.removeShare(granted.actor, granted, req.params.uid);
      return reply.code(204).send(null);
    },
  );
}
