import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { currentUser } from '../auth/currentUser.js';
import type { Config } from '../config.js';
import { resolveAccess } from '../domain/caps.js';
import { clientIp } from '../domain/clientIp.js';
import { lifecycleState } from '../domain/lifecycle.js';
import { isSlugShaped, normalizationCandidates, slugError } from '../domain/slug.js';
import { fillTemplate, hasPlaceholders, isSafeSubstitution, placeholderNames } from '../domain/url.js';
import type { Metrics } from '../metrics.js';
import type { Store } from '../store/index.js';
import { KEYWORD_PATTERN } from '../store/keywords.js';
import type { ResolveTarget } from '../store/links.js';
import { viewerOf, type User } from '../store/types.js';
import { Expired } from '../views/pages/expired.js';
import { Forbidden, NotFound } from '../views/pages/errors.js';
import type { ClickEvent } from '../workers/clickWriter.js';
import { REDIRECT_CACHE_CONTROL, locationHeader } from './redirectHeaders.js';
import { isHtmx, pageContext, requestHost, sendHtml, shortKeyword } from './web/render.js';

export interface ResolverDeps {
  config: Config;
  store: Store;
  metrics: Metrics;
  recordClick(event: ClickEvent): void;
}

const NO_STORE = REDIRECT_CACHE_CONTROL;

/** Percent-decodes one path segment; a malformed escape is kept literally rather than refused. */
function decodeSegment(s: string): string {
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return s.replace(/%([0-9A-Fa-f]{2})/g, (m, h: string) => {
      const c = parseInt(h, 16);
      return c < 0x80 ? String.fromCharCode(c) : m;
    });
  }
}

interface Miss {
  /** First path segment as typed (decoded), named on the page. */
  slug: string;
  /** Whether a create offer may be shown (plain misses only). */
  offerCreate: boolean;
}

/**
 * The slug resolver (docs/links.md#resolution, docs/links.md#prefixes-and-variables, docs/links.md#keywords, docs/links.md#autocomplete-and-search), registered last as the catch-all.
 * Order: path keyword → host keyword → exact (case-folded) → normalisation
 * forgiveness → prefix; each hit passes the visibility gate, then the
 * lifecycle gate, before it redirects.
 */
