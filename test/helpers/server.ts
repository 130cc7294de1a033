import http from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../../src/config.js';
import { startServer, type RunningServer, type StartOptions } from '../../src/server.js';
import type { Store } from '../../src/store/index.js';
import type { User } from '../../src/store/types.js';
import { createTestDatabase, type TestDatabase } from './databases.js';
import type { DbDriver } from '../../src/config.js';

export interface TestServer extends RunningServer {
  config: Config;
  database: TestDatabase;
  /** Closes the server and drops its database. */
  stop(): Promise<void>;
}

/**
 * Starts the real server (migrations, click writer, workers) on 127.0.0.1 and
 * a random port, over a fresh database. `env` adds JOE_* settings.
 */
export async function startTestServer(
  opts: { driver?: DbDriver; env?: Record<string, string>; start?: StartOptions } = {},
): Promise<TestServer> {
  const database = await createTestDatabase(opts.driver ?? 'sqlite3', { migrated: true });
  const cwd = mkdtempSync(join(tmpdir(), 'joe-links-cwd-'));
  const config = loadConfig({
    cwd,
    env: {
      JOE_HTTP_ADDR: '127.0.0.1:0',
      JOE_DB_DRIVER: database.config.driver,
      JOE_DB_DSN: database.config.dsn,
      JOE_INSECURE_COOKIES: 'true',
      JOE_HEALTH_CHECKS_ENABLED: 'false',
      JOE_LOG_LEVEL: 'silent',
      JOE_BACKUP_DIR: join(cwd, 'backups'),
      ...opts.env,
    },
  });
  const server = await startServer(config, { logger: false, ...opts.start });
  return {
    ...server,
    config,
    database,
    stop: async () => {
      await server.close();
      await database.drop();
    },
  };
}

/** Creates a session row for `user` and returns the Cookie header that carries it. */
export async function sessionCookie(store: Store, user: User, lifetimeMs = 3_600_000): Promise<string> {
  const { randomBytes } = await import('node:crypto');
  const token = randomBytes(32).toString('base64url');
  await store.sessions.create(token, { userId: user.id, role: user.role, createdAt: store.now() }, store.now() + lifetimeMs);
  return `session=${token}`;
}

export interface RawResponse {
  status: number;
  headers: { get(name: string): string | null; raw: http.IncomingHttpHeaders };
  text(): Promise<string>;
}

/**
 * A plain HTTP request that follows no redirects and lets tests set any
 * header, `Host` included (fetch forbids that).
 */
export function get(url: string, headers: Record<string, string> = {}, method = 'GET', body?: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({
          status: res.statusCode ?? 0,
          headers: {
            get: (name: string) => {
              const v = res.headers[name.toLowerCase()];
              return v === undefined ? null : Array.isArray(v) ? v.join(', ') : String(v);
            },
            raw: res.headers,
          },
          text: async () => text,
        });
      });
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** Waits until `cond` holds (the click writer is asynchronous by design). */
export async function eventually(cond: () => Promise<boolean> | boolean, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await cond()) return;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
