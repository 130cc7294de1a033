import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import net from 'node:net';

/**
 * Real servers on loopback addresses playing hostile or well-behaved
 * destinations for the health checker and the guarded client.
 */

export interface Hit {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** performance.now() when the request arrived. */
  at: number;
}

export interface TestDestination {
  /** `http://<host>:<port>` */
  origin: string;
  host: string;
  port: number;
  hits: Hit[];
  close(): Promise<void>;
}

function listen(server: net.Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as net.AddressInfo).port);
    });
  });
}

/** An HTTP server whose every request is recorded before `handler` answers it. */
export async function destination(
  handler: (req: IncomingMessage, res: ServerResponse, d: TestDestination) => void,
  opts: { host?: string; port?: number } = {},
): Promise<TestDestination> {
  const host = opts.host ?? '127.0.0.1';
  const hits: Hit[] = [];
  const sockets = new Set<net.Socket>();
  // Assigned once the server is listening; the handler only runs after that.
  // eslint-disable-next-line prefer-const
  let d: TestDestination;
  const server = http.createServer((req, res) => {
    hits.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, at: performance.now() });
    handler(req, res, d);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const port = await listen(server, host, opts.port ?? 0);
  const shown = host.includes(':') ? `[${host}]` : host;
  d = {
    origin: `http://${shown}:${port}`,
    host,
    port,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  return d;
}

/** A TCP server that speaks whatever `onSocket` writes; counts connections. */
export async function rawServer(
  onSocket: (socket: net.Socket) => void,
  opts: { host?: string; port?: number } = {},
): Promise<{ origin: string; port: number; connections: () => number; close(): Promise<void> }> {
  const host = opts.host ?? '127.0.0.1';
  const sockets = new Set<net.Socket>();
  let connections = 0;
  const server = net.createServer((s) => {
    connections++;
    sockets.add(s);
    s.on('error', () => {});
    s.on('close', () => sockets.delete(s));
    onSocket(s);
  });
  const port = await listen(server, host, opts.port ?? 0);
  return {
    origin: `http://${host}:${port}`,
    port,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * Two destinations on one port: one on 127.0.0.2 (standing in for a public
 * host) and one on 127.0.0.1 (the internal service an attacker is after).
 */
export async function pairOnOnePort(
  publicHandler: (req: IncomingMessage, res: ServerResponse) => void,
  internalHandler: (req: IncomingMessage, res: ServerResponse) => void = (_q, r) => r.end('internal secrets'),
): Promise<{ pub: TestDestination; internal: TestDestination; close(): Promise<void> }> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const pub = await destination(publicHandler, { host: '127.0.0.2' });
    try {
      const internal = await destination(internalHandler, { host: '127.0.0.1', port: pub.port });
      return { pub, internal, close: async () => void (await Promise.all([pub.close(), internal.close()])) };
    } catch {
      await pub.close();
    }
  }
  throw new Error('could not bind 127.0.0.1 and 127.0.0.2 on one port');
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
