import rateLimit, { type CreateRateLimitOptions } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { bearerToken } from '../../auth/bearer.js';
import { requestUser } from '../../auth/currentUser.js';
import { isPatShaped, sha256Hex } from '../../domain/secrets.js';
import type { Config } from '../../config.js';
import { clientIp } from '../../domain/clientIp.js';
import { AppError } from '../../domain/errors.js';

/**
 * Request budgets: each bearer token gets JOE_API_RATE_LIMIT requests per
 * minute across `/api/v1` and `/mcp`; the public REST routes are budgeted per
 * client IP instead. Counters live in this process's memory, so
 * with N replicas a token may make up to N × the limit (README). The exports
 * pass through here like every other request, so a bulk download spends the
 * same budget. The click CSV export, which a signed-in browser reaches too,
 * also spends one budget per user that its web and API routes share
 * (docs/api.md#rate-limits).
 */

const WINDOW_MS = 60_000;

/**
 * Counters kept per limiter (least recently used evicted first). Generous, so
 * a flood of made-up keys cannot push a busy token's counter out and reset it.
 */
const MAX_KEYS = 100_000;

/** An onRequest hook spending one request of a budget; it answers 429 through the context's error handler. */
export type BudgetHook = (req: FastifyRequest, reply: FastifyReply) => Promise<void>;

export interface ApiBudgets {
  /** Per presented token (or, without a usable one, per client address): the authenticated REST API and /mcp. */
  perToken: BudgetHook | null;
  /** Per client address: the public REST routes. */
  perClient: BudgetHook | null;
  /**
   * Per user, whether signed in by session or by token: both click CSV export
   * routes. A route hook, run once the caller is known (after the bearer hook
   * or the web's requireUser), before the link is looked up.
   */
  clickExports: BudgetHook | null;
}

/**
 * Creates the budgets once, so that the REST API and /mcp, two contexts of
 * their own, spend the same per-token counters. Nothing is hooked here: each
 * context adds the budget its routes spend (http/api/index.ts, http/mcp.ts),
 * so every route registered inside one is covered without opting in. Both are
 * null when JOE_API_RATE_LIMIT is 0.
 */
export async function createApiBudgets(app: FastifyInstance, config: Pick<Config, 'apiRateLimit' | 'trustedProxies'>): Promise<ApiBudgets> {
  if (config.apiRateLimit <= 0) return { perToken: null, perClient: null, clickExports: null };
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
  // A second budget on a request the token's budget already spent: the plugin's hooks run
  // once per request, so this one is its bare counter and answers like them when over.
  const exportOptions: CreateRateLimitOptions & { cache: number } = {
    keyGenerator: (req) => `user:${requestUser(req).id}`,
    cache: MAX_KEYS,
  };
  const clickExports = app.createRateLimit(exportOptions);
  return {
    perToken: async (req, reply) => {
      await perToken.call(app, req, reply);
    },
    perClient: async (req, reply) => {
      await perClient.call(app, req, reply);
    },
    clickExports: async (req, reply) => {
      const spent = await clickExports(req);
      if (spent.isAllowed || !spent.isExceeded) return;
      // Under budget the X-RateLimit-* headers stay the token's; over it they tell this budget.
      reply.header('x-ratelimit-limit', spent.max).header('x-ratelimit-remaining', 0);
      reply.header('x-ratelimit-reset', spent.ttlInSeconds).header('retry-after', spent.ttlInSeconds);
      throw new AppError('RATE_LIMITED', `export rate limit exceeded, retry in ${spent.ttlInSeconds} s`);
    },
  };
}

/** Adds a budget to a context (nothing when rate limiting is off). */
export function spend(instance: FastifyInstance, budget: BudgetHook | null): void {
  if (budget) instance.addHook('onRequest', budget);
}
