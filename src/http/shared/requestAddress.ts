import type { FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import { isTrusted } from '../../domain/clientIp.js';

/**
 * How a request names this server: its host, the short keyword shown before slugs and the
 * origin of absolute short URLs. The web pages, the REST config and MCP payloads show them
 * alike, and the go-link front matches keyword hosts by the same host.
 */

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
