import type { FastifyReply, FastifyRequest } from 'fastify';
import type { VNode } from 'preact';
import type { Config } from '../../config.js';
import { currentUser } from '../../auth/currentUser.js';
import type { Store } from '../../store/index.js';
import type { User } from '../../store/types.js';
import { parseTheme, type PageContext } from '../../views/context.js';
import { Layout } from '../../views/layout.js';
import { renderFragment, renderPage } from '../../views/render.js';
import type { ToastLevel } from '../../views/partials/ui.js';
import { shortKeyword } from '../shared/requestAddress.js';

/**
 * An HTMX request wants a fragment. A history-restore request (the browser
 * went back to a pushed URL whose snapshot was not cached) wants the whole page.
 */
export function isHtmx(req: FastifyRequest): boolean {
  return req.headers['hx-request'] === 'true' && req.headers['hx-history-restore-request'] !== 'true';
}

/**
 * A JSON header value (HX-Trigger) kept to visible ASCII: Node refuses other
 * bytes in headers, and JSON's \u escapes carry them intact.
 */
export function jsonHeader(value: unknown): string {
  return JSON.stringify(value).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A toast as the page script shows it (static/js/app.js): `copy` adds a button that copies that text. */
export interface Toast {
  level: ToastLevel;
  message: string;
  copy?: string;
}

/**
 * Adds one event to the response's `HX-Trigger` header, keeping any already set, so a
 * change can announce itself (`linkCreated`) and show its toast in one answer.
 */
export function addTrigger(reply: FastifyReply, name: string, detail: unknown = null): FastifyReply {
  const existing = reply.getHeader('hx-trigger');
  let events: Record<string, unknown> = {};
  if (typeof existing === 'string' && existing !== '') {
    try {
      const parsed: unknown = JSON.parse(existing);
      events = parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : { [existing]: null };
    } catch {
      events = { [existing]: null };
    }
  }
  events[name] = detail;
  return reply.header('hx-trigger', jsonHeader(events));
}

/**
 * The one way a page says what just happened (docs/web-ui.md#feedback): the page script shows
 * `showToast` from `HX-Trigger` as a toast. HTMX swaps nothing on a 4xx/5xx, so a failure's
 * message travels the same way.
 */
export function toastHeader(reply: FastifyReply, toast: Toast): FastifyReply {
  return addTrigger(reply, 'showToast', toast);
}

export function errorToastHeader(reply: FastifyReply, message: string): FastifyReply {
  return toastHeader(reply, { level: 'error', message });
}

/**
 * The same message for a browser without JavaScript, whose form post ends in a redirect: a
 * short-lived cookie the next full page shows in its toast area and deletes
 * (docs/web-ui.md#feedback). It is HttpOnly; the page reads it on the server.
 */
const FLASH_COOKIE = 'flash';
const FLASH_MAX_CHARS = 300;

export function setFlash(reply: FastifyReply, level: ToastLevel, message: string): FastifyReply {
  const value = Buffer.from(JSON.stringify({ level, message: message.slice(0, FLASH_MAX_CHARS) })).toString('base64url');
  return reply.setCookie(FLASH_COOKIE, value, { path: '/', maxAge: 60, sameSite: 'lax', httpOnly: true });
}

function readFlash(req: FastifyRequest): PageContext['flash'] {
  const raw = (req.cookies as Record<string, string | undefined>)[FLASH_COOKIE];
  if (!raw || raw.length > 2 * FLASH_MAX_CHARS) return null;
  try {
    const v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as { level?: unknown; message?: unknown };
    const level = v.level === 'success' || v.level === 'error' || v.level === 'info' ? v.level : null;
    if (level === null || typeof v.message !== 'string' || v.message === '') return null;
    return { level, message: v.message.slice(0, FLASH_MAX_CHARS) };
  } catch {
    return null;
  }
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
    flash: readFlash(req),
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
  // A full page shows the pending message once.
  if (ctx.flash) reply.clearCookie(FLASH_COOKIE, { path: '/' });
  return reply.send(
    renderPage(
      <Layout ctx={ctx} title={title}>
        {body}
      </Layout>,
    ),
  );
}
