import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pino } from 'pino';
import { createStore } from '../../../src/store/index.js';
import { HEALTH_CHECKER_JOB, healthCheckerJob, wakeIntervalMs } from '../../../src/workers/healthChecker.js';
import { JobScheduler } from '../../../src/workers/scheduler.js';
import { describeEachDatabase } from '../../helpers/databases.js';
import { eventually, startTestServer } from '../../helpers/server.js';
import { destination, sleep } from '../../net/destinations.js';
import { createLink } from '../../helpers/links.js';

/** The checker as a leased background job of the real server (docs/lifecycle.md#health-checks, docs/server.md#background-jobs-and-leases). */

const DAY = 86_400_000;
const silent = pino({ level: 'silent' });

describeEachDatabase('health-checker lease', (ctx) => {
  test('two replicas on one database: exactly one runs the job and probes; the other takes over when it stops', async () => {
    const c = ctx();
    const d = await destination((_q, r) => r.end());
    const runs: string[] = [];
    const replicas = ['A', 'B'].map((holder) => {
      // Each replica has its own store and scheduler over the shared database.
      const store = createStore(c.db, () => c.clock.now);
      const job = healthCheckerJob({ store, intervalMs: DAY, timeoutMs: 3_000, allowPrivate: true, log: silent });
      const scheduler = new JobScheduler({ leases: store.leases, log: silent, now: store.now, tickMs: 40, holder });
      scheduler.add({
        ...job,
        run: async (signal) => {
          runs.push(holder);
          await job.run(signal);
        },
      });
      return scheduler;
    });
    try {
      const owner = await c.store.users.create({ email: 'lease-owner@example.com' });
      const l = await createLink(c.store, { slug: 'lease-probe', url: `${d.origin}/` }, owner.id);
      for (const s of replicas) s.start();
      await eventually(async () => (await c.store.health.row(l.id)) !== null);
      await sleep(400);
      assert.equal(runs.length, 1, `runs: ${runs.join(',')}`);
      assert.equal(d.hits.length, 1, 'one probe, not one per replica');
      const first = runs[0]!;
      assert.equal(await c.store.leases.holderOf(HEALTH_CHECKER_JOB), first);
      await replicas.find((s) => s.holder === first)!.stop();
      const other = replicas.find((s) => s.holder !== first)!.holder;
      await eventually(async () => (await c.store.leases.holderOf(HEALTH_CHECKER_JOB)) === other);
      await sleep(200);
      assert.equal(runs.length, 1, 'the new holder follows the shared schedule: no extra run on takeover');
      const t0 = c.clock.now;
      try {
        c.clock.now = t0 + wakeIntervalMs(DAY);
        await eventually(() => runs.length === 2);
        assert.equal(runs[1], other, 'the other replica took over');
        assert.equal(d.hits.length, 1, 'the link was not due again, so the new runner sent nothing');
      } finally {
        c.clock.now = t0;
      }
    } finally {
      for (const s of replicas) await s.stop();
      await d.close();
    }
  });
});

describe('health checker inside the server', () => {
  test('JOE_HEALTH_CHECKS_ENABLED=false: the job never starts, nothing is requested, no row is written', async () => {
    const d = await destination((_q, r) => r.end());
    let linkId = '';
    const s = await startTestServer({
      env: { JOE_HEALTH_CHECKS_ENABLED: 'false', JOE_HEALTH_CHECK_ALLOW_PRIVATE: 'true' },
      start: {
        scheduler: { tickMs: 40 },
        onReady: async ({ store }) => {
          const u = await store.users.create({ email: 'off@example.com' });
          linkId = (await createLink(store, { slug: 'off', url: `${d.origin}/` }, u.id)).id;
        },
      },
    });
    try {
      await eventually(async () => (await s.store.leases.holderOf('session-sweep')) !== null);
      await sleep(300);
      assert.equal(await s.store.leases.holderOf(HEALTH_CHECKER_JOB), null);
      assert.equal(await s.store.health.row(linkId), null);
      assert.equal(d.hits.length, 0);
    } finally {
      await s.stop();
      await d.close();
    }
  });

  test('enabled with defaults: a link to 127.0.0.1 is skipped at startup and the destination never hears from us', async () => {
    const d = await destination((_q, r) => r.end());
    let linkId = '';
    const s = await startTestServer({
      env: { JOE_HEALTH_CHECKS_ENABLED: 'true' },
      start: {
        scheduler: { tickMs: 40 },
        onReady: async ({ store }) => {
          const u = await store.users.create({ email: 'on@example.com' });
          linkId = (await createLink(store, { slug: 'internal', url: `${d.origin}/` }, u.id)).id;
        },
      },
    });
    try {
      await eventually(async () => (await s.store.health.row(linkId)) !== null);
      const row = (await s.store.health.row(linkId))!;
      assert.equal(row.skipped, true);
      assert.equal(row.consecutiveFailures, 0);
      assert.equal(d.hits.length, 0);
    } finally {
      await s.stop();
      await d.close();
    }
  });

  test('enabled with JOE_HEALTH_CHECK_ALLOW_PRIVATE=true: the same link is probed with our User-Agent', async () => {
    const d = await destination((_q, r) => r.end());
    let linkId = '';
    const s = await startTestServer({
      env: { JOE_HEALTH_CHECKS_ENABLED: 'true', JOE_HEALTH_CHECK_ALLOW_PRIVATE: 'true' },
      start: {
        scheduler: { tickMs: 40 },
        onReady: async ({ store }) => {
          const u = await store.users.create({ email: 'private@example.com' });
          linkId = (await createLink(store, { slug: 'router', url: `${d.origin}/` }, u.id)).id;
        },
      },
    });
    try {
      await eventually(async () => (await s.store.health.row(linkId)) !== null);
      const row = (await s.store.health.row(linkId))!;
      assert.equal(row.lastStatus, 200);
      assert.equal(row.skipped, false);
      assert.equal(d.hits.length, 1);
      assert.match(String(d.hits[0]!.headers['user-agent']), /^joe-links-health\//);
    } finally {
      await s.stop();
      await d.close();
    }
  });
});
