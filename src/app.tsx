import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import fastifyStatic from '@fastify/static';
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { currentUser } from './auth/currentUser.js';
import type { Config } from './config.js';
import { isAppError } from './domain/errors.js';
import { registerApiRoutes } from './http/api/index.js';
import { registerMcp } from './http/mcp.js';
import { registerOpenApi } from './http/openapi.js';
import { redirectFastPath } from './http/redirectFastPath.js';
import { registerResolver } from './http/resolve.js';
import { registerStateLinkRoutes } from './http/stateLinks.js';
import { registerSystemRoutes } from './http/system.js';
import { registerAuth } from './http/web/auth.js';
import { pageContext, sendHtml } from './http/web/render.js';
import { registerWebRoutes } from './http/web/index.js';
import { registerSecurityHeaders } from './http/web/security.js';
import { registerThemeRoute } from './http/web/theme.js';
import type { LinkService } from './links/index.js';
import type { LinkSuggestions } from './llm/index.js';
import type { Metrics } from './metrics.js';
import { STATIC_DIR } from './paths.js';
import { isBusy, isUnavailable } from './store/dbErrors.js';
import type { Store } from './store/index.js';
import { PlainNotFound, ServerError, Unavailable } from './views/pages/errors.js';
import { Landing } from './views/pages/landing.js';
import type { ClickEvent } from './workers/clickWriter.js';

declare module 'fastify' {
  interface FastifyInstance {
    registeredRoutes: string[];
  }
}

export interface AppDeps {
  config: Config;
  store: Store;
  links: LinkService;
  /** LLM link suggestions, shared by REST and MCP; null when no provider is configured. */
  suggestions: LinkSuggestions | null;
  metrics: Metrics;
  recordClick(event: ClickEvent): void;
  /** Logger settings; tests pass `false`. */
  logger?: boolean | object;
}

/** Request bodies above this are refused with 413 (api.md §4.2). */
export const BODY_LIMIT = 1024 * 1024;

function isApiRequest(req: FastifyRequest): boolean {
  return req.url.startsWith('/api/') || req.url === '/mcp' || req.url.startsWith('/mcp?');
}

function sendApiError(reply: FastifyReply, status: number, code: string, message: string): FastifyReply {
  return reply.code(status).type('application/json').send({ error: message, code });
}

/**
 * Builds the Fastify instance: plugins, named routes, then the catch-all
 * resolver last so named routes always win (web-ui.md §2).
 */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, store } = deps;
  let closing = false;
  const fastRedirect = redirectFastPath({ ...deps, closing: () => closing });
  const app = Fastify({
    // Plain anonymous go-link hops are answered before Fastify's routing (see
    // redirectFastPath.ts); everything else, including every fall-through, is Fastify's.
    serverFactory: (handler, opts) => {
      const server = createServer((req, res) => {
        const served = fastRedirect(req, res);
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
    logger: deps.logger ?? { level: config.logLevel },
    // No line per request: a log write would cost the redirect path more than the lookup does.
    // Access logs belong to the reverse proxy or load balancer in front; errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    routerOptions: { maxParamLength: 2048 },
    // Malformed percent-encoding or an oversized path parameter never reaches a route; the API
    // still answers those in its error shape (api.md §4.2), everything else in plain text.
    frameworkErrors: (error, req, res) => {
      const reply = res as unknown as FastifyReply;
      if (isApiRequest(req)) sendApiError(reply, 400, 'BAD_REQUEST', 'malformed request URL');
      else reply.code(400).type('text/plain; charset=utf-8').send(error.message);
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

  await app.register(cookie);
  await app.register(formbody);
  // Before any route, so every response (and the API docs' own policy) gets its headers.
  await registerSecurityHeaders(app, config);
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

  app.setErrorHandler(async (error: Error & { statusCode?: number; code?: string }, req, reply) => {
    if (isAppError(error)) {
      if (isApiRequest(req)) return sendApiError(reply, error.status, error.code, error.message);
      return sendHtml(
        req,
        reply,
        await pageContext(deps, req).catch(() => fallbackCtx(req)),
        'Error',
        <PlainNotFound message={error.message} />,
        error.status,
      );
    }
    if (error.statusCode === 413 || error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return isApiRequest(req)
        ? sendApiError(reply, 413, 'PAYLOAD_TOO_LARGE', 'request body too large (limit 1 MiB)')
        : reply.code(413).type('text/plain').send('request body too large');
    }
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
      return isApiRequest(req)
        ? sendApiError(reply, 400, 'BAD_REQUEST', error.message || 'invalid request')
        : reply.code(error.statusCode).type('text/plain').send(error.message);
    }
    if (isUnavailable(error) || isBusy(error)) {
      req.log.warn({ err: error }, 'database unavailable');
      if (isApiRequest(req)) return sendApiError(reply, 503, 'UNAVAILABLE', 'database unavailable, please retry later');
      return sendHtml(req, reply, fallbackCtx(req), 'Unavailable', <Unavailable />, 503);
    }
    req.log.error({ err: error }, 'unhandled error');
    if (isApiRequest(req)) return sendApiError(reply, 500, 'INTERNAL_ERROR', 'internal error');
    return sendHtml(req, reply, fallbackCtx(req), 'Error', <ServerError />, 500);
  });

  app.setNotFoundHandler(async (req, reply) => {
    if (isApiRequest(req)) return sendApiError(reply, 404, 'NOT_FOUND', 'not found');
    return sendHtml(req, reply, await pageContext(deps, req).catch(() => fallbackCtx(req)), 'Not found', <PlainNotFound />, 404);
  });

  const fallbackCtx = (req: FastifyRequest) => ({
    user: null,
    theme: null,
    path: req.url.split('?')[0]!,
    shortKeyword: config.shortKeyword || 'go',
  });

  // Cross-site protection and the session hook run before every route below.
  registerAuth(app, deps);
  registerSystemRoutes(app, deps);
  registerThemeRoute(app);
  // The OpenAPI collector must see the API routes being added, so it comes first.
  await registerOpenApi(app);
  await registerApiRoutes(app, deps);
  // After the API, whose root hook sets the per-token budget /mcp shares; before the resolver.
  await registerMcp(app, deps);

  app.get('/', async (req, reply) => {
    const user = await currentUser(req, store);
    if (user) return reply.redirect('/dashboard', 302);
    const ctx = await pageContext(deps, req, null);
    return sendHtml(req, reply, ctx, 'Welcome', <Landing shortKeyword={ctx.shortKeyword} />);
  });

  registerWebRoutes(app, deps);
  registerStateLinkRoutes(app, deps);
  registerResolver(app, deps);
  return app;
}
