import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requestUser } from '../../../src/auth/currentUser.js';
import { requireAdmin, requireUser } from '../../../src/http/web/guards.js';
import { loadConfig } from '../../../src/config.js';
import type { Store } from '../../../src/store/index.js';
import { isMethodOverride, webRoute } from '../../../src/http/web/methodOverride.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

/**
 * A real server with a few extra routes behind the real guards, standing in
 * for the dashboard and admin pages. They are registered inside the web
 * context's pages, so they pass exactly the hooks a real page does.
 */

export interface ProbedServer {
  s: TestServer;
  /** Every handler run of the write probes: `PUT:<id>` / `DELETE:<id>`, with `+override` for form posts. */
  writes: string[];
}

export async function startProbedServer(env: Record<string, string> = {}, start: { now?: () => number } = {}): Promise<ProbedServer> {
  const writes: string[] = [];
  // The guards read only cookie and page settings, which come from `env` alone.
  const config = loadConfig({ cwd: mkdtempSync(join(tmpdir(), 'joe-links-cfg-')), env: { JOE_INSECURE_COOKIES: 'true', ...env } });
  let store: Store | null = null;
  const s = await startTestServer({
    env,
    start: {
      ...start,
      onReady: async (server) => {
        store = server.store;
      },
      extend: {
        pages: (app) => {
          const deps = {
            config,
            get store(): Store {
              if (!store) throw new Error('the probes ran before the server was ready');
              return store;
            },
          };
          app.get('/dashboard/probe', { preHandler: requireUser(deps) }, async (req) => `user:${requestUser(req).email}`);
          app.get('/admin/probe', { preHandler: requireAdmin(deps) }, async (req) => `admin:${requestUser(req).email}`);
          for (const method of ['PUT', 'DELETE'] as const) {
            webRoute(app, method, '/dashboard/probe/:id', { preHandler: requireUser(deps) }, async (req) => {
              const entry = `${method}:${(req.params as { id: string }).id}${isMethodOverride(req) ? '+override' : ''}`;
              writes.push(entry);
              return entry;
            });
          }
        },
      },
    },
  });
  return { s, writes };
}
