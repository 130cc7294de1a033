import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { requestUser } from '../../auth/currentUser.js';
import { AppError } from '../../domain/errors.js';
import { decodeCursor, encodeCursor, pageLimit, suggestLimit } from '../../domain/keysetCursor.js';
import { expiryFromRfc3339 } from '../../domain/linkInput.js';
import { fullLinkResource, linkResources, viewVersion, type LinkService } from '../../links/index.js';
import type { Store } from '../../store/index.js';
import type { LinkScope } from '../../store/links.js';
import { viewerOf, type Viewer } from '../../store/types.js';
import { etagOf, IfMatchHeaders, ifMatchVersions, IfNoneMatchHeaders, LINK_VERSION_HEADERS, noneMatchHits } from './conditional.js';
import { errorResponses, LINK_FIELD_CODES } from './errors.js';
import { idempotent, IdempotencyHeaders } from './idempotency.js';
import { requestActor } from '../shared/actor.js';
import { BEARER, requestLink, requireLinkCap } from './guards.js';
import { CreateLinkSchema, FULL_UPDATE_FIELDS, LinkListSchema, LinkSchema, SuggestLinksSchema, UpdateLinkSchema } from './schemas/links.js';
import { ref } from './schemas/ref.js';
import { OPAQUE } from './validation.js';

/**
 * Links: list, create, autocomplete, read, update, delete
 * (docs/api.md#link-endpoints, docs/links.md#autocomplete-and-search, docs/lifecycle.md#lifecycle-over-rest-and-mcp). Authorization is LinkCaps through
 * `requireLinkCap` and `store.health.visibleTo`; nothing here decides who
 * may see or change what.
 */

export const LinkIdParams = Type.Object({ id: Type.String({ description: 'link id' }) });

export const PageQueryFields = {
  limit: Type.Optional(Type.String({ description: 'page size: default 50, at most 200; a non-integer, zero or negative value means 50' })),
  cursor: Type.Optional(
    Type.String({ description: '`next_cursor` of the previous page; a malformed cursor starts again at the first page', [OPAQUE]: true }),
  ),
};

/** One keyset page of links in slug order (docs/api.md#pagination). */
export async function linkPage(
  store: Pick<Store, 'discovery' | 'health' | 'links' | 'now'>,
  scope: LinkScope,
  viewer: Viewer,
  query: { limit?: string; cursor?: string },
) {
  const after = decodeCursor(query.cursor);
  const page = await store.links.list({ scope, viewer, afterSlug: after?.key, limit: pageLimit(query.limit) });
  const last = page.links[page.links.length - 1];
  return {
    links: await linkResources(store, page.links, viewer),
    next_cursor: page.hasMore && last ? encodeCursor({ key: last.slug, id: last.id }) : null,
  };
}

