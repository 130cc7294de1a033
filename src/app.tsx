import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import fastifyStatic from '@fastify/static';
import Fastify, { LogController, type FastifyInstance, type FastifyReply } from 'fastify';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { Config } from './config.js';
import { sendApiError, useApiErrors } from './http/api/errors.js';
import { acceptJsonBodies } from './http/jsonBody.js';
import { REST_PREFIX, registerRestApi } from './http/api/index.js';
import { createApiBudgets } from './http/shared/rateLimit.js';
import { MCP_PATH, registerMcp } from './http/mcp.js';
import { registerOpenApi } from './http/openapi.js';
import { goLinkFront } from './http/goLinks.js';
import { markRouteKind, recordRequests } from './http/requestRecording.js';
import { registerStateLinkApi, registerStateLinkRedirects, stateLinkLimits } from './http/stateLinks.js';
import { lazySerializers } from './http/serializers.js';
import { registerSystemRoutes } from './http/system.js';
import { sendMalformedUrlPage, webErrorHandler } from './http/web/errors.js';
import { registerWeb } from './http/web/index.js';
import { helmetOptions, precomputedHeaders, registerSecurityHeaders } from './http/securityHeaders.js';
import type { KeywordService, LinkService, UserService } from './links/index.js';
import type { Resolver } from './resolve/resolver.js';
import type { LinkSuggestions } from './llm/index.js';
import type { Metrics } from './metrics.js';
import { STATIC_DIR } from './paths.js';
import { answerClientError } from './http/clientErrors.js';
import { asset } from './views/assets.js';
import type { Store } from './store/index.js';
import type { ClickEvent } from './workers/clickWriter.js';

declare module 'fastify' {
  interface FastifyInstance {
    registeredRoutes: string[];
    /** Compiles every route's response serializer now instead of at its first answer (http/serializers.ts). */
    compileSerializers(): void;
  }
}

export interface AppDeps {
  config: Config;
  store: Store;
  links: LinkService;
  /** Accounts added and roles set by hand (web admin, REST). */
  users: UserService;
  /** Root-forward keywords (web admin, REST, MCP). */
  keywords: KeywordService;
  /** The one go-link resolver, shared by the front and the web layer's catch-all. */
  resolver: Resolver;
  /** LLM link suggestions, shared by REST and MCP; null when no provider is configured. */
  suggestions: LinkSuggestions | null;
  metrics: Metrics;
  recordClick(event: ClickEvent): void;
  /** What /readyz reports: the migrations the database still lacks. */
  migrationStatus(): Promise<{ pending: string[] }>;
  /** What /readyz reports first: a shutdown has begun (http/drain.ts). */
  draining?(): boolean;
  /** Logger settings; tests pass `false`. */
  logger?: boolean | object;
  /** Routes added inside a surface's context after its own; tests use them to watch the rules reach a new route. */
  extend?: SurfaceExtensions;
  /**
   * False: no go-link front; every go link is resolved by the web layer's catch-all route,
   * as any other Fastify route. Only the redirect bench turns it off, to measure the front.
   */
  goLinkFront?: boolean;
}

export interface SurfaceExtensions {
  /** Into the REST API's authenticated context (paths relative to /api/v1). */
  api?: (api: FastifyInstance) => void;
  /** Into the web context's pages, beside the dashboard and admin areas. */
  pages?: (pages: FastifyInstance) => void;
}

/** Request bodies above this are refused with 413 (docs/api.md#errors). */
export const BODY_LIMIT = 1024 * 1024;

/** Everything under this prefix answers in the API's error body. */
export const API_PREFIX = '/api';

/**
 * The one URL test of the app, for requests that never reach a context: a
 * malformed percent-encoding or an oversized path parameter fails in the
 * router, before any route or context is chosen. Those under the API's and
 * MCP's prefixes still get the API's error body; everything else the web's
 * 400 page. Both carry the security headers the hooks would have set.
 */
