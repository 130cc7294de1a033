import type { FastifyInstance, FastifyRequest } from 'fastify';
import { currentUser } from '../../auth/currentUser.js';
import { BrowsePage, ProfileNotFound, ProfilePage, PublicLinkList, PUBLIC_PAGE_SIZE } from '../../views/pages/browse.js';
import type { LinkRowData } from '../../views/partials/linkTable.js';
import { NO_CAPS } from '../../domain/caps.js';
import type { LinkView } from '../../store/types.js';
import { isHtmx, pageContext, sendHtml } from './render.js';
import { param, query, tableEnv, type WebDeps } from './support.js';

/** `page`: a positive integer, anything else is page 1 (docs/web-ui.md#public-browser-and-profiles). */
function pageParam(req: FastifyRequest): number {
  const raw = query(req, 'page');
  if (!/^\d{1,9}$/.test(raw)) return 1;
  const n = Number(raw);
  return n >= 1 ? n : 1;
}

/**
 * Public rows carry no capabilities and no health: the public browser and
 * profiles show neither actions nor lifecycle/health badges, for anyone.
 */
function publicRows(links: readonly LinkView[]): LinkRowData[] {
  return links.map((link) => ({ link, caps: NO_CAPS, state: 'active', health: null }));
}

/** The public link browser and user profiles: optional sign-in, public active links only. */
export function registerBrowseRoutes(app: FastifyInstance, deps: WebDeps): void {
  const { store } = deps;

  app.get('/links', async (req, reply) => {
    const user = await currentUser(req, store);
    const q = query(req, 'q').trim();
    const page = pageParam(req);
    const found = await store.browse.publicLinks({ q, offset: (page - 1) * PUBLIC_PAGE_SIZE, limit: PUBLIC_PAGE_SIZE });
    const ctx = await pageContext(deps, req, user);
    const props = { rows: publicRows(found.links), env: tableEnv(deps, req, ctx), q, page, total: found.total };
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
        rows={publicRows(found.links)}
        env={tableEnv(deps, req, ctx)}
        page={page}
        total={found.total}
      />,
    );
  });
}
