import type { FastifyInstance } from 'fastify';
import { requestUser } from '../../auth/currentUser.js';
import { DAY_MS } from '../../domain/timeseries.js';
import { formatDate } from '../../views/format.js';
import { LinkDetail } from '../../views/pages/linkDetail.js';
import { LinkRow, RENEW_FROM, type RenewFrom } from '../../views/partials/linkTable.js';
import { RENEW_DAYS } from '../../views/partials/renewChoices.js';
import { requireUser } from './guards.js';
import { linkDetailProps } from './linkDetail.js';
import { pageContext } from './render.js';
import { field, linkFor, linkRows, seeOther, sendWithToast, shortName, tableEnv, wantsFragment, type WebDeps } from './support.js';

/**
 * Archive, unarchive and renew (docs/lifecycle.md#archive, docs/lifecycle.md#renewal), from the
 * link page and from every link list; each answer re-renders the place its button sat in.
 */
export function registerLinkLifecycleRoutes(app: FastifyInstance, deps: WebDeps): void {
  const { store, links } = deps;
  const guard = { preHandler: requireUser(deps) };

  for (const action of ['archive', 'unarchive'] as const) {
    app.post(`/dashboard/links/:id/${action}`, guard, async (req, reply) => {
      const got = await linkFor(deps, req, reply, 'canEdit');
      if (!got) return reply;
      await (action === 'archive' ? links.archive(got.actor, got) : links.unarchive(got.actor, got));
      const name = shortName(deps, req, got.link.slug);
      const message = action === 'archive' ? `Archived ${name}. It no longer redirects.` : `Unarchived ${name}. It redirects again.`;
      if (!wantsFragment(req)) return seeOther(reply, `/dashboard/links/${got.link.id}`, message);
      const props = await linkDetailProps(deps, req, got.link, got.caps);
      return sendWithToast(reply, <LinkDetail {...props} />, message);
    });
  }

  app.post('/dashboard/links/:id/renew', guard, async (req, reply) => {
    const got = await linkFor(deps, req, reply, 'canEdit');
    if (!got) return reply;
    const days = RENEW_DAYS.find((d) => String(d) === field(req, 'days')) ?? null;
    // Whole seconds, as every stored expiry (docs/lifecycle.md#expiry).
    const until = days === null ? null : Math.floor((store.now() + days * DAY_MS) / 1000) * 1000;
    const view = await links.renew(got.actor, got, until);
    // The answer re-renders the place the button sat in (docs/lifecycle.md#renewal).
    const from = renewFrom(field(req, 'from'), got.user.role === 'admin');
    const name = shortName(deps, req, view.slug);
    const message =
      until === null ? `Renewed ${name}. It no longer expires.` : `Renewed ${name} for ${days} days, until ${formatDate(until)}.`;
    if (!wantsFragment(req)) {
      return seeOther(reply, from === 'detail' ? `/dashboard/links/${view.id}` : from === 'admin' ? '/admin/links' : '/dashboard', message);
    }
    if (from === 'detail') {
      const props = await linkDetailProps(deps, req, got.link, got.caps);
      return sendWithToast(reply, <LinkDetail {...props} />, message);
    }
    const ctx = await pageContext(deps, req);
    const [row] = await linkRows(store, [view], requestUser(req));
    return sendWithToast(reply, <LinkRow row={row!} variant={from} env={tableEnv(deps, req, ctx)} />, message);
  });
}

/**
 * The place a Renew form names; anything else is a dashboard row. Admin rows (with the admin
 * table's columns and edit links) are only ever rendered for admins.
 */
function renewFrom(raw: string, isAdmin: boolean): RenewFrom {
  const from = RENEW_FROM.find((f) => f === raw) ?? 'dashboard';
  return from === 'admin' && !isAdmin ? 'dashboard' : from;
}
