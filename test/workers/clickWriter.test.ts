import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import { sql } from 'kysely';
import { Metrics } from '../../src/metrics.js';
import { ClickWriter } from '../../src/workers/clickWriter.js';
import { CLICK_EPOCH, clickEvent, histogramTotals, metricTotal, newClickedLink } from '../helpers/clicks.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { deleteUser } from '../helpers/links.js';

const silent = pino({ level: 'silent' });

describeEachDatabase('click writer', (ctx) => {
  const newLink = (slug: string) => newClickedLink(ctx().store, slug);

  test('shutdown drains every queued click in batches', async () => {
    const { store } = ctx();
    const link = await newLink('drain');
    const metrics = new Metrics({ processMetrics: false });
    const w = new ClickWriter({ clicks: store.clicks, metrics, log: silent, ipHashSecret: 'k', batchSize: 500 });
    for (let i = 0; i < 2_345; i++) assert.equal(w.enqueue(clickEvent(link.id, i)), true);
    w.start();
    assert.equal(await w.close(30_000), true);
    assert.equal(await store.clicks.countForLink(link.id), 2_345);
    assert.equal(await metricTotal(metrics, 'joelinks_clicks_recorded_total'), 2_345);
    // An operator sees each stored batch: its size, and how long its INSERT and commit took.
    assert.deepEqual(await histogramTotals(metrics, 'joelinks_click_batch_size'), { count: 5, sum: 2_345 });
    const took = await histogramTotals(metrics, 'joelinks_click_batch_duration_seconds');
    assert.equal(took.count, 5);
    assert.ok(took.sum > 0 && took.sum < 30, `batches took ${took.sum} s in all`);
  });

  test('a batch is stored link by link, in link order, each link’s clicks in the order they came', async () => {
    const { store, db } = ctx();
    const links = [await newLink('order-a'), await newLink('order-b'), await newLink('order-c')];
    const w = new ClickWriter({ clicks: store.clicks, metrics: new Metrics({ processMetrics: false }), log: silent, ipHashSecret: 'k' });
    // Interleaved arrivals, each link's clicks out of time order, so storing order is visible.
    const arrivals = [2, 0, 1, 0, 2, 1, 1, 2, 0].map((l, i) => ({ link: links[l]!.id, at: 100 - i }));
    for (const a of arrivals) w.enqueue(clickEvent(a.link, a.at));
    w.start();
    assert.equal(await w.close(30_000), true);
    // Ids are made in storing order, so ordering by id is the order rows were written.
    const stored = await db.kysely
      .selectFrom('link_clicks')
      .select(['link_id', 'clicked_at'])
      .where(
        'link_id',
        'in',
        links.map((l) => l.id),
      )
      .orderBy('id')
      .execute();
    const expected = [...links.map((l) => l.id)]
      .sort()
      .flatMap((id) => arrivals.filter((a) => a.link === id).map((a) => ({ link_id: id, clicked_at: CLICK_EPOCH + a.at })));
    assert.deepEqual(
      stored.map((r) => ({ link_id: r.link_id, clicked_at: Number(r.clicked_at) })),
      expected,
    );
  });

  test('a full queue drops and counts instead of blocking', async () => {
    const { store } = ctx();
    const link = await newLink('full');
    const metrics = new Metrics({ processMetrics: false });
    const w = new ClickWriter({ clicks: store.clicks, metrics, log: silent, ipHashSecret: 'k', capacity: 5 });
    const results = Array.from({ length: 8 }, (_, i) => w.enqueue(clickEvent(link.id, i)));
    assert.deepEqual(results, [true, true, true, true, true, false, false, false]);
    assert.equal(await metricTotal(metrics, 'joelinks_clicks_dropped_total'), 3);
    await w.close();
    assert.equal(await store.clicks.countForLink(link.id), 5);
  });

  test('a failing database delays clicks and retries the batch instead of dropping it', async () => {
    const { store, db } = ctx();
    const link = await newLink('retry');
    const metrics = new Metrics({ processMetrics: false });
    const w = new ClickWriter({ clicks: store.clicks, metrics, log: silent, ipHashSecret: 'k' });
    await sql`alter table link_clicks rename to link_clicks_away`.execute(db.kysely);
    try {
      w.start();
      for (let i = 0; i < 10; i++) w.enqueue(clickEvent(link.id, i));
      const deadline = Date.now() + 5_000;
      while ((await metricTotal(metrics, 'joelinks_clicks_record_errors_total')) < 2) {
        if (Date.now() > deadline) throw new Error('writer never retried');
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      await sql`alter table link_clicks_away rename to link_clicks`.execute(db.kysely);
    }
    assert.equal(await w.close(), true);
    assert.equal(await store.clicks.countForLink(link.id), 10);
    assert.equal(await metricTotal(metrics, 'joelinks_clicks_dropped_total'), 0);
  });

  test('a click whose link or clicker is deleted before its batch lands does not hold up the rest', async () => {
    const { store, db } = ctx();
    const gone = await newLink('deleted-meanwhile');
    const kept = await newLink('kept-meanwhile');
    const admin = await store.users.create({ email: 'deleting-admin@example.com', role: 'admin' });
    const clicker = await store.users.create({ email: 'leaving@example.com' });
    const metrics = new Metrics({ processMetrics: false });
    const w = new ClickWriter({ clicks: store.clicks, metrics, log: silent, ipHashSecret: 'k' });
    w.enqueue(clickEvent(gone.id, 1));
    w.enqueue({ ...clickEvent(kept.id, 2), userId: clicker.id });
    w.enqueue(clickEvent(kept.id, 3));
    assert.equal(await store.links.delete(gone.id), true);
    await deleteUser(store, clicker.id, admin.id);
    w.start();
    assert.equal(await w.close(5_000), true, 'the batch was stored, not retried forever');
    const rows = await db.kysely
      .selectFrom('link_clicks')
      .select(['link_id', 'user_id'])
      .where('link_id', 'in', [gone.id, kept.id])
      .execute();
    assert.deepEqual(rows, [
      { link_id: kept.id, user_id: null },
      { link_id: kept.id, user_id: null },
    ]);
    assert.equal(await metricTotal(metrics, 'joelinks_clicks_dropped_total'), 0);
  });

  test('rows keep the redirect time, hash the IP per UTC day and strip the referrer query', async () => {
    const { store, db } = ctx();
    const link = await newLink('rows');
    const metrics = new Metrics({ processMetrics: false });
    const w = new ClickWriter({ clicks: store.clicks, metrics, log: silent, ipHashSecret: 'secret' });
    const day1 = Date.UTC(2026, 2, 1, 23, 59, 59);
    w.enqueue({ ...clickEvent(link.id), ip: '192.0.2.1', at: day1 });
    w.enqueue({ ...clickEvent(link.id), ip: '192.0.2.1', at: day1 + 2_000 });
    w.start();
    await w.close();
    const rows = await db.kysely.selectFrom('link_clicks').selectAll().where('link_id', '=', link.id).orderBy('clicked_at').execute();
    assert.deepEqual(
      rows.map((r) => Number(r.clicked_at)),
      [day1, day1 + 2_000],
    );
    assert.notEqual(rows[0]!.ip_hash, rows[1]!.ip_hash);
    assert.equal(rows[0]!.referrer, 'https://ref.test/a');
    assert.ok(!rows.some((r) => JSON.stringify(r).includes('192.0.2.1')), 'the raw IP is never stored');
  });

  /** store.clicks, also keeping the size of every batch it is handed. */
  const countingClicks = (batches: number[]) => {
    const { store } = ctx();
    return {
      insertBatch: (rows: Parameters<typeof store.clicks.insertBatch>[0]) => {
        batches.push(rows.length);
        return store.clicks.insertBatch(rows);
      },
    };
  };

  test('a quiet queue is stored after the flush delay, not held for the longest batch delay', async () => {
    const { store } = ctx();
    const link = await newLink('quiet');
    const batches: number[] = [];
    const metrics = new Metrics({ processMetrics: false });
    const w = new ClickWriter({
      clicks: countingClicks(batches),
      metrics,
      log: silent,
      ipHashSecret: 'k',
      flushDelayMs: 20,
      maxBatchDelayMs: 60_000,
    });
    w.start();
    for (let i = 0; i < 3; i++) w.enqueue(clickEvent(link.id, i));
    const started = Date.now();
    while ((await store.clicks.countForLink(link.id)) < 3) {
      assert.ok(Date.now() - started < 5_000, 'three clicks were still waiting after 5 s');
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.deepEqual(batches, [3]);
    await w.close();
  });

  test('a steady stream of clicks is gathered into a few large batches', async () => {
    const { store } = ctx();
    const link = await newLink('busy');
    const batches: number[] = [];
    const metrics = new Metrics({ processMetrics: false });
    const w = new ClickWriter({
      clicks: countingClicks(batches),
      metrics,
      log: silent,
      ipHashSecret: 'k',
      flushDelayMs: 20,
      maxBatchDelayMs: 10_000,
      batchSize: 100_000,
    });
    w.start();
    // 300 clicks every 10 ms for 300 ms: far more than a quiet trickle in every flush delay.
    let sent = 0;
    await new Promise<void>((done) => {
      const feed = setInterval(() => {
        for (let i = 0; i < 300; i++) w.enqueue(clickEvent(link.id, sent++));
        if (sent >= 9_000) {
          clearInterval(feed);
          done();
        }
      }, 10);
    });
    assert.equal(await w.close(), true);
    assert.equal(await store.clicks.countForLink(link.id), 9_000);
    assert.ok(batches.length <= 2, `stored in ${batches.length} batches: ${batches.join(', ')}`);
  });
});
