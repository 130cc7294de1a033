import type { FastifyReply, FastifyRequest } from 'fastify';
import { crossSiteReason } from '../../auth/crossSite.js';
import type { Config } from '../../config.js';
import { parseTheme } from '../../views/context.js';
import { CrossSiteRefused } from '../../views/pages/auth.js';
import { sendHtml } from './render.js';

/**
 * The web context's first onRequest hook: a state-changing request that
 * another site sent (auth/crossSite.ts decides) gets the styled 403 page.
 * Every route and the not-found handler of the web context pass it; the API,
 * MCP and state-link contexts never do.
 */
export function crossSiteGuard(config: Pick<Config, 'baseUrl'>) {
  return async function refuseCrossSite(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    const reason = crossSiteReason(config, req.method, req.headers);
    if (reason === null) return undefined;
    req.log.warn({ method: req.method, url: req.url, origin: req.headers.origin, reason }, 'cross-site write refused');
    // Rendered without loading the session: a refused request should cost nothing and touch nothing.
    const theme = parseTheme((req.cookies as Record<string, string | undefined> | undefined)?.theme);
    const ctx = { user: null, theme, path: req.url.split('?')[0]!, shortKeyword: 'go' };
    return sendHtml(req, reply, ctx, 'Request refused', <CrossSiteRefused />, 403);
  };
}
