import fastifyHelmet, { type FastifyHelmetOptions } from '@fastify/helmet';
import type { FastifyInstance, onSendHookHandler } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config.js';

/**
 * Security headers for every response (@fastify/helmet). The policy allows
 * scripts, styles, fonts and fetches from our own origin only: no inline
 * script, no eval. Pages load HTMX and their scripts from /static/, set
 * `htmx.config.allowEval=false` and `includeIndicatorStyles=false` through
 * `<meta name="htmx-config">` (the indicator styles live in app.css), and use
 * no `hx-on` attributes, so HTMX works under it. Framing is refused twice over
 * (`frame-ancestors 'none'` and `X-Frame-Options: DENY`), so no page can be
 * clickjacked.
 */
export const CSP_DIRECTIVES: Readonly<Record<string, string[]>> = Object.freeze({
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'script-src-attr': ["'none'"],
  'style-src': ["'self'"],
  // DaisyUI draws a few shapes (checkbox ticks, masks) with data: SVGs; the QR code is inline SVG.
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'"],
  'connect-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'self'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
});

/**
 * Swagger UI (`/api/docs/`, served by @fastify/swagger-ui) renders with
 * React and applies inline styles, which `style-src 'self'` blocks (the
 * browser test sees the violation), so only the docs' context (http/openapi.ts)
 * gives its routes this policy, where `style-src` also allows inline styles.
 * Scripts stay same-origin there too: the UI's scripts are static files.
 */
export const API_DOCS_CSP_DIRECTIVES: Readonly<Record<string, string[]>> = Object.freeze({
  ...CSP_DIRECTIVES,
  'style-src': ["'self'", "'unsafe-inline'"],
});

/** The route-level helmet settings of the docs (the form @fastify/helmet keeps in a route's config). */
export const API_DOCS_HELMET = { contentSecurityPolicy: { useDefaults: false, directives: { ...API_DOCS_CSP_DIRECTIVES } } };

/** What a destination learns of where a visitor came from: our origin only, never the path. */
export const REFERRER_POLICY = 'strict-origin-when-cross-origin';

export function helmetOptions(config: Pick<Config, 'baseUrl'>): HelmetOptions {
  return {
    contentSecurityPolicy: { useDefaults: false, directives: { ...CSP_DIRECTIVES } },
    // Our own pages link to /{slug} and keep the full referrer same-origin (click
    // analytics reads it); other sites learn only the origin.
    referrerPolicy: { policy: REFERRER_POLICY },
    frameguard: { action: 'deny' },
    crossOriginEmbedderPolicy: false,
    // Browsers honour Cross-Origin-Opener-Policy only over HTTPS (or on localhost) and log an
    // error on every page otherwise; many go-link servers answer plain http://go/, so it is
    // sent when the configured base URL is https.
    crossOriginOpenerPolicy: config.baseUrl.startsWith('https:') ? { policy: 'same-origin' } : false,
  };
}

/** The headers helmet sets for `options`, computed once (they depend on nothing in the request). */
export function precomputedHeaders(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const res = {
    setHeader: (name: string, value: string | number | readonly string[]) => {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader: (name: string) => {
      delete headers[name.toLowerCase()];
    },
  };
  helmet(options)({} as IncomingMessage, res as unknown as ServerResponse, () => undefined);
  return headers;
}

function appendHook<H>(existing: H | H[] | undefined, hook: H): H[] {
  const list = existing === undefined ? [] : Array.isArray(existing) ? existing : [existing];
  return [...list, hook];
}

export async function registerSecurityHeaders(app: FastifyInstance, config: Pick<Config, 'baseUrl'>): Promise<void> {
  const options = helmetOptions(config);
  // @fastify/helmet builds its middleware anew on every request (~15 µs); on
  // the redirect hot path that cost a third of the throughput in a local
  // measurement. The catch-all resolver therefore sets the same headers,
  // computed once from the same options, in one call, and only on responses
  // with a body: a bodiless redirect is never rendered, so a content policy or
  // framing rule means nothing there, while its ~600 bytes would be written
  // (and parsed by the client) on every go-link hop. The referrer policy is
  // kept on redirects because it governs what the destination learns.
  const resolverHeaders = precomputedHeaders(options);
  const redirectHeaders = { 'referrer-policy': REFERRER_POLICY };
  const setResolverHeaders: onSendHookHandler = function securityHeaders(_req, reply, payload, done) {
    const status = reply.statusCode;
    reply.headers(status === 302 || status === 204 ? redirectHeaders : resolverHeaders);
    done(null, payload);
  };
  // Runs before helmet's own onRoute hook (registered below), which reads `routeOptions.helmet`.
  app.addHook('onRoute', (route) => {
    if (route.config?.resolver === true) {
      (route as { helmet?: unknown }).helmet = false;
      route.onSend = appendHook(route.onSend, setResolverHeaders);
    }
  });
  // The same options object typed by each package's own declarations.
  await app.register(fastifyHelmet, options as FastifyHelmetOptions);
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Marks the catch-all resolver route (http/resolve.tsx). Declared here
     * because helmet's own `helmet` key turns this interface into one that
     * checks for unknown keys.
     */
    resolver?: boolean;
  }
}
