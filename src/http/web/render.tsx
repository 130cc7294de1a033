import type { FastifyReply, FastifyRequest } from 'fastify';
import type { VNode } from 'preact';
import type { Config } from '../../config.js';
import { currentUser } from '../../auth/currentUser.js';
import type { Store } from '../../store/index.js';
import type { User } from '../../store/types.js';
import { parseTheme, type PageContext } from '../../views/context.js';
import { Layout } from '../../views/layout.js';
import { renderFragment, renderPage } from '../../views/render.js';

export function isHtmx(req: FastifyRequest): boolean {
  return req.headers['hx-request'] === 'true';
}

/** The request host without its port (`go.example.com:8080` → `go.example.com`, `[::1]:80` → `::1`). */
export function requestHost(req: FastifyRequest): string {
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

export interface PageDeps {
  config: Config;
  store: Store;
}

export async function pageContext(deps: PageDeps, req: FastifyRequest, user?: User | null): Promise<PageContext> {
  return {
    user: user === undefined ? await currentUser(req, deps.store) : user,
    theme: parseTheme((req.cookies as Record<string, string | undefined>).theme),
    path: req.url.split('?')[0]!,
    shortKeyword: shortKeyword(deps.config, req),
  };
}

/**
 * Sends HTML: only the content fragment for HTMX requests, the full layout
 * otherwise (core.md §1.5). Pages are never cached by shared caches.
 */
export function sendHtml(req: FastifyRequest, reply: FastifyReply, ctx: PageContext, title: string, body: VNode, status = 200): FastifyReply {
  reply.code(status).type('text/html; charset=utf-8');
  if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'private, no-store');
  if (isHtmx(req)) return reply.send(renderFragment(body));
  return reply.send(renderPage(
    <Layout ctx={ctx} title={title}>
      {body}
    </Layout>,
  ));
}
