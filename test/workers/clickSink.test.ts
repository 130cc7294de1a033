import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connect, type Db } from '../../src/db/connect.js';
import { migrateUp } from '../../src/db/migrate.js';
import { hashClientIp } from '../../src/domain/click.js';
import { Metrics } from '../../src/metrics.js';
import { CLICK_THREAD_NICE, createClickRecorder } from '../../src/workers/clickSink.js';
import { readdirSync, readFileSync } from 'node:fs';
import { createStore, type Store } from '../../src/store/index.js';
import type { ClickRecorder } from '../../src/workers/clickWriter.js';
import { CLICK_EPOCH, clickEvent, histogramTotals, metricTotal, newClickedLink } from '../helpers/clicks.js';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { eventually } from '../helpers/server.js';

/** On an SQLite file, clicks are written by a ClickWriter on a worker thread (clickSink.ts). */
describe('SQLite click worker', () => {
  let tdb: TestDatabase;
  let db: Db;
  let store: Store;
  const logged: string[] = [];
  const log = { warn: (m: string) => logged.push(m), error: (m: string) => logged.push(m) };

  before(async () => {
    tdb = await createTestDatabase('sqlite3');
    db = connect(tdb.config);
    await migrateUp(db);
    store = createStore(db);
  });
  after(async () => {
    await db.close();
    await tdb.drop();
  });

  const newLink = (slug: string) => newClickedLink(store, slug);

  const recorder = (metrics: Metrics, capacity?: number): ClickRecorder =>
    createClickRecorder(db, store.clicks, tdb.config.dsn, { metrics, log, ipHashSecret: 'k', capacity });

  test(
    'the click thread runs at a lower priority than the thread answering redirects',
    { skip: process.platform !== 'linux' },
    async () => {
      const niceOf = (tid: string) => {
        // Field 19 of /proc/<pid>/task/<tid>/stat, counted after the command's closing parenthesis.
        const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
      };
      const before = new Set(readdirSync('/proc/self/task'));
      const metrics = new Metrics({ processMetrics: false });
      const r = recorder(metrics);
      r.start();
      const link = await newLink('worker-nice');
      assert.equal(r.enqueue(clickEvent(link.id, 0)), true);
      await eventually(() => r.pending === 0, 60_000);
      const started = readdirSync('/proc/self/task').filter((t) => !before.has(t));
      assert.ok(started.map(niceOf).includes(CLICK_THREAD_NICE), `threads started: ${started.map((t) => `${t}:${niceOf(t)}`).join(' ')}`);
      assert.equal(niceOf(String(process.pid)), 0, 'the main thread keeps its priority');
      await r.close();
    },
  );

  test('stores each event as a row, counts it, and reports nothing pending afterwards', async () => {
    const link = await newLink('worker-rows');
    const other = await newLink('worker-rows-other');
    const clicker = await store.users.create({ email: 'worker-clicker@example.com' });
    // Every field varies from event to event, so a field carried in the wrong place or order shows.
    const events = Array.from({ length: 1_200 }, (_, i) => ({
      ...clickEvent(i % 3 === 0 ? other.id : link.id, i),
      userId: i % 4 === 0 ? clicker.id : null,
      userAgent: i % 5 === 0 ? undefined : `agent-${i}`,
      referer: i % 7 === 0 ? undefined : `https://ref.test/${i}?q=x`,
    }));
    const metrics = new Metrics({ processMetrics: false });
    const r = recorder(metrics);
    r.start();
    for (const e of events) assert.equal(r.enqueue(e), true);
    assert.ok(r.pending > 0, 'events are pending until the worker has stored them');
    // The worker thread itself starts first, which takes seconds on a loaded machine.
    await eventually(
      async () => (await store.clicks.countForLink(link.id)) + (await store.clicks.countForLink(other.id)) === 1_200,
      60_000,
    );
    await eventually(() => r.pending === 0);
    assert.equal(await metricTotal(metrics, 'joelinks_clicks_recorded_total'), 1_200);
    // The worker's batches reach the main thread's metrics too.
    const batches = await histogramTotals(metrics, 'joelinks_click_batch_size');
    assert.equal(batches.sum, 1_200);
    assert.ok(batches.count >= 1);
    assert.equal((await histogramTotals(metrics, 'joelinks_click_batch_duration_seconds')).count, batches.count);
    const rows = await db.kysely
      .selectFrom('link_clicks')
      .select(['link_id', 'user_id', 'ip_hash', 'user_agent', 'referrer', 'clicked_at'])
      .where('link_id', 'in', [link.id, other.id])
      .orderBy('clicked_at')
      .execute();
    assert.deepEqual(
      rows.map((row) => ({ ...row, clicked_at: Number(row.clicked_at) })),
      events.map((e) => ({
        link_id: e.linkId,
        user_id: e.userId,
        ip_hash: hashClientIp('k', e.ip, e.at),
        user_agent: e.userAgent ?? '',
        referrer: e.referer === undefined ? '' : e.referer.replace('?q=x', ''),
        clicked_at: e.at,
      })),
    );
    assert.equal(rows[0]!.clicked_at, CLICK_EPOCH);
    assert.equal(await r.close(), true);
  });

  test('a click on a link deleted before the worker stores it is let go; the rest of its batch is stored', async () => {
    const gone = await newLink('worker-gone');
    const kept = await newLink('worker-kept');
    const metrics = new Metrics({ processMetrics: false });
    const r = recorder(metrics);
    r.start();
    r.enqueue(clickEvent(gone.id, 1));
    for (let i = 2; i < 100; i++) r.enqueue(clickEvent(kept.id, i));
    assert.equal(await store.links.delete(gone.id), true);
    assert.equal(await r.close(5_000), true, 'the batch was stored instead of retried forever');
    assert.equal(await store.clicks.countForLink(kept.id), 98);
    assert.equal(await store.clicks.countForLink(gone.id), 0);
    assert.equal(await metricTotal(metrics, 'joelinks_clicks_dropped_total'), 0);
  });

  test('close stores everything still queued, then refuses and counts new events', async () => {
    const link = await newLink('worker-close');
    const metrics = new Metrics({ processMetrics: false });
    const r = recorder(metrics);
    r.start();
    for (let i = 0; i < 5_000; i++) r.enqueue(clickEvent(link.id, i));
    assert.equal(await r.close(30_000), true);
    assert.equal(await store.clicks.countForLink(link.id), 5_000);
    assert.equal(r.enqueue(clickEvent(link.id, 5_001)), false);
    assert.equal(await metricTotal(metrics, 'joelinks_clicks_dropped_total'), 1);
    assert.equal(await store.clicks.countForLink(link.id), 5_000);
  });

  test('a full channel drops and counts on the redirect thread instead of blocking', async () => {
    const link = await newLink('worker-full');
    const metrics = new Metrics({ processMetrics: false });
    const r = recorder(metrics, 5);
    const accepted = Array.from({ length: 8 }, (_, i) => r.enqueue(clickEvent(link.id, i)));
    assert.deepEqual(accepted, [true, true, true, true, true, false, false, false]);
    assert.equal(await metricTotal(metrics, 'joelinks_clicks_dropped_total'), 3);
    assert.equal(await r.close(), true);
    assert.equal(await store.clicks.countForLink(link.id), 5);
  });

  test('the main connection leaves WAL checkpoints to the worker', async () => {
    const r = recorder(new Metrics({ processMetrics: false }));
    try {
      assert.equal(db.sqlite!.pragma('wal_autocheckpoint', { simple: true }), 0);
    } finally {
      await r.close();
    }
  });
});
