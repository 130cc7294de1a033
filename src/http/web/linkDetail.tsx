import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { LinkCaps } from '../../domain/caps.js';
import { isCheckable } from '../../domain/health.js';
import { lifecycleState } from '../../domain/lifecycle.js';
import { VERSION_KINDS, type GrantedLink } from '../../links/index.js';
import type { Link, LinkView } from '../../store/types.js';
import { LinkDetail, type LinkDetailProps } from '../../views/pages/linkDetail.js';
import type { LinkHistoryProps } from '../../views/pages/linkHistory.js';
import { requestActor } from '../shared/actor.js';
import { requireUser } from './guards.js';
import { pageContext, sendHtml } from './render.js';
import { linkFor, type WebDeps } from './support.js';
import { requestOrigin, shortKeyword } from '../shared/requestAddress.js';

/**
 * The link page (docs/web-ui.md#link-detail-page) and its QR code: the link with its health,
 * shares and QR code, and the newest page of its history. The link, lifecycle, member and
 * history routes all answer with it.
 */

export function registerLinkDetailRoutes(app: FastifyInstance, deps: WebDeps): void {
  const { config } = deps;
  const guard = { preHandler: requireUser(deps) };

  app.get('/dashboard/links/:id', guard, async (req, reply) => {
    const got = await linkFor(deps, req, reply, 'canView', { askOwners: true });
    if (!got) return reply;
    return sendLinkDetail(deps, req, reply, await linkDetailProps(deps, req, got.link, got.caps));
  });

  app.get('/dashboard/links/:id/qr.svg', guard, async (req, reply) => {
    const got = await linkFor(deps, req, reply, 'canView');
    if (!got) return reply;
    const svg = await qrCode(`${requestOrigin(config, req)}/${got.link.slug}`);
    return reply
      .type('image/svg+xml; charset=utf-8')
      .header('content-disposition', `attachment; filename="${got.link.slug}-qr.svg"`)
      .header('cache-control', 'private, no-store')
      .send(svg);
  });
}

/** Events per page of the link page's history. */
export const HISTORY_PAGE_SIZE = 20;

/**
 * One page of the link's history as the viewer may see it: read through the links layer,
 * which hides the people of member events from those without CanManageShares.
 */
export async function linkHistoryProps(
  deps: WebDeps,
  req: FastifyRequest,
  granted: GrantedLink,
  opts: { cursor?: string; refusal?: LinkHistoryProps['refusal'] } = {},
): Promise<LinkHistoryProps> {
  const page = await deps.links.history(granted.actor, granted, { limit: HISTORY_PAGE_SIZE, cursor: opts.cursor });
  return {
    linkId: granted.link.id,
    events: page.events,
    nextCursor: page.nextCursor,
    newest: opts.cursor === undefined,
    canRestore: granted.caps.canEdit,
    versionKinds: VERSION_KINDS,
    shortKeyword: shortKeyword(deps.config, req),
    refusal: opts.refusal ?? null,
  };
}

export async function linkDetailProps(
  deps: WebDeps,
  req: FastifyRequest,
  link: Link,
  caps: LinkCaps,
  extra: Partial<LinkDetailProps> = {},
): Promise<LinkDetailProps> {
  const { store, config } = deps;
  const view = (await store.links.view(link.id))!;
  const ctx = await pageContext(deps, req);
  const origin = requestOrigin(config, req);
  const granted: GrantedLink = { outcome: 'ok', link, caps, actor: requestActor(req) };
  const sharePanel = caps.canManageShares && view.visibility === 'secure';
  const [health, shares, ownerGroups, shareGroups, qrSvg, history] = await Promise.all([
    healthSectionProps(deps, view, caps),
    sharePanel ? store.shares.list(view.id) : Promise.resolve(null),
    store.groups.ofLinks('owner', [view.id]).then((m) => m.get(view.id) ?? []),
    sharePanel ? store.groups.ofLinks('share', [view.id]).then((m) => m.get(view.id) ?? []) : Promise.resolve(null),
    qrCode(`${origin}/${view.slug}`),
    extra.history ? Promise.resolve(extra.history) : linkHistoryProps(deps, req, granted),
  ]);
  return {
    link: view,
    caps,
    state: lifecycleState(view, store.now()),
    ...health,
    shares,
    ownerGroups,
    shareGroups,
    shortKeyword: ctx.shortKeyword,
    origin,
    qrSvg,
    now: store.now(),
    ...extra,
    history,
  };
}

/** The health line's facts and whether the viewer may recheck it (docs/lifecycle.md#recheck-now). */
export async function healthSectionProps(
  deps: Pick<WebDeps, 'store' | 'config'>,
  view: LinkView,
  caps: LinkCaps,
): Promise<Pick<LinkDetailProps, 'health' | 'healthError' | 'canRecheck' | 'checksOff'>> {
  const { store, config } = deps;
  const health = await store.health.forLink(view);
  // A broken link's page names what went wrong (docs/web-ui.md#link-detail-page).
  const healthError = health.status === 'broken' ? ((await store.health.row(view.id))?.lastError ?? null) : null;
  // Only where a probe would be sent: checks on for this server, a link the checker visits.
  const canRecheck = caps.canEdit && config.healthChecks.enabled && isCheckable(view, store.now());
  return { health, healthError, canRecheck, checksOff: !config.healthChecks.enabled };
}

export async function sendLinkDetail(
  deps: WebDeps,
  req: FastifyRequest,
  reply: FastifyReply,
  props: LinkDetailProps,
  status = 200,
): Promise<FastifyReply> {
  return sendHtml(req, reply, await pageContext(deps, req), props.link.slug, <LinkDetail {...props} />, status);
}

/**
 * The QR code of a short URL as SVG. It holds only geometry (the URL is
 * encoded in the modules, never written as text), so it is safe to inline.
 */
export async function qrCode(url: string): Promise<string> {
  // Loaded at the first QR code drawn, not by every process that serves pages.
  const { default: QRCode } = await import('qrcode');
  return QRCode.toString(url, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' });
}