export function registerResolver(app: FastifyInstance, deps: ResolverDeps): void {
  const { store, metrics, config } = deps;

  const redirect = (req: FastifyRequest, reply: FastifyReply, target: string, htmxAware: boolean): FastifyReply => {
    metrics.redirects.inc({ status: 'found' });
    reply.header('cache-control', NO_STORE);
    if (htmxAware && isHtmx(req)) return reply.code(204).header('hx-redirect', locationHeader(target)).send();
    return reply.code(302).header('location', locationHeader(target)).send();
  };

  const notFound = async (req: FastifyRequest, reply: FastifyReply, miss: Miss, user: User | null): Promise<FastifyReply> => {
    metrics.redirects.inc({ status: 'not_found' });
    const suggestions = await store.discovery.didYouMean(miss.slug, viewerOf(user));
    const createSlug = miss.offerCreate && slugError(miss.slug) === null ? miss.slug : null;
    reply.header('cache-control', NO_STORE);
    const ctx = await pageContext(deps, req, user);
    return sendHtml(
      req,
      reply,
      ctx,
      'Link not found',
      <NotFound
        slug={miss.slug}
        shortKeyword={ctx.shortKeyword}
        suggestions={suggestions}
        createSlug={createSlug}
        signedIn={user !== null}
      />,
      404,
    );
  };

  /** Visibility first, lifecycle second (docs/lifecycle.md#resolving-expired-and-archived-links), then the redirect itself. */
  const follow = async (
    req: FastifyRequest,
    reply: FastifyReply,
    link: ResolveTarget,
    slug: string,
    rest: readonly string[] | null,
  ): Promise<FastifyReply> => {
    const user = await currentUser(req, store);
    if (link.visibility === 'secure') {
      const facts = user ? await store.access.facts(link.id, viewerOf(user)) : null;
      const access = resolveAccess(link.visibility, facts);
      if (access === 'login') {
        reply.header('cache-control', NO_STORE);
        return reply
          .code(302)
          .header('location', `/auth/login?return_url=${encodeURIComponent(req.url)}`)
          .send();
      }
      if (access === 'forbidden') {
        reply.header('cache-control', NO_STORE);
        return sendHtml(req, reply, await pageContext(deps, req, user), 'Access denied', <Forbidden />, 403);
      }
    }
    // Governing: docs/lifecycle.md#resolving-expired-and-archived-links: reached only past the visibility gate.
    const state = lifecycleState(link, store.now());
    if (state === 'archived') return notFound(req, reply, { slug, offerCreate: false }, user);
    if (state === 'expired') {
      metrics.redirects.inc({ status: 'not_found' });
      reply.header('cache-control', NO_STORE);
      // The owner is named only where the viewer could learn it anyway (docs/lifecycle.md#resolving-expired-and-archived-links).
      const named = link.visibility === 'public' || (await store.access.caps(link.id, viewerOf(user))).canView;
      const owner = named ? ((await store.owners.list(link.id)).find((o) => o.isPrimary) ?? null) : null;
      // Same <title> as every other 404: the tab text must not set a dead link apart (docs/lifecycle.md#resolving-expired-and-archived-links).
      return sendHtml(req, reply, await pageContext(deps, req, user), 'Link not found', <Expired slug={slug} owner={owner} />, 404);
    }
    let target = link.url;
    if (hasPlaceholders(link.url)) {
      // A bare visit to a variable link, or the wrong number of values, is a miss without a create offer.
      if (rest === null || rest.length !== placeholderNames(link.url).length) {
        return notFound(req, reply, { slug, offerCreate: false }, user);
      }
      target = fillTemplate(link.url, rest);
      if (!isSafeSubstitution(link.url, target)) return notFound(req, reply, { slug, offerCreate: false }, user);
    }
    if (req.method !== 'HEAD') {
      deps.recordClick({
        linkId: link.id,
        userId: user?.id ?? null,
        ip: clientIp(req.socket.remoteAddress ?? '', req.headers, config.trustedProxies),
        userAgent: req.headers['user-agent'],
        referer: req.headers.referer,
        at: store.now(),
      });
    }
    return redirect(req, reply, target, true);
  };

  const resolve = async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const q = req.url.indexOf('?');
    const rawPath = (q === -1 ? req.url : req.url.slice(0, q)).slice(1);
    if (rawPath === '') return notFound(req, reply, { slug: '', offerCreate: false }, await currentUser(req, store));
    const host = requestHost(req);

    // Keywords match exactly and case-sensitively, before any slug lookup (docs/links.md#keywords).
    const slash = rawPath.indexOf('/');
    if (slash > 0 && slash < rawPath.length - 1) {
      const keyword = rawPath.slice(0, slash);
      if (keyword !== host && KEYWORD_PATTERN.test(keyword)) {
        const template = await store.keywords.templateFor(keyword);
        if (template !== null) return redirect(req, reply, template.replaceAll('{slug}', rawPath.slice(slash + 1)), false);
      }
    }
    if (KEYWORD_PATTERN.test(host)) {
      const template = await store.keywords.templateFor(host);
      if (template !== null) return redirect(req, reply, template.replaceAll('{slug}', rawPath), false);
    }

    const segments = rawPath.split('/').map(decodeSegment);
    const first = segments[0]!;
    if (segments.length === 1) {
      const folded = first.toLowerCase();
      const exact = isSlugShaped(folded) ? await store.links.lookupForResolve(folded) : null;
      if (exact) return follow(req, reply, exact, folded, null);
      for (const candidate of normalizationCandidates(folded)) {
        if (!isSlugShaped(candidate)) continue;
        const hit = await store.links.lookupForResolve(candidate);
        if (hit) return follow(req, reply, hit, candidate, null);
      }
    } else {
      // Longest prefix first; slugs never contain `/`, so only slug-shaped prefixes can hit.
      for (let n = segments.length - 1; n >= 1; n--) {
        const prefix = segments.slice(0, n).join('/').toLowerCase();
        if (!isSlugShaped(prefix)) continue;
        const hit = await store.links.lookupForResolve(prefix);
        if (hit) return follow(req, reply, hit, prefix, segments.slice(n));
      }
    }
    return notFound(req, reply, { slug: first, offerCreate: true }, await currentUser(req, store));
  };

  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    const done = metrics.redirectDuration.startTimer();
    try {
      return await resolve(req, reply);
    } finally {
      done();
    }
  };

  app.get('/*', { config: { resolver: true } }, handler);
}

export { shortKeyword };
