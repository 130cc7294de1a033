import type { FastifyInstance } from 'fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import { connect } from './db/connect.js';
import { migrationStatus } from './db/migrate.js';
import { DOCS_PREFIX } from './http/openapi.js';
import { createLinkService, KeywordService, UserService } from './links/index.js';
import { Resolver } from './resolve/resolver.js';
import { Metrics } from './metrics.js';
import { createStore } from './store/index.js';

export { formatOpenApiDocument } from './http/openapi.js';

/**
 * Builds the application once, without listening or touching a real
 * database, and returns the OpenAPI document it serves: what `npm run
 * openapi` writes to docs/openapi.json and what the freshness test compares
 * it with. `extend` adds routes to the REST API's authenticated context
 * (paths relative to /api/v1), so a test can watch the document change.
 */
export async function generateOpenApiDocument(opts: { extend?: (api: FastifyInstance) => void } = {}): Promise<Record<string, unknown>> {
  // An empty directory, so no joe-links.yaml of the caller's can change the routes.
  const cwd = mkdtempSync(join(tmpdir(), 'joe-links-openapi-'));
  const config = loadConfig({ cwd, env: { JOE_DB_DSN: ':memory:', JOE_LOG_LEVEL: 'silent', JOE_HEALTH_CHECKS_ENABLED: 'false' } });
  const db = connect(config.db);
  try {
    const store = createStore(db);
    const app = await buildApp({
      config,
      store,
      links: createLinkService(store, { mail: config.mail.smtp !== null }),
      users: new UserService(store),
      keywords: new KeywordService(store),
      resolver: new Resolver(store),
      suggestions: null,
      metrics: new Metrics(),
      recordClick: () => {},
      migrationStatus: () => migrationStatus(db),
      logger: false,
      extend: { api: opts.extend },
    });
    try {
      const res = await app.inject({ method: 'GET', url: `${DOCS_PREFIX}/swagger.json` });
      if (res.statusCode !== 200) throw new Error(`the OpenAPI document answered ${res.statusCode}`);
      return res.json<Record<string, unknown>>();
    } finally {
      await app.close();
    }
  } finally {
    await db.close();
    rmSync(cwd, { recursive: true, force: true });
  }
}
