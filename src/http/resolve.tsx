import { authenticateBearer } from '../auth/bearer.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { currentUser } from '../auth/currentUser.js';
import type { Config } from '../config.js';
import { asUser, fullLinkResource, type LinkService } from '../links/index.js';
import { isReservedSlug, slugError } from '../domain/slug.js';
import { placeholderNames } from '../domain/url.js';
import type { Metrics } from '../metrics.js';
import type { Resolution, Resolver } from '../resolve/resolver.js';
import type { Store } from '../store/index.js';
import { viewerOf, type User } from '../store/types.js';
import { Expired } from '../views/pages/expired.js';
import { FillIn, FillInHandoff, neededPhrase } from '../views/pages/fillIn.js';
import { Forbidden, NotFound, PlainNotFound } from '../views/pages/errors.js';
import { LinkSummary } from '../views/pages/linkSummary.js';
import { resolveAccess } from '../domain/caps.js';
import type { ClickEvent } from '../workers/clickWriter.js';
import { takeResolution } from './goLinks.js';
import { REDIRECT_CACHE_CONTROL, isFormHandoff, locationHeader, redirectResponse, storeClick } from './redirectAnswer.js';
import { pageContext, sendHtml } from './web/render.js';
import { requestHost, shortKeyword } from './shared/requestAddress.js';

export interface ResolverDeps {
  config: Config;
  store: Store;
  resolver: Resolver;
  metrics: Metrics;
  links: LinkService;
  recordClick(event: ClickEvent): void;
}

