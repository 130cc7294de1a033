import type { FastifyReply, FastifyRequest } from 'fastify';
import type { VNode } from 'preact';
import { requestUser } from '../../auth/currentUser.js';
import type { Config } from '../../config.js';
import { lifecycleState } from '../../domain/lifecycle.js';
import type { Capability, GrantedLink, KeywordService, LinkService, UserService } from '../../links/index.js';
import type { LinkGroup } from '../../store/groups.js';
import type { Store } from '../../store/index.js';
import { viewerOf, type Link, type LinkView, type User } from '../../store/types.js';
import type { PageContext } from '../../views/context.js';
import { Forbidden, PlainNotFound } from '../../views/pages/errors.js';
import type { LinkRowData, LinkTableEnv } from '../../views/partials/linkTable.js';
import { renderFragment } from '../../views/render.js';
import { parsePage } from '../../views/partials/pager.js';
import { isMethodOverride } from './methodOverride.js';
import { errorToastHeader, isHtmx, pageContext, sendHtml, setFlash, toastHeader, type Toast } from './render.js';
import { requestActor } from '../shared/actor.js';
import { requestOrigin, shortKeyword } from '../shared/requestAddress.js';

/** What every web route needs. */
export interface WebDeps {
  config: Config;
  store: Store;
  links: LinkService;
  users: UserService;
  keywords: KeywordService;
}

export function param(req: FastifyRequest, name: string): string {
  return String((req.params as Record<string, string | undefined>)[name] ?? '');
}

/** A query-string value; arrays (repeated keys) take the first. */
export function query(req: FastifyRequest, name: string): string {
  const v = (req.query as Record<string, unknown> | undefined)?.[name];
  if (Array.isArray(v)) return typeof v[0] === 'string' ? v[0] : '';
  return typeof v === 'string' ? v : '';
}

/** A form field; anything but a single string (absent, repeated, JSON object) reads as empty. */
export function field(req: FastifyRequest, name: string): string {
  const v = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' ? v : '';
}

/** An HTML checkbox: present with any non-empty value other than `false`/`0` means checked. */
export function checkbox(req: FastifyRequest, name: string): boolean {
  const v = field(req, name);
  return v !== '' && v !== 'false' && v !== '0' && v !== 'off';
}

/**
 * A request expects the HTMX answer (fragment, HX-Trigger) when HTMX sent it
 * and it is not a plain form post overriding its method, which expects the
 * full page or a 303 (docs/web-ui.md#rendering-conventions).
 */
export function wantsFragment(req: FastifyRequest): boolean {
  return isHtmx(req) && !isMethodOverride(req);
}

/** The answer to a plain form post: `303` to the page to show next, with the message it shows once (docs/web-ui.md#feedback). */
export function seeOther(reply: FastifyReply, location: string, flash?: string): FastifyReply {
  if (flash) setFlash(reply, 'success', flash);
  return reply.code(303).header('location', location).header('cache-control', 'private, no-store').send();
}

/** A link as messages name it: `go/slack` (docs/web-ui.md#feedback). */
export function shortName(deps: Pick<WebDeps, 'config'>, req: FastifyRequest, slug: string): string {
  return `${shortKeyword(deps.config, req)}/${slug}`;
}

export function tableEnv(deps: WebDeps, req: FastifyRequest, ctx: PageContext): LinkTableEnv {
  return { shortKeyword: ctx.shortKeyword, origin: requestOrigin(deps.config, req), viewerId: ctx.user?.id ?? null };
}

/** The styled 404 (page, or fragment + error toast for HTMX). Says nothing about whether a hidden row exists. */
export async function notFound(deps: WebDeps, req: FastifyRequest, reply: FastifyReply, message?: string): Promise<FastifyReply> {
  if (isHtmx(req)) errorToastHeader(reply, message ?? 'Not found.');
  return sendHtml(req, reply, await pageContext(deps, req), 'Not found', <PlainNotFound message={message} />, 404);
}

/** The styled 403; for a secure link it names whom to ask for access (docs/web-ui.md#error-pages). */
export async function forbidden(
  deps: WebDeps,
  req: FastifyRequest,
  reply: FastifyReply,
  link?: Pick<Link, 'id' | 'visibility'>,
): Promise<FastifyReply> {
  if (isHtmx(req)) errorToastHeader(reply, "You don't have permission to do that.");
  const owner = link?.visibility === 'secure' ? ((await deps.store.owners.list(link.id)).find((o) => o.isPrimary) ?? null) : null;
  return sendHtml(req, reply, await pageContext(deps, req), 'Access denied', <Forbidden owner={owner} />, 403);
}

