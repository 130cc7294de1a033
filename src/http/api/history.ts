import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { pageLimit } from '../../domain/keysetCursor.js';
import { fullLinkResource, HISTORY_KINDS, toAuditEventResource, toHistoryEventResource, type LinkService } from '../../links/index.js';
import type { Store } from '../../store/index.js';
import { requestActor } from '../shared/actor.js';
import { errorResponses } from './errors.js';
import { adminOnly, BEARER, requestLink, requireLinkCap } from './guards.js';
import { AuditPageSchema, HistoryPageSchema } from './schemas/history.js';
import { LinkIdParams } from './links.js';
import { LinkSchema } from './schemas/links.js';
import { DocumentedEnum, ref } from './schemas/ref.js';
import { OPAQUE } from './validation.js';

/**
 * Link history and the admin audit (docs/api.md#link-history, docs/history.md):
 * reads go through the links layer, which applies who-sees-what; the routes
 * only translate. Checks run in the usual order: 401 → 404 → 403 → 400.
 */

const HistoryPageQuery = {
  limit: Type.Optional(Type.String({ description: 'page size: default 50, at most 200; a non-integer, zero or negative value means 50' })),
  cursor: Type.Optional(
    Type.String({ description: '`next_cursor` of the previous page; anything this server did not issue is a 400', [OPAQUE]: true }),
  ),
};

export function registerHistoryRoutes(app: FastifyInstance, deps: { store: Pick<Store, 'health' | 'now'>; links: LinkService }): void {
  const { store, links } = deps;
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.get(
    '/links/:id/history',
    {
      onRequest: requireLinkCap(deps, 'canView'),
      schema: {
        operationId: 'getLinkHistory',
        summary: 'The history of a link, newest first (people of member events only with CanManageShares)',
        tags: ['Links'],
        security: BEARER,
        params: LinkIdParams,
        querystring: Type.Object(HistoryPageQuery),
        response: { 200: ref(HistoryPageSchema, { description: 'A page of events' }), ...errorResponses(400, 401, 403, 404, 500) },
      },
    },
    async (req) => {
      const granted = requestLink(req);
      const page = await links.history(granted.actor, granted, { limit: pageLimit(req.query.limit), cursor: req.query.cursor });
      return { events: page.events.map(toHistoryEventResource), next_cursor: page.nextCursor };
    },
  );

  api.post(
    '/links/:id/history/:event_id/restore',
    {
      onRequest: requireLinkCap(deps, 'canEdit'),
      schema: {
        operationId: 'restoreLinkVersion',
        summary: 'Put a link’s fields back to what they were right after one of its events',
        description:
          'Recorded as one `restored` event. 404 for an event of another link, 400 `NOT_RESTORABLE` for a member event, ' +
          '409 `RESTORE_CONFLICT` when today’s rules refuse the version’s values (an expiry now past); nothing changes on refusal.',
        tags: ['Links'],
        security: BEARER,
        params: Type.Object({ id: Type.String({ description: 'link id' }), event_id: Type.String({ description: 'event id' }) }),
        response: {
          200: ref(LinkSchema, { description: 'The link as restored, with health' }),
          ...errorResponses([400, 'BAD_REQUEST', 'NOT_RESTORABLE'], 401, 403, 404, [409, 'RESTORE_CONFLICT', 'ALIAS_CONFLICT'], 500),
        },
      },
    },
    async (req) => {
      const granted = requestLink(req);
      return fullLinkResource(store, await links.restore(granted.actor, granted, req.params.event_id));
    },
  );

  api.get(
    '/admin/events',
    {
      onRequest: adminOnly(),
      schema: {
        operationId: 'listLinkEvents',
        summary: 'Every link event of the instance, deleted links’ included, newest first',
        tags: ['Admin'],
        security: BEARER,
        querystring: Type.Object({
          ...HistoryPageQuery,
          slug: Type.Optional(Type.String({ description: 'only this link slug (case-insensitive), also of links deleted since' })),
          actor: Type.Optional(Type.String({ description: 'only changes by the user with this email (trimmed, case-insensitive)' })),
          kind: Type.Optional(
            DocumentedEnum(HISTORY_KINDS, {
              description: 'only this kind of event, e.g. `updated` or `deleted`; an unknown kind is a 400',
            }),
          ),
        }),
        response: { 200: ref(AuditPageSchema, { description: 'A page of events' }), ...errorResponses(400, 401, 403, 500) },
      },
    },
    async (req) => {
      const q = req.query;
      const page = await links.auditEvents(requestActor(req), {
        slug: q.slug,
        actor: q.actor,
        kind: q.kind,
        limit: pageLimit(q.limit),
        cursor: q.cursor,
      });
      return { events: page.events.map(toAuditEventResource), next_cursor: page.nextCursor };
    },
  );
}