/** Whether a request asks for JSON rather than a page (`curl -H 'Accept: application/json'`). */
function wantsJson(req: FastifyRequest): boolean {
  const accept = req.headers.accept ?? '';
  return /\bapplication\/json\b/i.test(accept) && !/\btext\/html\b/i.test(accept);
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
  const redirectDeps = { config, now: store.now, recordClick: deps.recordClick };

  const redirect = async (
    req: FastifyRequest,
    reply: FastifyReply,
    outcome: Extract<Resolution, { kind: 'redirect' }>,
    user: User | null,
  ) => {
    metrics.redirectFound();
    storeClick(redirectDeps, req.raw, outcome);
    if (isFormHandoff(req.raw, outcome)) {
      const location = locationHeader(outcome.location);
      reply.header('cache-control', NO_STORE).header('refresh', `0; url=${location}`);
      const ctx = await pageContext(deps, req, user);
      return sendHtml(req, reply, ctx, 'Opening the link', <FillInHandoff location={outcome.location} />, 200);
    }
    const { status, headers } = redirectResponse(req.raw, outcome);
    return reply.code(status).headers(headers).send();
  };

  const notFound = async (
    req: FastifyRequest,
    reply: FastifyReply,
    slug: string,
    offerCreate: boolean,
    user: User | null,
    held = false,
  ) => {
    metrics.redirectMissed();
    const viewer = viewerOf(user);
    let suggestions = await store.discovery.didYouMean(slug, viewer);
    // A name of several segments missed: its first segment may be the typo (`go/jiar/abc-1`).
    const slash = slug.indexOf('/');
    if (suggestions.length === 0 && slash > 0) suggestions = await store.discovery.didYouMean(slug.slice(0, slash), viewer);
    const createSlug = offerCreate && slugError(slug) === null ? slug : null;
    reply.header('cache-control', NO_STORE);
    const ctx = await pageContext(deps, req, user);
    return sendHtml(
      req,
      reply,
      ctx,
      'Link not found',
      <NotFound
        slug={slug}
        shortKeyword={ctx.shortKeyword}
        suggestions={suggestions}
        createSlug={createSlug}
        signedIn={user !== null}
        held={held}
      />,
      404,
    );
  };

  /**
   * `go/<name>+` (docs/links.md#the-plus-suffix): the link page's own access rule, through
   * the links layer. Capable viewers are sent to the page (or get the REST link body);
   * anyone else learns no more than the page would tell them: sign in first, 403 for a
   * public link (its existence is no secret), 404 for any other link and for no link at all.
   */
  const details = async (
    req: FastifyRequest,
    reply: FastifyReply,
    outcome: Extract<Resolution, { kind: 'details' }>,
    user: User | null,
  ): Promise<FastifyReply> => {
    reply.header('cache-control', NO_STORE);
    const json = wantsJson(req);
    const fail = async (status: 401 | 403 | 404): Promise<FastifyReply> => {
      if (json) {
        const body = {
          401: { error: 'sign in to see this link', code: 'UNAUTHORIZED' },
          403: { error: 'forbidden', code: 'FORBIDDEN' },
          404: { error: 'link not found', code: 'NOT_FOUND' },
        }[status];
        return reply.code(status).send(body);
      }
      if (status === 401)
        return reply
          .code(302)
          .header('location', `/auth/login?return_url=${encodeURIComponent(req.url)}`)
          .send();
      if (status === 403) return sendHtml(req, reply, await pageContext(deps, req, user), 'Access denied', <Forbidden />, 403);
      // The same page whether no link has the name or the viewer may not know it.
      return notFound(req, reply, outcome.slug, true, user);
    };
    if (outcome.linkId === null) return fail(404);
    // A program asking for JSON may name itself with a personal access token, as on the REST API.
    const viewer = user ?? (json ? await authenticateBearer({ store, log: req.log }, req) : null);
    if (!viewer) return fail(401);
    const access = await deps.links.access(asUser(viewer), { id: outcome.linkId }, 'canView');
    if (access.outcome === 'not_found') return fail(404);
    if (access.outcome === 'forbidden') {
      // A colleague who may open the link (docs/links.md#the-plus-suffix) learns where it goes
      // and who owns it; anyone else, what they learned before.
      const facts = await store.access.facts(access.link.id, viewerOf(viewer));
      if (resolveAccess(access.link.visibility, facts) !== 'allow') return fail(access.link.visibility === 'public' ? 403 : 404);
      const view = await store.links.view(access.link.id);
      if (!view) return fail(404);
      const owners = view.owners.map((o) => ({ email: o.email, display_name: o.displayName }));
      if (json) return reply.code(200).send({ slug: view.slug, title: view.title, url: view.url, owners });
      const ctx = await pageContext(deps, req, user);
      const summary = (
        <LinkSummary shortKeyword={ctx.shortKeyword} slug={view.slug} title={view.title} url={view.url} owners={view.owners} />
      );
      return sendHtml(req, reply, ctx, `${ctx.shortKeyword}/${view.slug}`, summary, 200);
    }
    if (!json) return reply.code(302).header('location', `/dashboard/links/${access.link.id}`).send();
    const view = await store.links.view(access.link.id);
    if (!view) return fail(404);
    return reply.code(200).send(await fullLinkResource(store, view));
  };

  /** A template opened without all its values (docs/links.md#fill-in-page): ask for them. */
  const fillIn = async (
    req: FastifyRequest,
    reply: FastifyReply,
    outcome: Extract<Resolution, { kind: 'fill_in' }>,
    user: User | null,
  ): Promise<FastifyReply> => {
    reply.header('cache-control', NO_STORE);
    const names = placeholderNames(outcome.link.url).map((n) => n.slice(1));
    const variables = names.map((name, i) => ({ name, value: outcome.values[i] ?? '' }));
    // A forwarding link passes the visit's other query parameters on: the form keeps them.
    const q = req.url.indexOf('?');
    const carried =
      outcome.link.forwardPathAndQuery && q !== -1
        ? [...new URLSearchParams(req.url.slice(q + 1))].filter(([k]) => !names.includes(k))
        : [];
    const ctx = await pageContext(deps, req, user);
    const missing = variables.filter((v) => v.value === '').map((v) => v.name);
    return sendHtml(
      req,
      reply,
      ctx,
      `${ctx.shortKeyword}/${outcome.slug} needs ${neededPhrase(missing)}`,
      <FillIn shortKeyword={ctx.shortKeyword} name={outcome.slug} template={outcome.link.url} variables={variables} carried={carried} />,
    );
  };

  /** The 404 of a page of the app, with the way back to the section it was under. */
  const missingPage = async (req: FastifyRequest, reply: FastifyReply, section: string, user: User | null) => {
    metrics.redirectMissed();
    reply.header('cache-control', NO_STORE);
    const back =
      section === 'admin' && user?.role === 'admin'
        ? { href: '/admin', label: 'Back to Admin' }
        : user
          ? { href: '/dashboard', label: 'Go to dashboard' }
          : undefined;
    const message = 'There is no page at this address. It may have moved, or the address may be mistyped.';
    return sendHtml(req, reply, await pageContext(deps, req, user), 'Page not found', <PlainNotFound message={message} back={back} />, 404);
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
        metrics.redirectMissed();
        reply.header('cache-control', NO_STORE);
        const { link, slug } = outcome;
        // The owner is named only where the viewer could learn it anyway (docs/lifecycle.md#resolving-expired-and-archived-links).
        const caps = await store.access.caps(link.id, viewerOf(user));
        const named = link.visibility === 'public' || caps.canView;
        const owner = named ? ((await store.owners.list(link.id)).find((o) => o.isPrimary) ?? null) : null;
        const editId = caps.canEdit ? link.id : null;
        // Same <title> as every other 404: the tab text must not set a dead link apart.
        return sendHtml(
          req,
          reply,
          await pageContext(deps, req, user),
          'Link not found',
          <Expired slug={slug} owner={owner} renewId={editId} />,
          404,
        );
      }
      case 'not_found':
        return notFound(req, reply, outcome.slug, outcome.offerCreate, user, outcome.held ?? false);
      case 'details':
        return details(req, reply, outcome, user);
      case 'fill_in':
        return fillIn(req, reply, outcome, user);
      case 'handoff':
        // Only the front hands off, and it leaves nothing to render: the web layer's hooks settle the visitor first.
        return notFound(req, reply, '', false, null);
    }
  };

  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    const start = performance.now();
    try {
      const user = await currentUser(req, store);
      const q = req.url.indexOf('?');
      const path = (q === -1 ? req.url : req.url.slice(0, q)).slice(1);
      const query = q === -1 ? '' : req.url.slice(q + 1);
      const outcome =
        takeResolution(req.raw) ?? (await resolver.resolve({ path, host: requestHost(req), viewer: { kind: 'known', user }, query }));
      // A miss under one of the app's own sections (`/admin/…`, `/links/…`) is a missing page,
      // not a go link nobody made: that name is reserved, nobody can make it.
      const first = path.split('/')[0]!.toLowerCase();
      if (outcome.kind === 'not_found' && isReservedSlug(first)) return await missingPage(req, reply, first, user);
      return await render(req, reply, outcome, user);
    } finally {
      metrics.redirectDuration.observeSince(start);
    }
  };

  app.get('/*', { config: { resolver: true } }, handler);
}

export { shortKeyword };
