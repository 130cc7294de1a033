import type { FastifyInstance } from 'fastify';
import { requestUser } from '../../auth/currentUser.js';
import { requireUser } from './guards.js';
import { isStalenessFilter, stalenessHint } from '../../store/staleness.js';
import { viewerOf } from '../../store/types.js';
import { DashboardPage, LinkList, type DashboardFilter, type LinkListProps } from '../../views/pages/dashboard.js';
import { isHtmx, pageContext, sendHtml } from './render.js';
import { linkRows, query, tableEnv, type WebDeps } from './support.js';

const PAGE_SIZE = 50;

function parseFilter(v: string): DashboardFilter | null {
  return v === 'shared' || isStalenessFilter(v) ? v : null;
}

/**
 * `GET /dashboard` (docs/web-ui.md#landing-and-dashboard): the viewer's own and co-owned links (every
 * link for an admin), or one filter: shared with me, stale, never clicked.
 * Precedence when combined: filter > tag > q. HTMX gets `#link-list` only.
 */
export function registerDashboardRoutes(app: FastifyInstance, deps: WebDeps): void {
  const { store, config } = deps;

  app.get('/dashboard', { preHandler: requireUser(deps) }, async (req, reply) => {
    const user = requestUser(req);
    const viewer = viewerOf(user);
    const filter = parseFilter(query(req, 'filter'));
    const tag = filter === null ? query(req, 'tag').trim() || null : null;
    const q = filter === null && tag === null ? query(req, 'q').trim() : '';
    const after = query(req, 'after') || undefined;
    const scope = user.role === 'admin' ? 'all' : 'owned';

    let page;
    if (filter === 'shared') page = await store.links.list({ scope: 'shared', viewer, afterSlug: after, limit: PAGE_SIZE });
    else if (filter !== null) page = await store.staleness.list(filter, viewer, { afterSlug: after, limit: PAGE_SIZE });
    else if (tag !== null) page = await store.links.list({ scope, viewer, tagSlug: tag, afterSlug: after, limit: PAGE_SIZE });
    else page = await store.links.list({ scope, viewer, q, searchIn: ['slug', 'url', 'description'], afterSlug: after, limit: PAGE_SIZE });

    const ctx = await pageContext(deps, req, user);
    const [rows, tags] = await Promise.all([
      linkRows(store, page.links, user),
      filter === null ? store.browse.dashboardTags(viewer) : Promise.resolve([]),
    ]);
    const list: LinkListProps = {
      rows,
      env: tableEnv(deps, req, ctx),
      filter,
      tag,
      q,
      tags,
      nextAfter: page.hasMore ? (page.links[page.links.length - 1]?.slug ?? null) : null,
      hint: filter === 'stale' || filter === 'never-clicked' ? stalenessHint(filter, config.clickRetentionDays !== null) : null,
    };
    if (isHtmx(req)) return sendHtml(req, reply, ctx, 'My Links', <LinkList {...list} />);
    return sendHtml(req, reply, ctx, 'My Links', <DashboardPage list={list} isAdmin={user.role === 'admin'} />);
  });
}
