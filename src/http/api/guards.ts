import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { requireBearer } from '../../auth/bearer.js';
import { requestUser } from '../../auth/currentUser.js';
import type { LinkCaps } from '../../domain/caps.js';
import type { Store } from '../../store/index.js';
import { viewerOf, type Link } from '../../store/types.js';
import { sendApiError } from './errors.js';

/**
 * The checks every authenticated API route runs, as onRequest hooks so they
 * come before the body is even read (api.md §5): authenticate (401) → link
 * exists (404) → capability (403); body and query validation (400) follow in
 * Fastify's validation step, then the handler acts.
 */

/** The OpenAPI security requirement of every authenticated operation (api.md §7 rule 5). */
export const BEARER = [{ BearerToken: [] }];

export interface GuardDeps {
  store: Store;
}

/** Bearer authentication (auth/bearer.ts), usable as an onRequest hook. */
export function authenticate(deps: GuardDeps): onRequestAsyncHookHandler {
  return requireBearer(deps) as onRequestAsyncHookHandler;
}

/** Role `admin` required; everyone else gets `403 FORBIDDEN` "forbidden" (api.md §6.23). */
export function adminOnly(): onRequestAsyncHookHandler {
  return async function requireAdminRole(req, reply) {
    if (requestUser(req).role !== 'admin') return sendApiError(reply, 'FORBIDDEN', 'forbidden');
  };
}

export interface LinkAccess {
  link: Link;
  caps: LinkCaps;
}

const loaded = new WeakMap<FastifyRequest, LinkAccess>();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are UUIDs; anything else cannot name a row and costs no query. */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

/**
 * Loads `/links/:id` and checks one capability through LinkCaps, the single
 * authorization path (domain/caps.ts via store.access). An unknown id is a
 * 404 before any capability is considered, so a stranger learns only that
 * the id does not exist or that it is not theirs — the same as a web visitor.
 */
export function requireLinkCap(deps: GuardDeps, cap: keyof LinkCaps): onRequestAsyncHookHandler {
  const { store } = deps;
  return async function requireLinkCapability(req, reply) {
    const id = (req.params as Record<string, unknown> | undefined)?.id;
    const link = isUuid(id) ? await store.links.get(id) : null;
    if (!link) return sendApiError(reply, 'NOT_FOUND', 'link not found');
    const caps = await store.access.caps(link.id, viewerOf(requestUser(req)));
    if (!caps[cap]) return sendApiError(reply, 'FORBIDDEN', 'forbidden');
    loaded.set(req, { link, caps });
  };
}

/** The link and capabilities `requireLinkCap` established for this request. */
export function requestLink(req: FastifyRequest): LinkAccess {
  const access = loaded.get(req);
  if (!access) throw new Error(`no link loaded on ${req.method} ${req.url}: is the route missing requireLinkCap?`);
  return access;
}
