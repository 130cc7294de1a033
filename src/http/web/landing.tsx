import type { FastifyInstance } from 'fastify';
import { currentUser } from '../../auth/currentUser.js';
import { Landing } from '../../views/pages/landing.js';
import { pageContext, sendHtml, type PageDeps } from './render.js';

/** `GET /`: signed-in users go to their dashboard, everyone else sees the landing page. */
export function registerLandingRoute(app: FastifyInstance, deps: PageDeps): void {
  app.get('/', async (req, reply) => {
    const user = await currentUser(req, deps.store);
    if (user) return reply.redirect('/dashboard', 302);
    const ctx = await pageContext(deps, req, null);
    return sendHtml(req, reply, ctx, 'Welcome', <Landing shortKeyword={ctx.shortKeyword} />);
  });
}
