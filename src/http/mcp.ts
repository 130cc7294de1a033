import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requestUser } from '../auth/currentUser.js';
import type { Config } from '../config.js';
import type { LinkSuggestions } from '../llm/index.js';
import type { Metrics } from '../metrics.js';
import type { KeywordService, LinkService } from '../links/index.js';
import type { Store } from '../store/index.js';
import type { User } from '../store/types.js';
import { answerApiError, apiNotFound } from './api/errors.js';
import { authenticate } from './api/guards.js';
import { spend, type ApiBudgets } from './shared/rateLimit.js';
import { JsonBodyError, acceptJsonBodies } from './jsonBody.js';
import { requestOrigin } from './shared/requestAddress.js';

/**
 * The MCP endpoint: Streamable HTTP at `/mcp`, stateless, one JSON response
 * per POST, registered as a context of its own with `prefix: MCP_PATH`.
 * Fastify stays in charge of the HTTP edge — the per-token budget it shares
 * with the REST API, bearer authentication before anything is parsed, the
 * 1 MiB body cap, security headers, the API's error and 404 bodies — and
 * hands the SDK's transport a web `Request`. JSON bodies are read by the
 * app's one rule (docs/api.md#request-bodies) and reach the SDK parsed; a
 * body that rule refuses is a JSON-RPC parse error, as the SDK answers JSON
 * it cannot parse; anything else reaches it as text, for its own errors.
 */

export const MCP_PATH = '/mcp';

/** Nothing served here is a document: the strictest policy, 401s included (docs/agents.md#mcp-endpoint). */
const MCP_HELMET = {
  contentSecurityPolicy: { useDefaults: false, directives: { 'default-src': ["'none'"] } },
};

/** Request headers the SDK has no use for; credentials stay with Fastify. */
const NOT_FORWARDED = new Set([
  'authorization',
  'cookie',
  'content-length',
  'transfer-encoding',
  'connection',
  'host',
  'keep-alive',
  'upgrade',
]);

function jsonRpcError(code: number, message: string): string {
  return JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
}

/** A body that is not JSON, kept as text for the SDK to refuse in its own words. */
class OtherBody {
  constructor(readonly text: string) {}
}

function webRequest(req: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || NOT_FORWARDED.has(name)) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  // A JSON body goes to the SDK parsed (parsedBody); the text is what it reads only otherwise.
  const body = req.method === 'POST' ? (req.body instanceof OtherBody ? req.body.text : '') : undefined;
  return new Request(`http://mcp.invalid${req.url}`, { method: req.method, headers, body });
}

/** The JSON body as the app's rule parsed it; undefined when there was none or it was not JSON. */
function parsedBody(req: FastifyRequest): unknown {
  return req.body instanceof OtherBody ? undefined : req.body;
}

/** The bearer hook's user; null would mean the hook never ran, which tools report as `unauthorized`. */
function bearerUser(req: FastifyRequest): User | null {
  try {
    return requestUser(req);
  } catch {
    return null;
  }
}

export interface McpDeps {
  config: Config;
  store: Pick<
    Store,
    'analytics' | 'browse' | 'groups' | 'health' | 'links' | 'now' | 'owners' | 'sessions' | 'shares' | 'tokens' | 'users'
  >;
  links: LinkService;
  keywords: KeywordService;
  suggestions: LinkSuggestions | null;
  metrics: Metrics;
  budgets: ApiBudgets;
}

/**
 * The MCP SDK and the tools, loaded by the first MCP request: a process that
 * never serves one (most do not) never loads the SDK and its schema library.
 */
const loadMcp = () => Promise.all([import('../mcp/server.js'), import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js')]);

export async function registerMcp(mcp: FastifyInstance, deps: McpDeps): Promise<void> {
  const { config, store, links, keywords, suggestions, metrics } = deps;

  async function exchange(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    let request: Request;
    try {
      request = webRequest(req);
    } catch {
      return reply.code(400).type('application/json').send(jsonRpcError(-32600, 'Invalid Request: unusable headers'));
    }
    const [{ createMcpServer }, { WebStandardStreamableHTTPServerTransport }] = await loadMcp();
    const server = createMcpServer(
      { metrics },
      { store, links, keywords, user: bearerUser(req), origin: requestOrigin(config, req), suggestions, log: req.log },
    );
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    // Transport complaints (bad Accept, bad JSON) are answered to the client already; the log keeps a trace.
    transport.onerror = (err) => req.log.debug({ err }, 'mcp transport rejected a request');
    try {
      await server.connect(transport);
      const response = await transport.handleRequest(request, { parsedBody: parsedBody(req) });
      const text = await response.text();
      reply.code(response.status).header('cache-control', 'no-store');
      response.headers.forEach((value, name) => {
        if (name !== 'content-length') reply.header(name, value);
      });
      return text === '' ? reply.send() : reply.send(text);
    } finally {
      await server.close().catch((err: unknown) => req.log.warn({ err }, 'closing the MCP server failed'));
    }
  }

  // Every path under /mcp answers failures and unknown methods in the API's body, and spends the
  // token's budget; a refused JSON body is a malformed message (docs/agents.md#mcp-errors).
  mcp.setErrorHandler((error: Error & { statusCode?: number; code?: string }, req, reply) =>
    error instanceof JsonBodyError
      ? reply
          .code(400)
          .type('application/json')
          .send(jsonRpcError(-32700, `Parse error: ${error.reason}`))
      : answerApiError(error, req, reply),
  );
  mcp.setNotFoundHandler(apiNotFound);
  spend(mcp, deps.budgets.perToken);
  // The bearer check answers 401 with the API's body; MCP clients also expect the challenge.
  mcp.addHook('onSend', async (_req, reply, payload) => {
    if (reply.statusCode === 401) reply.header('www-authenticate', 'Bearer realm="joe-links"');
    return payload;
  });
  // JSON through the app's rule; any other body reaches the SDK as text, and
  // it answers a wrong Content-Type with 415.
  mcp.removeAllContentTypeParsers();
  acceptJsonBodies(mcp);
  mcp.addContentTypeParser('*', { parseAs: 'string' }, (_req, body: string, done) => done(null, new OtherBody(body)));

  // The endpoint itself: bearer authentication before anything else.
  await mcp.register(async (endpoint) => {
    endpoint.addHook('onRequest', authenticate({ store }));
    const route = { helmet: MCP_HELMET, schema: { hide: true } };
    endpoint.post('', route, exchange);
    // No session exists to end, so DELETE is the SDK's stateless no-op.
    endpoint.delete('', route, exchange);
    // No server-initiated streams.
    endpoint.get('', route, async (_req, reply) =>
      reply
        .code(405)
        .header('allow', 'POST, DELETE')
        .type('application/json')
        .send(jsonRpcError(-32000, `Method not allowed: POST JSON-RPC messages to ${MCP_PATH}`)),
    );
  });
}
