import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { requestUser } from '../../auth/currentUser.js';
import { decodeCursor, encodeCursor, pageLimit } from '../../domain/keysetCursor.js';
import type { Store } from '../../store/index.js';
import { viewerOf, type LinkView, type Viewer } from '../../store/types.js';
import { errorResponses, sendApiError } from './errors.js';
import { BEARER } from './guards.js';
import { linkResources } from '../../links/index.js';
import { PageQueryFields } from './links.js';
import { LinkListSchema } from './schemas/links.js';
import { ref } from './schemas/ref.js';
import { TagListSchema } from './schemas/tags.js';

/**
 * The tag taxonomy as the caller may see it (docs/api.md#tag-endpoints): counts
 * and link lists only ever include links the caller may discover, so a tag
 * used only on other people's private links looks exactly like one that does
 * not exist.
 */

/** Tag slugs are derived: lower-case letters, digits and hyphens. */
const TAG_SLUG = /^[a-z0-9-]{1,255}$/;

/** Every link with the tag that the viewer may discover, in slug order. */
async function taggedLinks(store: Pick<Store, 'health' | 'links' | 'now' | 'tags'>, tagSlug: string, viewer: Viewer): Promise<LinkView[]> {
  const out: LinkView[] = [];
  let afterSlug: string | undefined;
  for (;;) {
    const page = await store.links.list({ scope: viewer?.isAdmin ? 'all' : 'listed', viewer, tagSlug, afterSlug, limit: 500 });
    out.push(...page.links);
    if (!page.hasMore) return out;
    afterSlug = page.links[page.links.length - 1]!.slug;
  }
}

export function registerTagRoutes(app: FastifyInstance, deps: { store: Pick<Store, 'health' | 'links' | 'now' | 'tags'> }): void {
  const { store } = deps;
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.get(
    '/tags',
    {
      schema: {
        operationId: 'listTags',
        summary: 'List tags with the number of links the caller may see',
        tags: ['Tags'],
        security: BEARER,
        querystring: Type.Object(PageQueryFields),
        response: { 200: ref(TagListSchema, { description: 'A page of tags ordered by name' }), ...errorResponses(400, 401, 500) },
      },
    },
    async (req) => {
      const after = decodeCursor(req.query.cursor);
      const page = await store.tags.page(viewerOf(requestUser(req)), {
        after: after ? { name: after.key, id: after.id } : undefined,
        limit: pageLimit(req.query.limit),
      });
      const last = page.tags[page.tags.length - 1];
      return {
        tags: page.tags.map((t) => ({ slug: t.slug, name: t.name, link_count: t.linkCount })),
        next_cursor: page.hasMore && last ? encodeCursor({ key: last.name, id: last.id }) : null,
      };
    },
  );

  api.get(
    '/tags/:slug/links',
    {
      schema: {
        operationId: 'listTagLinks',
        summary: 'Links carrying a tag that the caller may see',
        tags: ['Tags'],
        security: BEARER,
        params: Type.Object({ slug: Type.String({ description: 'tag slug, e.g. `engineering-tools`' }) }),
        response: {
          200: ref(LinkListSchema, { description: 'Every visible link with the tag, in slug order; `next_cursor` is always null' }),
          ...errorResponses(400, 401, 404, 500),
        },
      },
    },
    async (req, reply) => {
      const viewer = viewerOf(requestUser(req));
      const tag = TAG_SLUG.test(req.params.slug) ? await store.tags.findBySlug(req.params.slug) : null;
      const links = tag ? await taggedLinks(store, tag.slug, viewer) : [];
      // A tag with nothing the caller may see answers exactly like a missing one; admins see
      // every link, so for them only a missing tag is a 404.
      if (!tag || (links.length === 0 && !viewer?.isAdmin)) return sendApiError(reply, 'NOT_FOUND', 'tag not found');
      return { links: await linkResources(store, links, viewer), next_cursor: null };
    },
  );
}
