import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requestUser } from '../../auth/currentUser.js';
import { requireAdmin } from './guards.js';
import { VISIBILITIES } from '../../domain/caps.js';
import { isAppError } from '../../domain/errors.js';
import { isStalenessFilter, stalenessHint } from '../../store/staleness.js';
import type { LinkView } from '../../store/types.js';
import { viewerOf } from '../../store/types.js';
import {
  AdminLinkEditPage,
  AdminLinkEditRow,
  AdminLinkList,
  AdminLinksPage,
  ADMIN_PAGE_SIZE,
  type AdminEditValues,
  type AdminLinkListProps,
} from '../../views/pages/adminLinks.js';
import { LinkRow } from '../../views/partials/linkTable.js';
import { renderFragment } from '../../views/render.js';
import { webRoute } from './methodOverride.js';
import { hasNul, nulMessage, visibleNul } from '../../domain/nul.js';
import { isHtmx, pageContext, sendHtml } from './render.js';
import {
  field,
  linkFor,
  linkRows,
  pageParam,
  query,
  seeOther,
  sendFragment,
  tableEnv,
  wantsFragment,
  sendWithToast,
  shortName,
  type WebDeps,
} from './support.js';
import { ConfirmDelete } from '../../views/partials/confirmDelete.js';

/**
 * `/admin/links` (docs/web-ui.md#admin-screens): every link in the one link list with its
 * owner column, the one search rule, the staleness filters, inline
 * edit and delete. Admin-only; per-link decisions still go through LinkCaps.
 */
export function registerAdminLinkRoutes(app: FastifyInstance, deps: WebDeps): void {
  const { store, config } = deps;
  const guard = { preHandler: requireAdmin(deps) };

  app.get('/admin/links', guard, async (req, reply) => {
    const user = requestUser(req);
    const viewer = viewerOf(user);
    const rawFilter = query(req, 'filter');
    const filter = isStalenessFilter(rawFilter) ? rawFilter : null;
    const q = filter === null ? query(req, 'q').trim() : '';
    const pageNo = pageParam(req);
    const offset = (pageNo - 1) * ADMIN_PAGE_SIZE;
    const page = filter
      ? await store.staleness.page(filter, viewer, { offset, limit: ADMIN_PAGE_SIZE })
      : await store.links.page({ scope: 'all', viewer, q, limit: ADMIN_PAGE_SIZE }, offset);
    const ctx = await pageContext(deps, req, user);
    const props: AdminLinkListProps = {
      rows: await linkRows(store, page.links, user),
      env: tableEnv(deps, req, ctx),
      q,
      filter,
      page: pageNo,
      total: page.total,
      hint: filter ? stalenessHint(filter, config.clickRetentionDays !== null) : null,
    };
    if (isHtmx(req)) return sendHtml(req, reply, ctx, 'All Links', <AdminLinkList {...props} />);
    return sendHtml(req, reply, ctx, 'All Links', <AdminLinksPage {...props} />);
  });

  const readOnlyRow = async (req: FastifyRequest, view: LinkView) => {
    const ctx = await pageContext(deps, req);
    const [row] = await linkRows(store, [view], requestUser(req));
    return <LinkRow row={row!} variant="admin" env={tableEnv(deps, req, ctx)} />;
  };

  const editReply = async (req: FastifyRequest, reply: FastifyReply, view: LinkView, values: AdminEditValues, error: string | null) => {
    const ctx = await pageContext(deps, req);
    if (wantsFragment(req)) {
      const row = <AdminLinkEditRow link={view} values={values} shortKeyword={ctx.shortKeyword} />;
      // The row stays in edit mode with what was typed; the reason arrives as a toast.
      return error ? sendWithToast(reply, row, { level: 'error', message: error }) : sendFragment(reply, renderFragment(row));
    }
    return sendHtml(
      req,
      reply,
      ctx,
      `Edit ${view.slug}`,
      <AdminLinkEditPage link={view} values={values} shortKeyword={ctx.shortKeyword} error={error} />,
      error ? 400 : 200,
    );
  };

  app.get('/admin/links/:id/edit', guard, async (req, reply) => {
    const got = await linkFor(deps, req, reply, 'canEdit');
    if (!got) return reply;
    const view = (await store.links.view(got.link.id))!;
    return editReply(
      req,
      reply,
      view,
      { url: view.url, title: view.title, description: view.description, visibility: view.visibility },
      null,
    );
  });

  app.get('/admin/links/:id/row', guard, async (req, reply) => {
    const got = await linkFor(deps, req, reply, 'canView');
    if (!got) return reply;
    if (!isHtmx(req)) return seeOther(reply, '/admin/links');
    return sendFragment(reply, renderFragment(await readOnlyRow(req, (await store.links.view(got.link.id))!)));
  });

  webRoute(app, 'PUT', '/admin/links/:id', { ...guard, config: { handlesNul: true } }, async (req, reply) => {
    const got = await linkFor(deps, req, reply, 'canEdit');
    if (!got) return reply;
    const view = (await store.links.view(got.link.id))!;
    const values: AdminEditValues = {
      url: field(req, 'url'),
      title: field(req, 'title'),
      description: field(req, 'description'),
      visibility: field(req, 'visibility'),
    };
    const nul = (['url', 'title', 'description', 'visibility'] as const).find((f) => hasNul(values[f]));
    if (nul) {
      const shown = {
        url: visibleNul(values.url),
        title: visibleNul(values.title),
        description: visibleNul(values.description),
        visibility: visibleNul(values.visibility),
      };
      return editReply(req, reply, view, shown, nulMessage(nul));
    }
    let updated;
    try {
      // An unknown visibility leaves the stored one alone; expiry and tags are not edited here.
      const visibility = (VISIBILITIES as readonly string[]).includes(values.visibility) ? values.visibility : undefined;
      updated = await deps.links.update(got.actor, got, {
        url: values.url,
        title: values.title,
        description: values.description,
        visibility,
      });
    } catch (e) {
      if (isAppError(e) && e.code === 'BAD_REQUEST' && e.field === 'url') return editReply(req, reply, view, values, 'URL is required.');
      if (isAppError(e) && e.status === 400) return editReply(req, reply, view, values, e.message);
      throw e;
    }
    const saved = `Saved ${shortName(deps, req, updated.slug)}.`;
    if (!wantsFragment(req)) return seeOther(reply, '/admin/links', saved);
    return sendWithToast(reply, await readOnlyRow(req, updated), saved);
  });

  app.get('/admin/links/:id/confirm-delete', guard, async (req, reply) => {
    const got = await linkFor(deps, req, reply, 'canDelete');
    if (!got) return reply;
    const id = got.link.id;
    return sendHtml(
      req,
      reply,
      await pageContext(deps, req),
      `Delete ${got.link.slug}`,
      <ConfirmDelete
        name={got.link.slug}
        action={`/admin/links/${id}`}
        target={`#link-${id}`}
        asModal={isHtmx(req)}
        cancelHref="/admin/links"
      />,
    );
  });

  webRoute(app, 'DELETE', '/admin/links/:id', guard, async (req, reply) => {
    const got = await linkFor(deps, req, reply, 'canDelete');
    if (!got) return reply;
    await deps.links.delete(got.actor, got);
    const deleted = `Deleted ${shortName(deps, req, got.link.slug)}.`;
    if (wantsFragment(req)) return sendWithToast(reply, null, deleted);
    return seeOther(reply, '/admin/links', deleted);
  });
}
