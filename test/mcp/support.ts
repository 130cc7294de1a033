import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Agent, fetch as undiciFetch } from 'undici';
import type { TestServer } from '../helpers/server.js';
import { call, type Actor, type ApiResponse } from '../api/support.js';

/**
 * MCP over real HTTP: the SDK's own client and transport against a running
 * server, and a raw POST for what a well-behaved client never sends.
 */

export const ACCEPT = 'application/json, text/event-stream';

/**
 * An initialised SDK client acting as `as` (an actor or a raw token string).
 * `freshConnections`: every call on a connection of its own, for a client
 * that must not depend on a socket a stopped server left behind.
 */
export async function mcpClient(s: TestServer, as: Actor | string, opts: { freshConnections?: boolean } = {}): Promise<Client> {
  const token = typeof as === 'string' ? as : as.token;
  const client = new Client({ name: 'joe-links-tests', version: '1.0.0' });
  // undici: a pipelining of 0 turns keep-alive off.
  const dispatcher = opts.freshConnections ? new Agent({ pipelining: 0 }) : undefined;
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
      ...(dispatcher && { fetch: (url, init) => undiciFetch(url, { ...(init as object), dispatcher }) as never }),
    }),
  );
  return client;
}

export type ToolOutcome = { ok: true; payload: any; raw: any } | { ok: false; code: string; message: string; raw: any };

/**
 * Calls a tool and reads its result the way an agent would: structured
 * content on success, the `{code, message}` text block on a tool error.
 */
export async function tool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolOutcome> {
  const raw = (await client.callTool({ name, arguments: args })) as any;
  assert.ok(Array.isArray(raw.content) && raw.content[0]?.type === 'text', `${name}: a text content block`);
  const text = JSON.parse(raw.content[0].text);
  if (raw.isError) {
    assert.deepEqual(Object.keys(text).sort(), ['code', 'message'], `${name}: tool error shape ${raw.content[0].text}`);
    assert.equal(raw.structuredContent, undefined);
    return { ok: false, code: text.code, message: text.message, raw };
  }
  assert.deepEqual(raw.structuredContent, text, `${name}: structured content equals the text block`);
  return { ok: true, payload: raw.structuredContent, raw };
}

/** Calls a tool that must succeed and returns its payload. */
export async function ok(client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const r = await tool(client, name, args);
  assert.ok(r.ok, `${name} ${JSON.stringify(args)} failed: ${r.ok ? '' : `${r.code}: ${r.message}`}`);
  return r.payload;
}

/** Calls a tool that must fail with `code` and returns the message. */
export async function refused(client: Client, name: string, args: Record<string, unknown>, code: string): Promise<string> {
  const r = await tool(client, name, args);
  assert.ok(!r.ok, `${name} ${JSON.stringify(args)} should fail with ${code} but returned ${JSON.stringify(r.ok ? r.payload : null)}`);
  assert.equal(r.code, code, `${name}: ${r.message}`);
  return r.message;
}

/** One JSON-RPC message (or any body) POSTed to /mcp without the SDK. */
export async function rawMcp(
  s: TestServer,
  as: Actor | string | null,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<ApiResponse> {
  return call(s, 'POST', '/mcp', { as, body, headers: { accept: ACCEPT, ...headers } });
}

/** The value of one counter sample, read from `GET /metrics` as Prometheus would. */
export async function counter(s: TestServer, name: string, labels: Record<string, string>): Promise<number> {
  const text = (await call(s, 'GET', '/metrics')).text;
  const want = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort();
  for (const line of text.split('\n')) {
    const m = /^(\w+)\{([^}]*)\} (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = m[2]!.split(',').sort();
    if (JSON.stringify(have) === JSON.stringify(want)) return Number(m[3]);
  }
  return 0;
}
