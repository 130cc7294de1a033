import type { FastifyInstance } from 'fastify';
import { requestUser } from '../../auth/currentUser.js';
import { requireUser } from './guards.js';
import { isStalenessFilter, stalenessHint } from '../../store/staleness.js';
import { viewerOf } from '../../store/types.js';
import {
  DASHBOARD_PAGE_SIZE,
  DashboardPage,
  LinkList,
  type DashboardFilter,
  type DashboardSort,
  type LinkListProps,
} from '../../views/pages/dashboard.js';
import { isHtmx, pageContext, sendHtml } from './render.js';
import { linkRows, pageParam, query, tableEnv, type WebDeps } from './support.js';

function parseFilter(v: string): DashboardFilter | null {
  return v === 'shared' || v === 'groups' || isStalenessFilter(v) ? v : null;
}

/**
 * `GET /dashboard` (docs/web-ui.md#landing-and-dashboard): the viewer's own and co-owned links (every
 * link for an admin), or one filter: shared with me, links of my groups, stale, never clicked.
 * Precedence when combined: filter > tag > q. `sort`: `name` or `recent` (last click first), by
 * default `recent` for an admin and `name` for everyone else. HTMX gets `#link-list` only.
 */
export function registerDashboardRoutes(app: FastifyInstance, deps: WebDeps): void {
  const { store, config } = deps;

  app.get('/dashboard', { preHandler: requireUser(deps) }, async (req, reply) => {
    const user = requestUser(req);
    const viewer = viewerOf(user);
    const filter = parseFilter(query(req, 'filter'));
    const tag = filter === null ? query(req, 'tag').trim() || null : null;
    const q = filter === null && tag === null ? query(req, 'q').trim() : '';
    const pageNo = pageParam(req);
    const scope = user.role === 'admin' ? 'all' : 'owned';
    // An admin's list is every link: the ones in use now come first unless they ask for names.
    const defaultSort: DashboardSort = user.role === 'admin' ? 'recent' : 'name';
    const asked = query(req, 'sort');
    const sort: DashboardSort = asked === 'recent' || asked === 'name' ? asked : defaultSort;
    const order = sort === 'recent' ? 'recent' : 'slug';
    const limit = DASHBOARD_PAGE_SIZE;
    const offset = (pageNo - 1) * limit;

    let page;
    if (filter === 'shared') page = await store.links.page({ scope: 'shared', viewer, limit }, offset, order);
    else if (filter === 'groups') page = await store.links.page({ scope: 'groups', viewer, limit }, offset, order);
    else if (filter !== null) page = await store.staleness.page(filter, viewer, { offset, limit });
    else if (tag !== null) page = await store.links.page({ scope, viewer, tagSlug: tag, limit }, offset, order);
    else page = await store.links.page({ scope, viewer, q, limit }, offset, order);

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
      page: pageNo,
      total: page.total,
      // The staleness filters keep their own order (docs/lifecycle.md#staleness).
      sort: filter === 'stale' || filter === 'never-clicked' ? null : sort,
      defaultSort,
      hint: filter === 'stale' || filter === 'never-clicked' ? stalenessHint(filter, config.clickRetentionDays !== null) : null,
    };
    if (isHtmx(req)) return sendHtml(req, reply, ctx, 'My Links', <LinkList {...list} />);
    return sendHtml(req, reply, ctx, 'My Links', <DashboardPage list={list} isAdmin={user.role === 'admin'} />);
  });
}
