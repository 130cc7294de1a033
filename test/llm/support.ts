import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { Agent } from 'undici';

/**
 * Local stand-ins for the LLM providers and for destination pages: real HTTP
 * servers on 127.0.0.1 that speak each provider's wire format, record every
 * request, and can be told to fail in the ways real providers do.
 */

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON, when it is JSON. */
  json: any;
}

export type Handler = (req: RecordedRequest, res: http.ServerResponse) => unknown;

export interface LocalServer {
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Replaces how the next requests are answered. */
  handle(handler: Handler): void;
  close(): Promise<void>;
}

export async function startLocalServer(handler: Handler = (_r, res) => res.end()): Promise<LocalServer> {
  let current = handler;
  const requests: RecordedRequest[] = [];
  const sockets = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = text === '' ? undefined : JSON.parse(text);
      } catch {
        json = undefined;
      }
      const recorded = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, text, json };
      requests.push(recorded);
      Promise.resolve(current(recorded, res)).catch(() => res.destroy());
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    handle: (h) => {
      current = h;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** A chat completion as OpenAI (and Ollama, vLLM …) answer it. */
export function openAiReply(content: string | null): unknown {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'gpt-4o-mini',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 100, completion_tokens: 30, total_tokens: 130 },
  };
}

/** A Messages API answer as Anthropic sends it. */
export function anthropicReply(text: string): unknown {
  return {
    id: 'msg_test',
    type: 'message',
    role: 'assistant',
    model: 'claude-haiku-4-5-20251001',
    content: [{ type: 'text', text }],
    stop_reason: 'end_turn',
    usage: { input_tokens: 100, output_tokens: 30 },
  };
}

export const GOOD = { slug: 'team-wiki', title: 'Team wiki', description: 'Where the team writes things down.', tags: ['docs', 'team'] };

/**
 * An undici dispatcher that delivers every connection to `port` on
 * 127.0.0.1 as plain TCP, whatever host and scheme the URL names — so a
 * request to `https://api.anthropic.com/v1/messages` arrives, with that Host
 * header and path, at a local server.
 */
export function routeTo(port: number): Agent {
  return new Agent({
    connect: (_opts, callback) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => callback(null, socket));
      socket.once('error', (err) => callback(err, null));
    },
  });
}

/** Collects pino's JSON lines, for asserting on what the server logged. */
export function logCollector(): { stream: NodeJS.WritableStream; lines: () => any[] } {
  const out: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      out.push(
        ...chunk
          .toString('utf8')
          .split('\n')
          .filter((l: string) => l !== ''),
      );
      done();
    },
  });
  return { stream, lines: () => out.map((l) => JSON.parse(l)) };
}