/** A plain-text 4xx for HTMX callers, shown by the page script as an error toast. */
export function textError(reply: FastifyReply, status: number, message: string): FastifyReply {
  errorToastHeader(reply, message);
  return reply.code(status).type('text/plain; charset=utf-8').header('cache-control', 'no-store').send(message);
}

/**
 * Loads a link for a guarded route and checks one capability through
 * LinkCaps: an unknown id is a 404 before any capability check, a missing
 * capability the styled 403 (docs/links.md#capabilities). Returns null when it answered.
 */
export async function linkFor(
  deps: WebDeps,
  req: FastifyRequest,
  reply: FastifyReply,
  need: Capability,
  opts: { askOwners?: boolean } = {},
): Promise<(GrantedLink & { user: User }) | null> {
  const access = await deps.links.access(requestActor(req), { id: param(req, 'id') }, need);
  if (access.outcome === 'not_found') {
    await notFound(deps, req, reply, 'That link does not exist.');
    return null;
  }
  if (access.outcome === 'forbidden') {
    // Only the link's own page tells whom to ask (docs/web-ui.md#error-pages), and only a viewer who
    // may not view it; every other refusal is the one 403 that names nothing.
    await forbidden(deps, req, reply, opts.askOwners === true && !access.caps.canView ? access.link : undefined);
    return null;
  }
  return { ...access, user: requestUser(req) };
}

/**
 * Caps, lifecycle state, health and click figures for a list page, in a constant number of
 * queries whatever its length (docs/web-ui.md#link-tables): one caps load, one health load for
 * the rows the viewer may see health on (CanView), one click-figure load for the rows the viewer
 * may see stats of (CanStats, docs/analytics.md#who-sees-what), and for a signed-in viewer one
 * load of the groups that own the rows (their badges).
 */
export async function linkRows(store: Store, links: readonly LinkView[], user: User | null): Promise<LinkRowData[]> {
  const viewer = viewerOf(user);
  const caps = await store.access.capsMany(
    links.map((l) => l.id),
    viewer,
  );
  const now = store.now();
  const [health, activity, groups] = await Promise.all([
    store.health.forLinks(
      links.filter((l) => caps.get(l.id)?.canView === true),
      now,
    ),
    store.analytics.listActivity(links.filter((l) => caps.get(l.id)?.canStats === true).map((l) => l.id)),
    // Groups are read by anyone signed in (docs/groups.md), never by anonymous visitors.
    user
      ? store.groups.ofLinks(
          'owner',
          links.map((l) => l.id),
        )
      : Promise.resolve(new Map<string, LinkGroup[]>()),
  ]);
  return links.map((link) => ({
    link,
    caps: caps.get(link.id)!,
    state: lifecycleState(link, now),
    health: health.get(link.id) ?? null,
    activity: activity.get(link.id) ?? null,
    ownerGroups: (groups.get(link.id) ?? []).map((g) => g.name),
  }));
}

/** `page` from the query string (docs/web-ui.md#paging): a positive integer, anything else is page 1. */
export function pageParam(req: FastifyRequest): number {
  return parsePage(query(req, 'page'));
}

/** A fragment (or nothing) and the toast saying what changed, in one HTMX response (docs/web-ui.md#feedback). */
export function sendWithToast(reply: FastifyReply, body: VNode | null, toast: Toast | string): FastifyReply {
  toastHeader(reply, typeof toast === 'string' ? { level: 'success', message: toast } : toast);
  return sendFragment(reply, body ? renderFragment(body) : '');
}

export function sendFragment(reply: FastifyReply, html: string, status = 200): FastifyReply {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'private, no-store')
    .header('vary', 'HX-Request')
    .send(html);
}

/**
 * `expires_at` from a `datetime-local` input, read as UTC
 * (`YYYY-MM-DDTHH:MM[:SS]`, docs/lifecycle.md#expiry). Empty → null (never
 * expires); anything else that does not parse → an error message.
 */
export function parseExpiresInput(raw: string): { ok: true; value: number | null } | { ok: false; message: string } {
  const v = raw.trim();
  if (v === '') return { ok: true, value: null };
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(v);
  if (m) {
    const [, y, mo, d, h, mi, s] = m;
    const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s ?? '0'));
    const back = new Date(ms);
    // Date.UTC rolls 2030-02-31 over into March; a rolled date is not what was typed.
    if (
      back.getUTCFullYear() === Number(y) &&
      back.getUTCMonth() === Number(mo) - 1 &&
      back.getUTCDate() === Number(d) &&
      back.getUTCHours() === Number(h) &&
      back.getUTCMinutes() === Number(mi)
    ) {
      return { ok: true, value: ms };
    }
  }
  return { ok: false, message: 'expiration must be a date and time (UTC)' };
}
