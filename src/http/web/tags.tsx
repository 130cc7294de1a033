import type { FastifyInstance } from 'fastify';
import { requestUser } from '../../auth/currentUser.js';
import { requireUser } from './guards.js';
import { viewerOf } from '../../store/types.js';
import { TagDetail, TagsIndex } from '../../views/pages/tags.js';
import { renderFragment } from '../../views/render.js';
import { pageContext, sendHtml } from './render.js';
import { linkRows, notFound, param, query, sendFragment, tableEnv, type WebDeps } from './support.js';
import { TagSuggestions } from '../../views/partials/tagSuggestions.js';

/** The tag browser and the tag autocomplete (docs/web-ui.md#link-forms, docs/web-ui.md#tag-browser). */
export function registerTagRoutes(app: FastifyInstance, deps: WebDeps): void {
  const { store } = deps;
  const guard = { preHandler: requireUser(deps) };

  app.get('/dashboard/tags', guard, async (req, reply) => {
    const user = requestUser(req);
    // Only tags with at least one link the viewer may see, counting only those (admins: all).
    const tags = await store.tags.listWithCounts(viewerOf(user));
    return sendHtml(req, reply, await pageContext(deps, req, user), 'Tags', <TagsIndex tags={tags} />);
  });

  app.get('/dashboard/tags/suggest', guard, async (req, reply) => {
    const q = query(req, 'q').trim();
    if (q === '') return sendFragment(reply, '');
    const tags = await store.tags.listWithCounts(viewerOf(requestUser(req)), { prefix: q, limit: 10 });
    return sendFragment(reply, tags.length === 0 ? '' : renderFragment(<TagSuggestions names={tags.map((t) => t.name)} />));
  });

  app.get('/dashboard/tags/:slug', guard, async (req, reply) => {
    const user = requestUser(req);
    const viewer = viewerOf(user);
    const tag = await store.tags.findBySlug(param(req, 'slug'));
    if (!tag) return notFound(deps, req, reply, 'No such tag.');
    const isAdmin = user.role === 'admin';
    const page = await store.links.list({ scope: isAdmin ? 'all' : 'listed', viewer, tagSlug: tag.slug, limit: 500 });
    // The store lists expired and archived links only to those who hold them, badged.
    const rows = await linkRows(store, page.links, user);
    // A tag whose links are all hidden from the viewer is indistinguishable from a missing one.
    if (!isAdmin && rows.length === 0) return notFound(deps, req, reply, 'No such tag.');
    const ctx = await pageContext(deps, req, user);
    return sendHtml(req, reply, ctx, tag.name, <TagDetail tag={tag} rows={rows} env={tableEnv(deps, req, ctx)} />);
  });
}
