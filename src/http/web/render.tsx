import type { FastifyReply, FastifyRequest } from 'fastify';
import type { VNode } from 'preact';
import type { Config } from '../../config.js';
import { currentUser } from '../../auth/currentUser.js';
import { isTrusted } from '../../domain/clientIp.js';
import type { Store } from '../../store/index.js';
import type { User } from '../../store/types.js';
import { parseTheme, type PageContext } from '../../views/context.js';
import { Layout } from '../../views/layout.js';
import { renderFragment, renderPage } from '../../views/render.js';

/**
 * An HTMX request wants a fragment. A history-restore request (the browser
 * went back to a pushed URL whose snapshot was not cached) wants the whole page.
 */
export function isHtmx(req: FastifyRequest): boolean {
  return req.headers['hx-request'] === 'true' && req.headers['hx-history-restore-request'] !== 'true';
}

/** The request host without its port (`go.example.com:8080` → `go.example.com`, `[::1]:80` → `::1`). */
export function requestHost(req: { headers: { host?: string | undefined } }): string {
  const host = req.headers.host ?? '';
  const v6 = /^\[([^\]]*)\](?::\d+)?$/.exec(host);
  if (v6) return v6[1]!;
  return host.replace(/:\d*$/, '');
}

const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/**
 * The prefix shown before slugs (`go/jira`): JOE_SHORT_KEYWORD, else the first
 * DNS label of the request host; an IP address is shown whole.
 */
export function shortKeyword(config: Config, req: FastifyRequest): string {
  if (config.shortKeyword) return config.shortKeyword;
  const host = requestHost(req);
  if (host === '') return 'go';
  if (IPV4.test(host) || host.includes(':')) return req.headers.host ?? host;
  return host.split('.')[0]!;
}

/**
 * `scheme://host` of the request, for absolute short URLs and QR codes
 * (docs/web-ui.md#link-tables): the scheme comes from `X-Forwarded-Proto` only when the
 * peer is a trusted proxy (docs/server.md#client-address), else from the connection.
 */
export function requestOrigin(config: Pick<Config, 'trustedProxies'>, req: FastifyRequest): string {
  let scheme = (req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
  const forwarded = req.headers['x-forwarded-proto'];
  if (typeof forwarded === 'string' && isTrusted(req.socket.remoteAddress ?? '', config.trustedProxies)) {
    const first = forwarded.split(',')[0]!.trim().toLowerCase();
    if (first === 'http' || first === 'https') scheme = first;
  }
  return `${scheme}://${req.headers.host ?? 'localhost'}`;
}

/**
 * A JSON header value (HX-Trigger) kept to visible ASCII: Node refuses other
 * bytes in headers, and JSON's \u escapes carry them intact.
 */
export function jsonHeader(value: unknown): string {
  return JSON.stringify(value).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * For HTMX requests that fail: HTMX swaps nothing on a 4xx/5xx, so the page
 * script shows this message as an error toast instead (static/js/app.js).
 */
export function errorToastHeader(reply: FastifyReply, message: string): FastifyReply {
  return reply.header('hx-trigger', jsonHeader({ showToast: { level: 'error', message } }));
}

export interface PageDeps {
  config: Config;
  store: Pick<Store, 'now' | 'sessions' | 'users' | 'notifications'>;
}

export async function pageContext(deps: PageDeps, req: FastifyRequest, user?: User | null): Promise<PageContext> {
  const who = user === undefined ? await currentUser(req, deps.store) : user;
  return {
    user: who,
    theme: parseTheme((req.cookies as Record<string, string | undefined>).theme),
    path: req.url.split('?')[0]!,
    shortKeyword: shortKeyword(deps.config, req),
    // One indexed count per full page for the layout's bell; fragments have no layout.
    unreadNotifications: who && !isHtmx(req) ? await deps.store.notifications.unreadCount(who.id) : undefined,
  };
}

/**
 * Sends HTML: only the content fragment for HTMX requests, the full layout
 * otherwise (docs/server.md#http-basics). Pages are never cached by shared caches.
 */
export function sendHtml(
  req: FastifyRequest,
  reply: FastifyReply,
  ctx: PageContext,
  title: string,
  body: VNode,
  status = 200,
): FastifyReply {
  reply.code(status).type('text/html; charset=utf-8');
  if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'private, no-store');
  // The same URL answers a fragment or a page depending on this header.
  reply.header('vary', 'HX-Request');
  if (isHtmx(req)) return reply.send(renderFragment(body));
  return reply.send(
    renderPage(
      <Layout ctx={ctx} title={title}>
        {body}
      </Layout>,
    ),
  );
}
