import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isAppError, type AppError } from '../../domain/errors.js';
import { HISTORY_KINDS, VERSION_KINDS, type HistoryPage } from '../../links/index.js';
import { formatDateTimeSeconds } from '../../views/format.js';
import { AdminAuditPage, type AuditFilterValues } from '../../views/pages/adminAudit.js';
import { LinkDetail } from '../../views/pages/linkDetail.js';
import { LinkHistoryItems, LinkHistoryPage, type LinkHistoryProps } from '../../views/pages/linkHistory.js';
import { RestoreNote, versionName } from '../../views/partials/history.js';
import { renderFragment } from '../../views/render.js';
import { requestActor } from '../shared/actor.js';
import { requireAdmin, requireUser } from './guards.js';
import { linkDetailProps, linkHistoryProps, sendLinkDetail } from './linkDetail.js';
import { isHtmx, pageContext, sendHtml } from './render.js';
import {
  linkFor,
  notFound,
  param,
  query,
  seeOther,
  sendFragment,
  sendWithToast,
  shortName,
  wantsFragment,
  type WebDeps,
} from './support.js';
import { shortKeyword } from '../shared/requestAddress.js';

/**
 * Link history in the browser (docs/history.md#web-pages): older pages of a link's timeline,
 * Restore on each version, and the admin audit. Reads and restores go through the same
 * links-layer functions as REST and MCP, so who sees whom in member events and what a
 * restore may do are decided there, once.
 */

/** Events per page of the audit. */
const AUDIT_PAGE_SIZE = 50;

/** Why a version cannot be restored, in the words of docs/history.md#restoring-a-version. */
function refusalMessage(e: AppError): string {
  const rule = e.message.replace(/^this version cannot be restored: /, '');
  let reason: string;
  if (e.code === 'NOT_RESTORABLE') reason = 'it changed who has the link, not the link itself';
  else if (e.code === 'ALIAS_CONFLICT') reason = `one of its aliases now belongs to another link (${rule})`;
  else if (e.field === 'expires_at') reason = 'its expiry date has passed since';
  else if (e.field === 'url') reason = `its destination is no longer accepted (${rule})`;
  else if (e.field === 'visibility') reason = `its visibility is no longer allowed (${rule})`;
  else if (e.field === 'slug') reason = `its name is no longer allowed (${rule})`;
  else reason = rule;
  return `This version can’t be restored: ${reason}. Nothing was changed.`;
}

function isRefusal(e: unknown): e is AppError {
  return isAppError(e) && (e.code === 'RESTORE_CONFLICT' || e.code === 'ALIAS_CONFLICT' || e.code === 'NOT_RESTORABLE');
}

/** The restore a page of history shows right after it was made; null when nothing was recorded (the version was the link as it is). */
function restoredAt(page: Pick<LinkHistoryProps, 'events'>, eventId: string): number | null {
  const newest = page.events[0];
  return newest?.kind === 'restored' && newest.restores?.eventId === eventId ? newest.restores.at : null;
}

function auditFilter(req: FastifyRequest): AuditFilterValues {
  return { slug: query(req, 'slug').trim(), actor: query(req, 'actor').trim(), kind: query(req, 'kind').trim() };
}

export function registerHistoryRoutes(app: FastifyInstance, deps: WebDeps): void {
  const { store, links } = deps;
  const guard = { preHandler: requireUser(deps) };

  // A page of older events: the items for the "Show older" control, or a page of its own without JavaScript.
  app.get('/dashboard/links/:id/history', guard, async (req, reply) => {
    const got = await linkFor(deps, req, reply, 'canView');
    if (!got) return reply;
    const cursor = query(req, 'cursor') || undefined;
    const history = await linkHistoryProps(deps, req, got, { cursor });
    if (isHtmx(req)) return sendFragment(reply, renderFragment(<LinkHistoryItems {...history} />));
    const ctx = await pageContext(deps, req);
    return sendHtml(req, reply, ctx, `History of ${got.link.slug}`, <LinkHistoryPage {...history} slug={got.link.slug} />);
  });

  app.post('/dashboard/links/:id/history/:event_id/restore', guard, async (req, reply) => {
    const got = await linkFor(deps, req, reply, 'canEdit');
    if (!got) return reply;
    const eventId = param(req, 'event_id');
    try {
      await links.restore(got.actor, got, eventId);
    } catch (e) {
      if (isAppError(e) && e.code === 'NOT_FOUND') return notFound(deps, req, reply, 'That version does not exist.');
      if (!isRefusal(e)) throw e;
      const message = refusalMessage(e);
      // HTMX swaps only 2xx answers: the note goes beside the version with a 200.
      if (wantsFragment(req)) return sendFragment(reply, renderFragment(<RestoreNote message={message} />));
      const history = await linkHistoryProps(deps, req, got, { refusal: { eventId, message } });
      return sendLinkDetail(deps, req, reply, await linkDetailProps(deps, req, got.link, got.caps, { history }), e.status);
    }
    const history = await linkHistoryProps(deps, req, got);
    const at = restoredAt(history, eventId);
    // The version by its name on its Restore button when it is on the first page, else by its time to the second.
    const version = history.events.find((e) => e.id === eventId);
    const message =
      at === null
        ? `${shortName(deps, req, got.link.slug)} already is that version. Nothing changed.`
        : `Restored the version of ${version ? versionName(version) : formatDateTimeSeconds(at)}.`;
    if (!wantsFragment(req)) return seeOther(reply, `/dashboard/links/${got.link.id}`, message);
    // The form aimed at its note; a restore changes the whole page, so the answer replaces it.
    reply.header('hx-retarget', '#link-detail').header('hx-reswap', 'outerHTML');
    const props = await linkDetailProps(deps, req, got.link, got.caps, { history });
    return sendWithToast(reply, <LinkDetail {...props} />, message);
  });

  app.get('/admin/audit', { preHandler: requireAdmin(deps) }, async (req, reply) => {
    const filter = auditFilter(req);
    const older = query(req, 'older') || undefined;
    const newer = older ? undefined : query(req, 'newer') || undefined;
    let page: HistoryPage = { events: [], nextCursor: null, newerCursor: null };
    let error: string | null = null;
    let status = 200;
    try {
      page = await links.auditEvents(requestActor(req), {
        ...filter,
        cursor: older,
        newerThan: newer,
        limit: AUDIT_PAGE_SIZE,
        withPosition: true,
      });
    } catch (e) {
      if (!isAppError(e) || e.status !== 400) throw e;
      error =
        e.field === 'kind'
          ? `There is no kind of event called “${filter.kind}”.`
          : 'That page link is no longer valid. Showing the newest events instead.';
      status = 400;
      if (e.field !== 'kind') page = await links.auditEvents(requestActor(req), { ...filter, limit: AUDIT_PAGE_SIZE, withPosition: true });
    }
    const existing = await store.links.existingIds(page.events.map((e) => e.linkId));
    const ctx = await pageContext(deps, req);
    return sendHtml(
      req,
      reply,
      ctx,
      'Audit',
      <AdminAuditPage
        filter={filter}
        kinds={HISTORY_KINDS}
        events={page.events}
        existing={existing}
        olderCursor={page.nextCursor}
        newerCursor={page.newerCursor}
        position={page.position ?? null}
        versionKinds={VERSION_KINDS}
        shortKeyword={shortKeyword(deps.config, req)}
        error={error}
      />,
      status,
    );
  });
}
