import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { bearerToken } from '../../auth/bearer.js';
import { isPatShaped, sha256Hex } from '../../domain/secrets.js';
import type { Config } from '../../config.js';
import { clientIp } from '../../domain/clientIp.js';
import { AppError } from '../../domain/errors.js';

/**
 * Request budgets (api.md §4.7): each bearer token gets JOE_API_RATE_LIMIT
 * requests per minute across `/api/v1` and `/mcp`; the two public routes are
 * budgeted per client IP instead. Counters live in this process's memory, so
 * with N replicas a token may make up to N × the limit (README). The exports
 * pass through here like every other request, so a bulk download spends the
 * same budget.
 */

const WINDOW_MS = 60_000;

/**
 * Counters kept per limiter (least recently used evicted first). Generous, so
 * a flood of made-up keys cannot push a busy token's counter out and reset it.
 */
const MAX_KEYS = 100_000;

/** Unauthenticated and keyed by client address (api.md §4.1 rule 3). */
const PUBLIC_PATHS = new Set(['/api/v1/config', '/api/v1/keywords']);

function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

function isBudgeted(path: string): boolean {
  return path === '/api/v1' || path.startsWith('/api/v1/') || path === '/mcp' || path.startsWith('/mcp/');
}

export async function registerApiRateLimit(app: FastifyInstance, config: Pick<Config, 'apiRateLimit' | 'trustedProxies'>): Promise<void> {
  if (config.apiRateLimit <= 0) return;
  await app.register(rateLimit, {
    global: false,
    max: config.apiRateLimit,
    timeWindow: WINDOW_MS,
    cache: MAX_KEYS,
    // Thrown into the error handler, which answers every AppError in the API's shape.
    errorResponseBuilder: (_req, ctx) => new AppError('RATE_LIMITED', `rate limit exceeded, retry in ${ctx.after}`),
  });

  const ipKey = (req: FastifyRequest) => `ip:${clientIp(req.socket.remoteAddress ?? '', req.headers, config.trustedProxies)}`;
  // Only the digest is kept as a key, never a presented secret. A request without
  // something that could be a token spends its address's budget, so it cannot dodge
  // the limit by sending none or by varying junk.
  const tokenKey = (req: FastifyRequest) => {
    const token = bearerToken(req);
    return token === null || !isPatShaped(token) ? ipKey(req) : `token:${sha256Hex(token)}`;
  };
  const perToken = app.rateLimit({ keyGenerator: tokenKey, cache: MAX_KEYS });
  const perClient = app.rateLimit({ keyGenerator: ipKey, cache: MAX_KEYS });

  // One root hook rather than route options, so routes registered by other modules
  // (the MCP endpoint, later API resources) are covered without opting in.
  app.addHook('onRequest', async (req: FastifyRequest, reply: FastifyReply) => {
    const path = pathOf(req.url);
    if (PUBLIC_PATHS.has(path)) return perClient.call(app, req, reply);
    if (isBudgeted(path)) return perToken.call(app, req, reply);
  });
}
