import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pg from 'pg';
import { Pool } from 'undici';
import { connect } from '../../src/db/connect.js';
import { migrateUp } from '../../src/db/migrate.js';
import { createStore } from '../../src/store/index.js';
import {
  metricValue,
  pgClusterUnavailable,
  skipWithout,
  spawnServer,
  startPgCluster,
  waitFor,
  type PgCluster,
  type ServerProcess,
} from './support.js';
import { createLink } from '../helpers/links.js';

/**
 * PostgreSQL stops and starts under the server's feet.
 * A private throwaway cluster (initdb + pg_ctl on its own port) stands in for
 * the database, so stopping it disturbs nobody else's tests. While it is down
 * every request answers 503 quickly (the API in its error shape); when it
 * returns the server recovers by itself; clicks that were waiting in the
 * queue when it went down are written afterwards, none dropped.
 */

const skip =
  skipWithout('JOE_TEST_PG_DSN', 'the database restart test') ||
  (() => {
    const why = pgClusterUnavailable();
    if (why) process.stderr.write(`NOTICE: ${why}; the database restart test is skipped\n`);
    return why ?? false;
  })();

/** What "fail fast" means here: far below any client or proxy timeout. */
const FAST_MS = 2_000;

describe('database restart mid-traffic [postgres]', { skip }, () => {
  test('503 in the error shape while down, recovery without restart, queued clicks stored afterwards', async () => {
    let cluster: PgCluster | null = null;
    let server: ServerProcess | null = null;
    let http: Pool | null = null;
    try {
      cluster = await startPgCluster();
      const admin = new pg.Client({ connectionString: cluster.adminDsn });
      await admin.connect();
      await admin.query('create database jl_restart');
      await admin.end();
      const dsn = cluster.dsnFor('jl_restart');

      const db = connect({ driver: 'postgres', dsn }, { poolSize: 2 });
      await migrateUp(db);
      const store = createStore(db);
      const owner = await store.users.create({ email: 'ops@example.com' });
      const link = await createLink(store, { slug: 'outage', url: 'https://example.com/outage' }, owner.id);
      const { plaintext: token } = await store.tokens.create(owner.id, 'ops', null);
      await db.close();
      const clicksStored = async () => {
        const c = new pg.Client({ connectionString: dsn });
        await c.connect();
        try {
          const r = await c.query<{ n: string }>('select count(*) as n from link_clicks where link_id = $1', [link.id]);
          return Number(r.rows[0]!.n);
        } finally {
          await c.end();
        }
      };

      server = await spawnServer('pg-restart', { JOE_DB_DRIVER: 'postgres', JOE_DB_DSN: dsn });
      http = new Pool(server.url, { connections: 8 });
      const api = { authorization: `Bearer ${token}` };
      let redirects = 0;
      const hit = async (path: string, headers: Record<string, string> = {}) => {
        const t0 = Date.now();
        const res = await http!.request({ path, method: 'GET', headers });
        const body = await res.body.text();
        if (path === '/outage' && res.statusCode === 302) redirects++;
        return { status: res.statusCode, body, ms: Date.now() - t0, type: String(res.headers['content-type'] ?? '') };
      };
      const burst = async (n: number) => {
        const rs = await Promise.all(Array.from({ length: n }, () => hit('/outage')));
        for (const r of rs) assert.equal(r.status, 302);
      };

      await burst(100);
      await waitFor('the first clicks to be stored', async () => (await clicksStored()) === redirects);

      // Hold the click table so the next clicks are still queued in the server when the database goes away.
      const locker = new pg.Client({ connectionString: dsn });
      locker.on('error', () => {});
      await locker.connect();
      await locker.query('begin');
      await locker.query('lock table link_clicks in access exclusive mode');
      await burst(200);
      const queued = redirects - 100;

      // Traffic keeps flowing while the database stops.
      let stopping = true;
      const during: Array<{ status: number; ms: number }> = [];
      const background = (async () => {
        while (stopping) {
          const r = await hit('/outage').catch(() => null);
          if (r) during.push(r);
        }
      })();
      await cluster.stop();
      stopping = false;
      await background;

      // Down: fast 503s. API callers get the error shape; the redirect path an HTML page; probes say so.
      const down = {
        api: await hit('/api/v1/links', api),
        redirect: await hit('/outage'),
        ready: await hit('/readyz'),
        health: await hit('/healthz'),
        stateLink: await hit('/api/links/AAAAAAAAAA'),
      };
      assert.equal(down.api.status, 503);
      assert.deepEqual(JSON.parse(down.api.body), { error: 'database unavailable, please retry later', code: 'UNAVAILABLE' });
      assert.match(down.api.type, /^application\/json/);
      assert.equal(down.redirect.status, 503);
      assert.equal(down.ready.status, 503);
      assert.equal(down.health.status, 200, 'the process itself is fine');
      assert.equal(down.stateLink.status, 503);
      assert.deepEqual(JSON.parse(down.stateLink.body), { error: 'unavailable' });
      const timings = Object.values(down).map((r) => r.ms);
      const many = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? hit('/api/v1/links', api) : hit('/outage'))));
      for (const r of many) assert.equal(r.status, 503);
      const slowest = Math.max(...timings, ...many.map((r) => r.ms));
      assert.ok(slowest < FAST_MS, `slowest answer while down took ${slowest} ms`);

      // Back up: the same process recovers on its own.
      const restartedAt = Date.now();
      await cluster.start();
      await waitFor('/readyz to report ready again', async () => (await hit('/readyz')).status === 200, 30_000, 100);
      const recoveredMs = Date.now() - restartedAt;
      assert.equal((await hit('/api/v1/links', api)).status, 200);
      await burst(50);

      // Every click answered with a 302 — including the ones queued when the database went down — is stored.
      await waitFor('the queued clicks to be written', async () => (await clicksStored()) === redirects, 30_000, 200);
      const metrics = (await hit('/metrics')).body;
      assert.ok(metricValue(metrics, 'joelinks_clicks_record_errors_total') >= 1, 'a batch failed during the outage and was retried');
      assert.equal(metricValue(metrics, 'joelinks_clicks_dropped_total'), 0);
      process.stderr.write(
        `[ops] restart: ${queued} clicks held in the queue at stop, ${during.length} requests during the stop ` +
          `(${during.filter((r) => r.status === 503).length} × 503), slowest answer while down ${slowest} ms, ` +
          `ready ${recoveredMs} ms after pg_ctl start returned, ${redirects} redirects = ${await clicksStored()} stored clicks\n`,
      );
      const stop = await server.stop('SIGTERM');
      assert.equal(stop.code, 0, server.output());
    } finally {
      await http?.close().catch(() => {});
      await server?.stop('SIGKILL');
      await cluster?.destroy();
    }
  });
});
