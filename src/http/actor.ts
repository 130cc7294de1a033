import type { FastifyRequest } from 'fastify';
import { requestUser } from '../auth/currentUser.js';
import { asUser, type Actor } from '../links/index.js';

const actors = new WeakMap<FastifyRequest, Actor>();

/**
 * The authenticated caller (a session's user on the web, a token's on the
 * API) as the links application layer sees them, one object per request.
 * Only behind a guard that established the user.
 */
export function requestActor(req: FastifyRequest): Actor {
  let actor = actors.get(req);
  if (!actor) {
    actor = asUser(requestUser(req));
    actors.set(req, actor);
  }
  return actor;
}
