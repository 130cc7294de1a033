import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requestUser } from '../../auth/currentUser.js';
import { asUser, type Actor, type Surface } from '../../links/index.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The surface whose context the route is registered in (`nameSurface`); history records it. */
    linkSurface?: Surface;
  }
}

/**
 * Names the surface of a context: every request routed inside it carries the
 * name, so a change records where it was made (docs/history.md#who-and-where)
 * by where its route is registered, never by its URL.
 */
export function nameSurface(ctx: FastifyInstance, surface: Surface): void {
  ctx.decorateRequest('linkSurface', surface);
}

const actors = new WeakMap<FastifyRequest, Actor>();

/**
 * The authenticated caller (a session's user on the web, a token's on the
 * API) as the links application layer sees them, one object per request.
 * Only behind a guard that established the user.
 */
export function requestActor(req: FastifyRequest): Actor {
  let actor = actors.get(req);
  if (!actor) {
    actor = asUser(requestUser(req), req.linkSurface);
    actors.set(req, actor);
  }
  return actor;
}
