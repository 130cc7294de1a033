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
import { createLink } from '../helpers/links.js';
import { spawnServer, waitFor } from './support.js';

/**
 * The drain after SIGTERM (docs/server.md#shutdown): for JOE_SHUTDOWN_DRAIN the replica tells
 * load balancers it is unready while it still answers everything, a proxy's kept-alive
 * connection included; then it closes, writes its clicks and exits 0.
 */

const DRAIN_MS = 4_000;

async function seeded(dir: string): Promise<string> {
  const file = join(dir, 'joe-links.db');
  const db = connect({ driver: 'sqlite3', dsn: file });
  await migrateUp(db);
  const store = createStore(db);
  const owner = await store.users.create({ email: 'drain@example.com' });
  await createLink(store, { slug: 'drain', url: 'https://example.com/drained' }, owner.id);
  await db.close();
  return file;
}

function storedClicks(file: string): number {
  const check = new SqliteDatabase(file, { readonly: true });
  try {
    return (check.prepare('select count(*) as n from link_clicks').get() as { n: number }).n;
  } finally {
    check.close();
  }
}

test('after SIGTERM /readyz answers 503 at once while redirects are still served; then it exits 0 with the click stored', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'joe-links-drain-'));
  try {
    const file = await seeded(dir);
    const server = await spawnServer('drain', { JOE_DB_DRIVER: 'sqlite3', JOE_DB_DSN: file, JOE_SHUTDOWN_DRAIN: `${DRAIN_MS}ms` });
    // One kept-alive connection, as a proxy holds to its upstream.
    const pool = new Pool(server.url, { connections: 1, pipelining: 1 });
    const get = async (path: string) => {
      const res = await pool.request({ path, method: 'GET' });
      return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
    };
    try {
      assert.equal((await get('/readyz')).status, 200);
      assert.notEqual((await get('/readyz')).headers.connection, 'close', 'kept alive before the shutdown');
      let exitedAt = 0;
      void server.exited.then(() => (exitedAt = Date.now()));

      const sigtermAt = Date.now();
      server.child.kill('SIGTERM');
      const fresh = (path: string) => fetch(`${server.url}${path}`, { redirect: 'manual' });
      let ready: Response | null = null;
      await waitFor('/readyz to answer 503', async () => (ready = await fresh('/readyz')).status === 503, 2_000, 20);
      assert.match(await ready!.text(), /^shutting down/);
      assert.ok(Date.now() - sigtermAt < 1_500, 'unready within moments of the signal');

      // Inside the window: still alive, still redirecting, on a new connection and on the kept one.
      assert.equal((await fresh('/healthz')).status, 200, '/healthz stays 200 while draining');
      const redirect = await get('/drain');
      assert.equal(redirect.status, 302);
      assert.equal(redirect.headers.location, 'https://example.com/drained');
      assert.equal(redirect.headers.connection, 'close', 'the kept-alive connection is closed after its response');
      assert.equal(exitedAt, 0, 'the process is still running inside the drain window');
      assert.ok(Date.now() - sigtermAt < DRAIN_MS, 'the redirect was answered inside the drain window');

      const exit = await server.exited;
      assert.deepEqual(exit, { code: 0, signal: null }, server.output());
      assert.ok(exitedAt - sigtermAt >= DRAIN_MS, `exited ${exitedAt - sigtermAt} ms after SIGTERM, not before the window ended`);
      assert.ok(
        server.lines.some((l) => l.msg === `draining for ${DRAIN_MS} ms: /readyz answers 503, requests are still served`),
        server.output(),
      );
      assert.equal(storedClicks(file), 1, 'the click made while draining is stored');
    } finally {
      await pool.close().catch(() => {});
      await server.stop('SIGKILL');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a second SIGTERM ends the drain window at once, and the shutdown still finishes cleanly', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'joe-links-drain-'));
  try {
    const file = await seeded(dir);
    const server = await spawnServer('drain-twice', { JOE_DB_DRIVER: 'sqlite3', JOE_DB_DSN: file, JOE_SHUTDOWN_DRAIN: '60s' });
    try {
      const sigtermAt = Date.now();
      server.child.kill('SIGTERM');
      await waitFor('/readyz to answer 503', async () => (await fetch(`${server.url}/readyz`)).status === 503, 2_000, 20);
      assert.equal((await fetch(`${server.url}/drain`, { redirect: 'manual' })).status, 302);
      server.child.kill('SIGTERM');
      const exit = await server.exited;
      assert.deepEqual(exit, { code: 0, signal: null }, server.output());
      assert.ok(Date.now() - sigtermAt < 30_000, 'the 60 s window was cut short');
      assert.ok(server.lines.some((l) => l.msg === 'SIGTERM received again, ending the drain'));
      assert.equal(storedClicks(file), 1);
    } finally {
      await server.stop('SIGKILL');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
