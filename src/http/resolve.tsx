import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { currentUser } from '../auth/currentUser.js';
import type { Config } from '../config.js';
import { slugError } from '../domain/slug.js';
import type { Metrics } from '../metrics.js';
import type { Resolution, Resolver } from '../resolve/resolver.js';
import type { Store } from '../store/index.js';
import { viewerOf, type User } from '../store/types.js';
import { Expired } from '../views/pages/expired.js';
import { Forbidden, NotFound } from '../views/pages/errors.js';
import type { ClickEvent } from '../workers/clickWriter.js';
import { clickOf, takeResolution } from './goLinks.js';
import { REDIRECT_CACHE_CONTROL, locationHeader } from './redirectHeaders.js';
import { isHtmx, pageContext, requestHost, sendHtml, shortKeyword } from './web/render.js';

export interface ResolverDeps {
  config: Config;
  store: Store;
  resolver: Resolver;
  metrics: Metrics;
  recordClick(event: ClickEvent): void;
}

const NO_STORE = REDIRECT_CACHE_CONTROL;

/**
 * The web side of the resolver: the catch-all `GET /*`, registered last in
 * the web context. It renders what the resolver decided, for the requests
 * the front (goLinks.ts) left to it: every page outcome, and the whole
 * resolution of a request that needed the web layer's session handling
 * first (forward-auth, a session whose user is gone), or that came under a
 * routed first segment and matched no route.
 */
export function registerResolver(app: FastifyInstance, deps: ResolverDeps): void {
  const { store, metrics, config, resolver } = deps;

  const redirect = (req: FastifyRequest, reply: FastifyReply, outcome: Extract<Resolution, { kind: 'redirect' }>, user: User | null) => {
    if (outcome.linkId !== null && req.method === 'GET') {
      deps.recordClick(clickOf(req.raw, config.trustedProxies, outcome.linkId, user?.id ?? null, store.now()));
    }
    metrics.redirects.inc({ status: 'found' });
    reply.header('cache-control', NO_STORE);
    if (outcome.htmxAware && isHtmx(req)) return reply.code(204).header('hx-redirect', locationHeader(outcome.location)).send();
    return reply.code(302).header('location', locationHeader(outcome.location)).send();
  };

  const notFound = async (req: FastifyRequest, reply: FastifyReply, slug: string, offerCreate: boolean, user: User | null) => {
    metrics.redirects.inc({ status: 'not_found' });
    const suggestions = await store.discovery.didYouMean(slug, viewerOf(user));
    const createSlug = offerCreate && slugError(slug) === null ? slug : null;
    reply.header('cache-control', NO_STORE);
    const ctx = await pageContext(deps, req, user);
    return sendHtml(
      req,
      reply,
      ctx,
      'Link not found',
      <NotFound slug={slug} shortKeyword={ctx.shortKeyword} suggestions={suggestions} createSlug={createSlug} signedIn={user !== null} />,
      404,
    );
  };

  const render = async (req: FastifyRequest, reply: FastifyReply, outcome: Resolution, user: User | null): Promise<FastifyReply> => {
    switch (outcome.kind) {
      case 'redirect':
        return redirect(req, reply, outcome, user);
      case 'login':
        reply.header('cache-control', NO_STORE);
        return reply
          .code(302)
          .header('location', `/auth/login?return_url=${encodeURIComponent(req.url)}`)
          .send();
      case 'forbidden':
        reply.header('cache-control', NO_STORE);
        return sendHtml(req, reply, await pageContext(deps, req, user), 'Access denied', <Forbidden />, 403);
      case 'expired': {
        metrics.redirects.inc({ status: 'not_found' });
        reply.header('cache-control', NO_STORE);
        const { link, slug } = outcome;
        // The owner is named only where the viewer could learn it anyway (docs/lifecycle.md#resolving-expired-and-archived-links).
        const caps = await store.access.caps(link.id, viewerOf(user));
        const named = link.visibility === 'public' || caps.canView;
        const owner = named ? ((await store.owners.list(link.id)).find((o) => o.isPrimary) ?? null) : null;
        const renewId = caps.canEdit ? link.id : null;
        // Same <title> as every other 404: the tab text must not set a dead link apart.
        return sendHtml(
          req,
          reply,
          await pageContext(deps, req, user),
          'Link not found',
          <Expired slug={slug} owner={owner} renewId={renewId} />,
          404,
        );
      }
      case 'not_found':
        return notFound(req, reply, outcome.slug, outcome.offerCreate, user);
      case 'fill_in':
      case 'details':
        return notFound(req, reply, outcome.slug, false, user);
      case 'handoff':
        // Only the front hands off, and it leaves nothing to render: the web layer's hooks settle the visitor first.
        return notFound(req, reply, '', false, null);
    }
  };

  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    const done = metrics.redirectDuration.startTimer();
    try {
      const user = await currentUser(req, store);
      const left = takeResolution(req.raw);
      if (left) return await render(req, reply, left, user);
      const q = req.url.indexOf('?');
      const path = (q === -1 ? req.url : req.url.slice(0, q)).slice(1);
      const query = q === -1 ? '' : req.url.slice(q + 1);
      const outcome = await resolver.resolve({ path, host: requestHost(req), viewer: { kind: 'known', user }, query });
      return await render(req, reply, outcome, user);
    } finally {
      done();
    }
  };

  app.get('/*', { config: { resolver: true } }, handler);
}

export { shortKeyword };
