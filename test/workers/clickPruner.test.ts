import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import pino from 'pino';
import { loadConfig } from '../../src/config.js';
import { connect } from '../../src/db/connect.js';
import { createStore } from '../../src/store/index.js';
import { Metrics } from '../../src/metrics.js';
import { PRUNE_BATCH } from '../../src/store/clickRetention.js';
import { CLICK_PRUNER_INTERVAL_MS, clickPrunerJob } from '../../src/workers/clickPruner.js';
import { periodicJobs } from '../../src/workers/jobs.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { startTestServer } from '../helpers/server.js';
import { addClicks, DAY, mkLink, mkUser } from '../store/analyticsFixtures.js';

/** Click retention (docs/analytics.md#retention) on every database. */

function capturingLog() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      for (const l of chunk.toString().split('\n')) if (l) lines.push(JSON.parse(l).msg as string);
      cb();
    },
  });
  return { log: pino({ level: 'info' }, stream), lines };
}

async function prunedTotal(m: Metrics): Promise<number> {
  const metric = (await m.registry.getMetricsAsJSON()).find((x) => x.name === 'joelinks_clicks_pruned_total');
  return (metric?.values ?? []).reduce((s, v) => s + v.value, 0);
}

describeEachDatabase('click retention pruner', (ctx) => {
  const NOW = Date.UTC(2026, 6, 17, 14, 0, 0);

  test('JOE_CLICK_RETENTION=365: 400-day-old clicks go, 300-day-old stay, the run is logged and counted', async () => {
    const c = ctx();
    c.clock.now = NOW;
    const owner = await mkUser(c.store, 'Olive');
    const link = await mkLink(c, owner);
    await addClicks(c.store, link.id, [
      ...Array.from({ length: 3 }, (_, i) => ({ at: NOW - 400 * DAY - i })),
      { at: NOW - 365 * DAY - 1 },
      { at: NOW - 365 * DAY },
      ...Array.from({ length: 2 }, (_, i) => ({ at: NOW - 300 * DAY - i })),
    ]);
    const metrics = new Metrics({ processMetrics: false });
    const { log, lines } = capturingLog();
    const job = clickPrunerJob({ retention: c.store.clickRetention, metrics, log, now: c.store.now, retentionDays: 365 });
    assert.equal(job.name, 'click-pruner');
    assert.equal(job.runAtStart, true);
    assert.ok(job.intervalMs <= 24 * 3_600_000, 'runs at least daily');
    await job.run(new AbortController().signal);

    assert.equal(await c.store.clicks.countForLink(link.id), 3, 'the 300-day-old clicks and the one exactly at the horizon remain');
    assert.equal(await prunedTotal(metrics), 4);
    assert.ok(
      lines.some((l) => /deleted 4 click rows/.test(l)),
      lines.join('\n'),
    );

    // A second run finds nothing and says so.
    await job.run(new AbortController().signal);
    assert.equal(await prunedTotal(metrics), 4);
    assert.ok(lines.some((l) => /deleted 0 click rows/.test(l)));
  });

  test('25,000 expired clicks are deleted in at least three bounded batches', async () => {
    const c = ctx();
    c.clock.now = NOW;
    const owner = await mkUser(c.store, 'Olive');
    const link = await mkLink(c, owner);
    const keep = await mkLink(c, owner);
    await addClicks(
      c.store,
      link.id,
      Array.from({ length: 25_000 }, (_, i) => ({ at: NOW - 500 * DAY + i })),
    );
    await addClicks(
      c.store,
      keep.id,
      Array.from({ length: 10 }, (_, i) => ({ at: NOW - 100 * DAY + i })),
    );
    const batches: number[] = [];
    const r = await c.store.clickRetention.pruneClicksOlderThan(NOW - 365 * DAY, { onBatch: (n) => batches.push(n) });
    assert.equal(r.deleted, 25_000);
    assert.ok(r.batches >= 3, `${r.batches} batches`);
    assert.ok(batches.every((n) => n <= PRUNE_BATCH));
    assert.equal(await c.store.clicks.countForLink(link.id), 0);
    assert.equal(await c.store.clicks.countForLink(keep.id), 10);
  });

  test('one batch deletes at most 10,000 rows, oldest first', async () => {
    const c = ctx();
    c.clock.now = NOW;
    const owner = await mkUser(c.store, 'Olive');
    const link = await mkLink(c, owner);
    await addClicks(
      c.store,
      link.id,
      Array.from({ length: 10_005 }, (_, i) => ({ at: NOW - 600 * DAY + i })),
    );
    assert.equal(await c.store.clickRetention.pruneBatch(NOW, 50_000), PRUNE_BATCH);
    const left = await c.db.kysely
      .selectFrom('link_clicks')
      .select('clicked_at')
      .where('link_id', '=', link.id)
      .orderBy('clicked_at')
      .execute();
    assert.deepEqual(
      left.map((r) => Number(r.clicked_at)),
      [0, 1, 2, 3, 4].map((i) => NOW - 600 * DAY + 10_000 + i),
    );
  });
});

describe('retention configuration', () => {
  const base = { JOE_HEALTH_CHECKS_ENABLED: 'false', JOE_LOG_LEVEL: 'silent' };
  const deps = (env: Record<string, string>) => {
    const { log, lines } = capturingLog();
    const config = loadConfig({ cwd: '/nonexistent', env: { ...base, ...env } });
    // periodicJobs only builds job descriptions; nothing touches the database until a job runs.
    const db = connect({ driver: 'sqlite3', dsn: ':memory:' });
    const jobs = periodicJobs({ config, store: createStore(db), sqlite: db.sqlite, metrics: new Metrics({ processMetrics: false }), log });
    void db.close();
    return { jobs, lines };
  };

  test('unset means no pruner at all: nothing is ever deleted', () => {
    const { jobs, lines } = deps({});
    assert.ok(!jobs.some((j) => j.name === 'click-pruner'));
    assert.ok(
      jobs.some((j) => j.name === 'click-rollup'),
      'rollups are kept current either way',
    );
    assert.ok(!lines.some((l) => /retention/.test(l)));
    assert.ok(!deps({ JOE_CLICK_RETENTION: '0' }).jobs.some((j) => j.name === 'click-pruner'));
  });

  test('set: a leased click-pruner that runs at start and at least daily, announced at startup', () => {
    const { jobs, lines } = deps({ JOE_CLICK_RETENTION: '365' });
    const job = jobs.find((j) => j.name === 'click-pruner');
    assert.ok(job);
    assert.equal(job.runAtStart, true);
    assert.equal(job.intervalMs, CLICK_PRUNER_INTERVAL_MS);
    assert.ok(job.intervalMs < 24 * 3_600_000);
    assert.ok(
      lines.some((l) => /click retention enabled/.test(l) && /365-day horizon/.test(l)),
      lines.join('\n'),
    );
  });

  test('the server logs that retention is active with its horizon when it starts', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, cb) {
        for (const l of chunk.toString().split('\n')) if (l) lines.push(JSON.parse(l).msg as string);
        cb();
      },
    });
    const server = await startTestServer({ env: { JOE_CLICK_RETENTION: '365' }, start: { logger: { level: 'info', stream } } });
    try {
      assert.ok(
        lines.some((l) => /click retention enabled/.test(l) && /365-day horizon/.test(l)),
        lines.join('\n'),
      );
    } finally {
      await server.stop();
    }
  });
});