function underProgramPrefix(url: string): boolean {
  const path = url.split('?')[0]!;
  return [API_PREFIX, MCP_PATH].some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

/**
 * Builds the Fastify instance. Each surface is an encapsulated context that
 * owns its hooks, error handler and not-found handler, so which rules apply
 * follows from where a route is registered (ARCHITECTURE.md, "Surfaces and their contexts"):
 *
 *   root      cookies, form and JSON bodies, security headers, static files
 *   system    /healthz, /readyz, /metrics
 *   /api      the API's error and 404 bodies; the OpenAPI document and docs;
 *             /api/v1 (per-token budget, bearer auth, JSON only);
 *             /api/links (state links, their own error body)
 *   /mcp      per-token budget, bearer auth, the API's error and 404 bodies
 *   /s        state-link redirects, no session
 *   web       cross-site check, sessions, HTML error and 404 pages; the slug
 *             resolver's catch-all `GET /*` last
 */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config } = deps;
  let closing = false;
  // The first path segments the router owns, known once every route is registered.
  let routed: ReadonlySet<string> = new Set();
  // What the security-header hooks would have set, for requests refused before any hook runs.
  const pageSecurityHeaders = precomputedHeaders(helmetOptions(config));
  const front = goLinkFront({ ...deps, now: deps.store.now, closing: () => closing, routedSegments: () => routed, log: () => app.log });
  const serializers: Array<() => unknown> = [];
  const app = Fastify({
    schemaController: { compilersFactory: { buildSerializer: lazySerializers((compile) => serializers.push(compile)) } },
    // Go-link requests are resolved before Fastify's routing and their redirects
    // answered there (http/goLinks.ts); everything else, pages included, is Fastify's.
    ...(deps.goLinkFront === false
      ? {}
      : {
          serverFactory: (handler: (req: IncomingMessage, res: ServerResponse) => void, opts: unknown) => {
            const server = createServer((req, res) => {
              const served = front(req, res);
              if (served === false) handler(req, res);
              else if (served !== true) void served.then((ok) => ok || handler(req, res));
            });
            // What Fastify sets on a server it creates itself.
            const o = opts as { keepAliveTimeout?: number; requestTimeout?: number; connectionTimeout?: number };
            server.keepAliveTimeout = o.keepAliveTimeout ?? 72_000;
            server.requestTimeout = o.requestTimeout ?? 0;
            server.setTimeout(o.connectionTimeout ?? 0);
            return server;
          },
        }),
    logger: deps.logger ?? { level: config.logLevel },
    // Fastify's own request lines are off: a log write would cost the redirect path more than the
    // lookup does. The access log, when JOE_ACCESS_LOG turns it on, is one line per request of
    // our own (http/requestRecording.ts, http/accessLog.ts); errors are always logged.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT,
    return503OnClosing: true,
    clientErrorHandler: answerClientError,
    forceCloseConnections: 'idle',
    routerOptions: { maxParamLength: 2048 },
    frameworkErrors: (_error, req, res) => {
      const reply = res as unknown as FastifyReply;
      if (underProgramPrefix(req.url)) {
        reply.headers(pageSecurityHeaders);
        sendApiError(reply, 'BAD_REQUEST', 'malformed request URL');
      } else {
        const theme = app.parseCookie(req.headers.cookie ?? '').theme;
        sendMalformedUrlPage(deps, pageSecurityHeaders, req, reply, theme);
      }
    },
  });

  app.addHook('preClose', async () => {
    closing = true;
  });

  // Every registered path, so a test can prove each top-level segment is a reserved slug.
  const routes: string[] = [];
  app.addHook('onRoute', (r) => {
    routes.push(r.url);
  });
  app.decorate('registeredRoutes', routes);
  app.decorate('compileSerializers', () => {
    for (const compile of serializers) compile();
  });
  app.addHook('onReady', async () => {
    routed = new Set(
      routes.map((url) => url.split('/')[1] ?? '').filter((seg) => seg !== '' && !seg.startsWith(':') && !seg.startsWith('*')),
    );
  });

  // First, so every route is marked (each context below marks its own) and every answer counted.
  recordRequests(app, deps);
  markRouteKind(app, 'other');
  await app.register(cookie);
  await app.register(formbody);
  // Before any context, so each one inherits the one JSON body rule (http/jsonBody.ts).
  acceptJsonBodies(app);
  // Before any route, so every response (and the API docs' own policy) gets its headers.
  await registerSecurityHeaders(app, config);
  // Static files and probes belong to no surface: their rare failures get the HTML error pages.
  app.setErrorHandler(webErrorHandler(deps));
  await app.register(async (files) => {
    markRouteKind(files, 'static');
    await registerStaticFiles(files);
  });

  await app.register(async (system) => registerSystemRoutes(system, deps));

  // Created once: /api/v1 and /mcp spend the same per-token budget, and both click
  // export routes (REST and web) the same per-user one.
  const budgets = await createApiBudgets(app, config);
  const limits = stateLinkLimits(deps);

  await app.register(
    async (api) => {
      markRouteKind(api, 'api');
      useApiErrors(api, { notFound: true });
      // The OpenAPI collector must see the REST routes being added, so it comes first.
      await registerOpenApi(api);
      await api.register(async (v1) => registerRestApi(v1, { ...deps, budgets, extend: deps.extend?.api }), { prefix: REST_PREFIX });
      await api.register(async (links) => registerStateLinkApi(links, { ...deps, limits }), { prefix: '/links' });
    },
    { prefix: API_PREFIX },
  );
  await app.register(
    async (mcp) => {
      markRouteKind(mcp, 'mcp');
      await registerMcp(mcp, { ...deps, budgets });
    },
    { prefix: MCP_PATH },
  );
  await app.register(async (s) => {
    s.setErrorHandler(webErrorHandler(deps));
    registerStateLinkRedirects(s, { ...deps, limits });
  });
  // Last and without a prefix: its not-found page answers every path the others leave.
  await app.register(async (web) => {
    markRouteKind(web, 'web');
    await registerWeb(web, { ...deps, budgets, extend: deps.extend?.pages });
  });
  return app;
}

/** `/static/*` and `/favicon.ico`: the browser's files, cached as long as each may be. */
async function registerStaticFiles(app: FastifyInstance): Promise<void> {
  await app.register(fastifyStatic, {
    root: join(STATIC_DIR),
    prefix: '/static/',
    index: false,
    wildcard: true,
    cacheControl: false,
    setHeaders(res, path) {
      // Hashed build outputs never change; everything else revalidates.
      res.setHeader(
        'cache-control',
        path.includes(`${join('static', 'build')}`) ? 'public, max-age=31536000, immutable' : 'public, max-age=300',
      );
    },
  });
  // Browsers and crawlers ask for /favicon.ico on their own (pages link the SVG); point them at it.
  app.get('/favicon.ico', (_req, reply) => reply.header('cache-control', 'public, max-age=86400').redirect(asset('img/favicon.svg'), 301));
}
