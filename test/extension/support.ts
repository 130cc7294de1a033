import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as a server saw it. */
export interface SeenRequest {
  method: string;
  /** Path and query, as sent. */
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface RecordingServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  port: number;
  seen: SeenRequest[];
  close(): Promise<void>;
}

export interface RecordingProxy extends RecordingServer {
  /**
   * When set and returning `[status, body]`, the proxy answers that request
   * itself: how a test plays a server feature the joe-links server under test
   * does not have configured.
   */
  override: ((req: SeenRequest) => [number, unknown] | null) | null;
}

/**
 * A real HTTP server on 127.0.0.1 that keeps every request it receives, so a
 * test can prove what did (and did not) arrive: which paths, which headers.
 */
export async function startRecordingServer(
  respond: (req: SeenRequest, res: http.ServerResponse) => void | Promise<void>,
): Promise<RecordingServer> {
  const seen: SeenRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: SeenRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      seen.push(r);
      Promise.resolve(respond(r, res)).catch((err: unknown) => {
        res.statusCode = 500;
        res.end(String(err));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/**
 * A recording reverse proxy in front of `target`: the browser test points the
 * extension at it to see exactly which requests the extension made, with
 * which headers, while the real joe-links server answers them.
 */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const proxy: RecordingProxy = Object.assign(
    await startRecordingServer(async (req, res) => {
      const own = proxy.override?.(req) ?? null;
      if (own) return sendJson(res, own[0], own[1]);
      await forward(target, req, res);
    }),
    { override: null },
  );
  return proxy;
}

async function forward(target: string, req: SeenRequest, res: http.ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined || k === 'connection' || k === 'content-length' || k === 'transfer-encoding') continue;
    headers[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  const upstream = await fetch(`${target}${req.url}`, {
    method: req.method,
    headers,
    redirect: 'manual',
    ...(req.method === 'GET' || req.method === 'HEAD' ? {} : { body: req.body }),
  });
  const out: Record<string, string> = {};
  upstream.headers.forEach((v, k) => {
    if (k !== 'content-encoding' && k !== 'content-length' && k !== 'transfer-encoding' && k !== 'connection') out[k] = v;
  });
  res.writeHead(upstream.status, out);
  res.end(Buffer.from(await upstream.arrayBuffer()));
}
