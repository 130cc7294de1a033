import http from 'node:http';
import { createServer } from 'node:net';
import { gunzipSync, gzipSync } from 'node:zlib';
import { startTestServer, type TestServer } from '../helpers/server.js';

export const PREFIX = '#state=v1.';

/** The seed's browser encoding, done with Node's zlib: prefix + base64url(gzip(JSON)). */
export function encodeState(state: unknown, prefix = PREFIX): string {
  return prefix + gzipSync(Buffer.from(JSON.stringify(state), 'utf8')).toString('base64url');
}

/** What the app does on the other side of the redirect. */
export function decodeFragment(fragment: string, prefix = PREFIX): unknown {
  if (!fragment.startsWith(prefix)) throw new Error(`fragment without prefix: ${fragment.slice(0, 40)}`);
  return JSON.parse(gunzipSync(Buffer.from(fragment.slice(prefix.length), 'base64url')).toString('utf8'));
}

/** Wraps raw gzip bytes as a payload body. */
export const asBody = (bytes: Uint8Array, prefix = PREFIX): string => prefix + Buffer.from(bytes).toString('base64url');

/** A free loopback port, so PUBLIC_ORIGIN can name the server's real address before it starts. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export interface StateServer extends TestServer {
  /** http://127.0.0.1:<port>, also the default PUBLIC_ORIGIN. */
  origin: string;
  clock: { now: number };
}

/**
 * The real server with a fake clock (shared by the store, the limiters and
 * the jobs) and JOE_BASE_URL naming its own address, as in production.
 */
export async function startStateServer(env: Record<string, string> = {}, tickMs?: number): Promise<StateServer> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const clock = { now: Date.UTC(2026, 0, 15, 12, 0, 0) };
  const s = await startTestServer({
    env: { JOE_HTTP_ADDR: `127.0.0.1:${port}`, JOE_BASE_URL: origin, ...env },
    start: { now: () => clock.now, ...(tickMs ? { scheduler: { tickMs } } : {}) },
  });
  return Object.assign(s, { origin, clock });
}

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The JSON body; which fields are present depends on the answer. */
  json(): { error: string; id: string; url: string; payload: string; createdAt: string };
}

/** One request with any headers and a string or byte body; follows nothing. */
export function request(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: opts.method ?? 'GET', headers: opts.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body) });
      });
    });
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

/** `POST /api/links` as a non-browser client (text/plain, no Origin). */
export function postLink(base: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<Answer> {
  return request(`${base}/api/links`, { method: 'POST', headers: { 'content-type': 'text/plain', ...headers }, body });
}

export const DAY = 86_400_000;
