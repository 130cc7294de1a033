import type { FastifyInstance } from 'fastify';
import { currentUser } from '../../auth/currentUser.js';
import { BrowsePage, ProfileNotFound, ProfilePage, PublicLinkList, PUBLIC_PAGE_SIZE } from '../../views/pages/browse.js';
import { isHtmx, pageContext, sendHtml } from './render.js';
import { linkRows, pageParam, param, query, tableEnv, type WebDeps } from './support.js';

/**
 * The public link browser and user profiles: optional sign-in, public active links only
 * (docs/web-ui.md#public-browser-and-profiles). Rows carry the viewer's own LinkCaps, so a
 * signed-in owner or admin gets their actions and click figures there too.
 */
export function registerBrowseRoutes(app: FastifyInstance, deps: WebDeps): void {
  const { store } = deps;

  app.get('/links', async (req, reply) => {
    const user = await currentUser(req, store);
    const q = query(req, 'q').trim();
    const page = pageParam(req);
    const found = await store.browse.publicLinks({ q, offset: (page - 1) * PUBLIC_PAGE_SIZE, limit: PUBLIC_PAGE_SIZE });
    const ctx = await pageContext(deps, req, user);
    const props = { rows: await linkRows(store, found.links, user), env: tableEnv(deps, req, ctx), q, page, total: found.total };
    if (isHtmx(req)) return sendHtml(req, reply, ctx, 'Browse Links', <PublicLinkList {...props} />);
    return sendHtml(req, reply, ctx, 'Browse Links', <BrowsePage {...props} />);
  });

  app.get('/u/:slug', async (req, reply) => {
    const user = await currentUser(req, store);
    const slug = param(req, 'slug');
    const ctx = await pageContext(deps, req, user);
    const profile = await store.users.findByDisplayNameSlug(slug);
    if (!profile) return sendHtml(req, reply, ctx, 'Not found', <ProfileNotFound slug={slug} />, 404);
    const page = pageParam(req);
    const found = await store.browse.publicLinks({
      primaryOwnerId: profile.id,
      offset: (page - 1) * PUBLIC_PAGE_SIZE,
      limit: PUBLIC_PAGE_SIZE,
    });
    return sendHtml(
      req,
      reply,
      ctx,
      profile.displayName,
      <ProfilePage
        name={profile.displayName}
        slug={profile.displayNameSlug}
        rows={await linkRows(store, found.links, user)}
        env={tableEnv(deps, req, ctx)}
        page={page}
        total={found.total}
      />,
    );
  });
}