export function registerLinkRoutes(
  app: FastifyInstance,
  deps: { store: Pick<Store, 'discovery' | 'health' | 'idempotency' | 'links' | 'now'>; links: LinkService },
): void {
  const { store, links } = deps;
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const retrySafe = idempotent(deps);

  api.get(
    '/links',
    {
      schema: {
        operationId: 'listLinks',
        summary: 'List links: the caller’s own and shared ones (admins: all), or every visible link with one destination',
        tags: ['Links'],
        security: BEARER,
        querystring: Type.Object({
          ...PageQueryFields,
          url: Type.Optional(
            Type.String({
              description:
                'exact destination: lists the caller’s links and other users’ public links with this URL, newest first, unpaginated',
            }),
          ),
        }),
        response: { 200: ref(LinkListSchema, { description: 'A page of links in slug order' }), ...errorResponses(400, 401, 500) },
      },
    },
    async (req) => {
      const viewer = viewerOf(requestUser(req));
      if (req.query.url !== undefined) {
        return { links: await linkResources(store, await store.links.withUrl(req.query.url, viewer), viewer), next_cursor: null };
      }
      return linkPage(store, viewer?.isAdmin ? 'all' : 'member', viewer, req.query);
    },
  );

  api.post(
    '/links',
    {
      ...retrySafe,
      schema: {
        operationId: 'createLink',
        summary: 'Create a link owned by the caller',
        tags: ['Links'],
        security: BEARER,
        headers: IdempotencyHeaders,
        body: ref(CreateLinkSchema),
        response: {
          201: ref(LinkSchema, { description: 'The new link' }),
          ...errorResponses(
            [400, ...LINK_FIELD_CODES, 'INVALID_SLUG'],
            401,
            [409, 'SLUG_CONFLICT', 'ALIAS_CONFLICT', 'IDEMPOTENCY_KEY_IN_USE'],
            413,
            422,
            500,
          ),
        },
      },
    },
    async (req, reply) => {
      const body = req.body;
      const view = await links.create(requestActor(req), {
        slug: body.slug,
        url: body.url,
        title: body.title,
        description: body.description,
        visibility: body.visibility,
        tags: body.tags,
        expiresAt: expiryFromRfc3339(body.expires_at),
        healthChecksDisabled: body.health_checks_disabled,
        aliases: body.aliases,
        forwardPathAndQuery: body.forward_path_and_query,
        defaultUrl: body.default_url,
      });
      return reply.code(201).send(await fullLinkResource(store, view));
    },
  );

  api.get(
    '/links/suggest',
    {
      schema: {
        operationId: 'suggestSlugs',
        summary: 'Autocomplete: slugs matching a typed prefix, substring, title or near miss',
        tags: ['Links'],
        security: BEARER,
        querystring: Type.Object({
          q: Type.Optional(
            Type.String({ description: 'what was typed; lower-cased and cut to 64 characters; empty gives no suggestions' }),
          ),
          limit: Type.Optional(Type.String({ description: 'positive integer, default 5, values above 10 mean 10' })),
        }),
        response: { 200: ref(SuggestLinksSchema, { description: 'Suggestions, best first' }), ...errorResponses(400, 401, 500) },
      },
    },
    async (req) => {
      const limit = suggestLimit(req.query.limit);
      if (limit === null) throw new AppError('BAD_REQUEST', 'limit must be a positive integer', 'limit');
      return { suggestions: await store.discovery.suggest(req.query.q ?? '', viewerOf(requestUser(req)), limit) };
    },
  );

  api.get(
    '/links/:id',
    {
      onRequest: requireLinkCap(deps, 'canView'),
      schema: {
        operationId: 'getLink',
        summary: 'Get one link (owners, co-owners, share recipients, admins)',
        tags: ['Links'],
        security: BEARER,
        params: LinkIdParams,
        headers: IfNoneMatchHeaders,
        response: {
          200: ref(LinkSchema, { description: 'The link, with health', headers: LINK_VERSION_HEADERS }),
          304: Type.Null({ description: 'Not modified: the link is still at the version `If-None-Match` names' }),
          ...errorResponses(401, 403, 404, 500),
        },
      },
    },
    async (req, reply) => {
      const view = await store.links.view(requestLink(req).link.id);
      if (!view) throw new AppError('NOT_FOUND', 'link not found');
      const version = viewVersion(view);
      reply.header('etag', etagOf(version));
      // No body at all: a 304 carries none, and a typed null would be written as `null`.
      if (noneMatchHits(req.headers['if-none-match'], version)) return (reply as FastifyReply).code(304).send();
      return fullLinkResource(store, view);
    },
  );

  api.put(
    '/links/:id',
    {
      onRequest: requireLinkCap(deps, 'canEdit'),
      schema: {
        operationId: 'updateLink',
        summary: 'Update a link, or only archive/unarchive it or toggle its health checks',
        tags: ['Links'],
        security: BEARER,
        params: LinkIdParams,
        headers: IfMatchHeaders,
        body: ref(UpdateLinkSchema),
        response: {
          200: ref(LinkSchema, { description: 'The updated link, with health', headers: LINK_VERSION_HEADERS }),
          ...errorResponses([400, ...LINK_FIELD_CODES], 401, 403, 404, [409, 'ALIAS_CONFLICT'], 412, 413, 500),
        },
      },
    },
    async (req, reply) => {
      const granted = requestLink(req);
      const body = req.body;
      const toggles = {
        archived: body.archived,
        healthChecksDisabled: body.health_checks_disabled,
        aliases: body.aliases,
        forwardPathAndQuery: body.forward_path_and_query,
        defaultUrl: body.default_url,
      };
      const togglesOnly = !FULL_UPDATE_FIELDS.some((f) => body[f] !== undefined) && Object.values(toggles).some((v) => v !== undefined);
      // A body with only the fields that change just themselves touches nothing else. Anything
      // else is a full update: it needs url and replaces title, description and tags; omitted or
      // empty visibility keeps the stored one, omitted aliases and forwarding keep theirs.
      const changes = togglesOnly
        ? toggles
        : {
            url: body.url ?? '',
            title: body.title ?? '',
            description: body.description ?? '',
            tags: body.tags ?? [],
            visibility: body.visibility,
            expiresAt: expiryFromRfc3339(body.expires_at),
            ...toggles,
          };
      const updated = await links.update(granted.actor, granted, changes, ifMatchVersions(req.headers['if-match']));
      reply.header('etag', etagOf(viewVersion(updated)));
      return fullLinkResource(store, updated);
    },
  );

  api.delete(
    '/links/:id',
    {
      onRequest: requireLinkCap(deps, 'canDelete'),
      schema: {
        operationId: 'deleteLink',
        summary: 'Delete a link with its owners, tags, shares, clicks and health',
        tags: ['Links'],
        security: BEARER,
        params: LinkIdParams,
        headers: IfMatchHeaders,
        response: { 204: Type.Null({ description: 'Deleted; the slug is free again' }), ...errorResponses(401, 403, 404, 412, 500) },
      },
    },
    async (req, reply) => {
      const granted = requestLink(req);
      await links.delete(granted.actor, granted, ifMatchVersions(req.headers['if-match']));
      return reply.code(204).send(null);
    },
  );
}
