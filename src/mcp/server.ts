import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { TSchema } from '@sinclair/typebox';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { firstNulKey, nulMessage } from '../domain/nul.js';
import { asUser } from '../links/index.js';
import type { Metrics } from '../metrics.js';
import { APP_VERSION } from '../version.js';
import type { AuthedContext, ToolContext, ToolDefinition } from './context.js';
import { ToolError, toToolError } from './errors.js';
import { addGroupMemberTool, createGroupTool, getGroupTool, listGroupsTool, removeGroupMemberTool } from './groupTools.js';
import { getLinkHistoryTool, restoreLinkVersionTool } from './historyTools.js';
import { createLinkTool, deleteLinkTool, getLinkTool, listLinksTool, updateLinkTool } from './linkTools.js';
import {
  addCoOwnerTool,
  getLinkStatsTool,
  listKeywordsTool,
  shareLinkTool,
  suggestLinkMetadataTool,
  unshareLinkTool,
} from './memberTools.js';

/**
 * The MCP server of one HTTP request (docs/agents.md#mcp-endpoint): the
 * endpoint is stateless, so each POST gets a fresh SDK `Server` that lives
 * exactly as long as the request. The low-level `Server` is used rather than
 * `McpServer` because docs/agents.md#mcp-errors wants unknown tools and schema violations as
 * JSON-RPC errors, which `McpServer` would turn into tool results.
 */

export const SERVER_NAME = 'joe-links';

/** The complete inventory of docs/agents.md#mcp-tools, in the order `tools/list` shows it. */
export const TOOLS: readonly ToolDefinition[] = [
  createLinkTool,
  getLinkTool,
  listLinksTool,
  updateLinkTool,
  deleteLinkTool,
  shareLinkTool,
  unshareLinkTool,
  addCoOwnerTool,
  getLinkStatsTool,
  getLinkHistoryTool,
  restoreLinkVersionTool,
  suggestLinkMetadataTool,
  listKeywordsTool,
  listGroupsTool,
  getGroupTool,
  createGroupTool,
  addGroupMemberTool,
  removeGroupMemberTool,
];

interface CompiledTool {
  definition: ToolDefinition;
  check: TypeCheck<TSchema>;
  /** The input schema as plain JSON (TypeBox's symbol keys dropped), for `tools/list`. */
  listing: Tool;
}

const COMPILED: ReadonlyMap<string, CompiledTool> = new Map(
  TOOLS.map((t) => [
    t.name,
    {
      definition: t,
      check: TypeCompiler.Compile(t.input),
      listing: { name: t.name, description: t.description, inputSchema: JSON.parse(JSON.stringify(t.input)) as Tool['inputSchema'] },
    },
  ]),
);

/** This server never elicits input, so the SDK's schema validator for elicitation answers is never needed. */
const NO_ELICITATION: jsonSchemaValidator = {
  getValidator: () => () => ({ valid: false, data: undefined, errorMessage: 'elicitation is not supported' }),
};

function offered(ctx: ToolContext): CompiledTool[] {
  return [...COMPILED.values()].filter((t) => t.definition.available?.(ctx) ?? true);
}

function describeArgumentError(tool: CompiledTool, args: unknown): string {
  const first = tool.check.Errors(args).First();
  if (!first) return `invalid arguments for ${tool.definition.name}`;
  const field = first.path.replace(/^\//, '').replace(/\//g, '.');
  return `invalid arguments for ${tool.definition.name}: ${field === '' ? 'arguments' : field}: ${first.message}`;
}

function toolResult(payload: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(payload) }], structuredContent: payload };
}

function errorResult(err: ToolError): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify({ code: err.code, message: err.message }) }], isError: true };
}

export interface McpServerDeps {
  metrics: Metrics;
}

/**
 * Runs one tool call: argument check (JSON-RPC error), then the handler, whose
 * every failure becomes a structured tool error. Counted and logged once per
 * call, with the user id and never the token.
 */
async function callTool(deps: McpServerDeps, ctx: ToolContext, name: string, args: unknown): Promise<CallToolResult> {
  const tool = offered(ctx).find((t) => t.definition.name === name);
  // Unknown names are not counted: the metric's `tool` label only ever holds listed names.
  if (!tool) throw new McpError(ErrorCode.InvalidParams, `unknown tool: ${name}`);
  const userId = ctx.user?.id ?? null;
  const record = (outcome: 'success' | 'error', extra: Record<string, unknown> = {}) => {
    deps.metrics.mcpToolCalls.inc({ tool: name, outcome });
    ctx.log.info({ tool: name, user_id: userId, outcome, ...extra }, 'mcp tool call');
  };
  const input = args ?? {};
  if (!tool.check.Check(input)) {
    const message = describeArgumentError(tool, input);
    record('error', { reason: 'invalid_arguments' });
    throw new McpError(ErrorCode.InvalidParams, message);
  }
  try {
    if (!ctx.user) throw new ToolError('unauthorized', 'no authenticated user');
    // The one NUL rule (domain/nul.ts), checked on the whole call before any handler reads it.
    const nul = firstNulKey(input);
    if (nul) throw new ToolError('validation_failed', nulMessage(nul));
    const authed: AuthedContext = {
      ...ctx,
      user: ctx.user,
      actor: asUser(ctx.user, 'mcp'),
      viewer: { id: ctx.user.id, isAdmin: ctx.user.role === 'admin' },
    };
    const payload = await tool.definition.run(input, authed);
    record('success');
    return toolResult(payload);
  } catch (e) {
    const err = toToolError(e);
    if (err.code === 'internal_error') ctx.log.error({ err: e, tool: name, user_id: userId }, 'mcp tool failed');
    record('error', { code: err.code });
    return errorResult(err);
  }
}

/** A fresh SDK server for one request, answering `initialize`, `tools/list` and `tools/call`. */
export function createMcpServer(deps: McpServerDeps, ctx: ToolContext): Server {
  const server = new Server(
    { name: SERVER_NAME, version: APP_VERSION },
    { capabilities: { tools: {} }, jsonSchemaValidator: NO_ELICITATION },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: offered(ctx).map((t) => t.listing) }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => callTool(deps, ctx, request.params.name, request.params.arguments));
  return server;
}
