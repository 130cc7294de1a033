import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { Pool } from 'undici';
import { connect } from '../../src/db/connect.js';
import { migrateUp } from '../../src/db/migrate.js';
import { createStore } from '../../src/store/index.js';
import { spawnServer } from './support.js';
import { createLink } from '../helpers/links.js';

/**
 * 20,000 redirects from a concurrent keep-alive client, a
 * SIGTERM halfway through, and afterwards exactly one stored click for every
 * 302 the client received: in-flight requests finish, the click queue is
 * flushed, nothing answered is lost and nothing unanswered is recorded.
 * SQLite, the default database.
 */

const TOTAL = 20_000;
const CONNECTIONS = 32;

test('SIGTERM mid-stream under load: stored clicks equal the 302 responses received', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'joe-links-shutdown-'));
  const file = join(dir, 'joe-links.db');
  try {
    const db = connect({ driver: 'sqlite3', dsn: file });
    await migrateUp(db);
    const store = createStore(db);
    const owner = await store.users.create({ email: 'load@example.com' });
    await createLink(store, { slug: 'load', url: 'https://example.com/landing' }, owner.id);
    await db.close();

    const server = await spawnServer('sqlite', { JOE_DB_DRIVER: 'sqlite3', JOE_DB_DSN: file });
    const pool = new Pool(server.url, { connections: CONNECTIONS, pipelining: 1 });
    const statuses = new Map<number, number>();
    let redirects = 0;
    let errors = 0;
    let issued = 0;
    let sigtermAt = 0;
    let exitedAt = 0;
    void server.exited.then(() => (exitedAt = Date.now()));
    const started = Date.now();
    const worker = async () => {
      // Once the process is gone every further request is refused: the rest of the 20,000 adds nothing.
      while (issued < TOTAL && exitedAt === 0) {
        issued++;
        try {
          const res = await pool.request({ path: '/load', method: 'GET', headers: { 'user-agent': 'ops-test' } });
          await res.body.dump();
          statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
          if (res.statusCode === 302) {
            redirects++;
            assert.equal(res.headers.location, 'https://example.com/landing');
          }
        } catch {
          errors++; // refused or closed once the server stops accepting
        }
        if (sigtermAt === 0 && redirects >= TOTAL / 2) {
          sigtermAt = Date.now();
          server.child.kill('SIGTERM');
        }
      }
    };
    await Promise.all(Array.from({ length: CONNECTIONS }, worker));
    const trafficMs = Date.now() - started;
    const exit = await server.exited;
    const shutdownMs = exitedAt - sigtermAt;
    await pool.close().catch(() => {});
    assert.equal(exit.code, 0, server.output());
    assert.ok(sigtermAt > 0, 'SIGTERM was sent');

    const check = new SqliteDatabase(file, { readonly: true });
    const stored = (check.prepare('select count(*) as n from link_clicks').get() as { n: number }).n;
    check.close();
    process.stderr.write(
      `[ops] shutdown: ${issued} requests in ${trafficMs} ms, statuses ${JSON.stringify(Object.fromEntries(statuses))}, ` +
        `${errors} connection errors, SIGTERM→exit ${shutdownMs} ms, stored clicks ${stored}\n`,
    );
    assert.ok(redirects >= TOTAL / 2 && redirects < TOTAL, `SIGTERM landed mid-stream (${redirects} redirects)`);
    assert.equal(stored, redirects, 'one stored click per 302 received');
    for (const status of statuses.keys()) assert.ok(status === 302 || status === 503, `unexpected status ${status}`);
    assert.doesNotMatch(server.output(), /dropping event|may be lost/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
