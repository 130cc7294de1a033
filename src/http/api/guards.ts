import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { authenticateBearer } from '../../auth/bearer.js';
import { requestUser } from '../../auth/currentUser.js';
import type { Capability, GrantedLink, LinkService } from '../../links/index.js';
import type { Store } from '../../store/index.js';
import { sendApiError, sendUnauthorized } from './errors.js';
import { requestActor } from '../shared/actor.js';

/**
 * The checks every authenticated API route runs, as onRequest hooks so they
 * come before the body is even read (docs/api.md#conventions): authenticate (401) → link
 * exists (404) → capability (403); body and query validation (400) follow in
 * Fastify's validation step, then the handler acts.
 */

/** The OpenAPI security requirement of every authenticated operation (docs/api.md#openapi-and-swagger-ui). */
export const BEARER = [{ BearerToken: [] }];

/** A public operation: declared as needing no credentials rather than left unsaid. */
export const PUBLIC: Array<Record<string, string[]>> = [];

export interface GuardDeps {
  store: Pick<Store, 'now' | 'tokens'>;
  links: LinkService;
}

/**
 * Bearer authentication (auth/bearer.ts) as an onRequest hook: the
 * authenticated contexts of the REST API and MCP add it once for all their
 * routes. A failure is the one `401 UNAUTHORIZED` body.
 */
export function authenticate(deps: Pick<GuardDeps, 'store'>): onRequestAsyncHookHandler {
  return async function requireBearerToken(req, reply) {
    if ((await authenticateBearer(deps, req)) === null) return sendUnauthorized(reply);
  };
}

/** Role `admin` required; everyone else gets `403 FORBIDDEN` "forbidden" (docs/api.md#admin-endpoints). */
export function adminOnly(): onRequestAsyncHookHandler {
  return async function requireAdminRole(req, reply) {
    if (requestUser(req).role !== 'admin') return sendApiError(reply, 'FORBIDDEN', 'forbidden');
  };
}

const granted = new WeakMap<FastifyRequest, GrantedLink>();

/**
 * Loads `/links/:id` and checks one capability through the links layer's one
 * access function. An unknown id is a 404 before any capability is
 * considered, so a stranger learns only that the id does not exist or that
 * it is not theirs — the same as a web visitor.
 */
export function requireLinkCap(deps: Pick<GuardDeps, 'links'>, cap: Capability): onRequestAsyncHookHandler {
  return async function requireLinkCapability(req, reply) {
    const id = (req.params as Record<string, unknown> | undefined)?.id;
    const access = await deps.links.access(requestActor(req), { id: typeof id === 'string' ? id : '' }, cap);
    if (access.outcome === 'not_found') return sendApiError(reply, 'NOT_FOUND', 'link not found');
    if (access.outcome === 'forbidden') return sendApiError(reply, 'FORBIDDEN', 'forbidden');
    granted.set(req, access);
  };
}

/** The link, capabilities and actor `requireLinkCap` established for this request. */
export function requestLink(req: FastifyRequest): GrantedLink {
  const access = granted.get(req);
  if (!access) throw new Error(`no link loaded on ${req.method} ${req.url}: is the route missing requireLinkCap?`);
  return access;
}
