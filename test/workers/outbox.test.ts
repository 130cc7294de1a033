import assert from 'node:assert/strict';
import { test } from 'node:test';
import { retryDelayMs } from '../../src/domain/outbox.js';
import { Metrics } from '../../src/metrics.js';
import type { OutboxRow } from '../../src/store/outbox.js';
import { OutboxDispatcher, type ChannelHandler, type Delivery } from '../../src/workers/outbox.js';
import { describeEachDatabase } from '../helpers/databases.js';

/**
 * The outbox mechanism mail and webhooks share (docs/notifications.md#delivery),
 * on every database: claiming due rows, one attempt per try with its log
 * row, exponential backoff on the store's clock, giving up after the last
 * attempt, and rows that are skipped or wait without counting an attempt.
 * Each channel's own behaviour is tested against a real SMTP server and real
 * HTTP receivers (mailChannel.test.ts, test/notify/webhooks.test.ts).
 */

const quiet = { info() {}, warn() {} };
const BASE = 10_000;

describeEachDatabase('outbox', (ctx) => {
  let n = 0;
  const setup = async () => {
    const { store, clock } = ctx();
    const user = await store.users.create({ email: `outbox-${++n}-${process.pid}@example.test`, displayName: 'O' });
    const enqueue = async (count = 1, dueAt = clock.now) =>
      store.transaction((tx) =>
        store.outbox.enqueue(
          Array.from({ length: count }, (_, i) => ({
            channel: 'mail' as const,
            userId: user.id,
            messageId: `m-${n}-${i}`,
            eventType: 'test',
            payload: JSON.stringify({ i }),
            dueAt,
          })),
          tx,
        ),
      );
    return { store, clock, user, enqueue };
  };

  /** A channel that answers from a script, one entry per call. */
  const scripted = (script: Array<Delivery | Error>, seen: OutboxRow[] = [], gaveUp: string[] = []): ChannelHandler => ({
    channel: 'mail',
    policy: { baseMs: BASE, maxAttempts: 8 },
    async deliver(row) {
      seen.push(row);
      const next = script.shift() ?? { kind: 'sent', statusCode: 250 };
      if (next instanceof Error) throw next;
      return next;
    },
    async onGiveUp(row) {
      gaveUp.push(row.id);
    },
  });

  test('only due rows are claimed, and a live claim keeps a row from a second dispatcher', async () => {
    const { store, clock, enqueue } = await setup();
    const [now] = await enqueue(1);
    const [later] = await enqueue(1, clock.now + 20_000);
    const first = await store.outbox.claimDue(50, 30_000);
    assert.ok(first.some((r) => r.id === now));
    assert.ok(!first.some((r) => r.id === later));
    assert.ok(!(await store.outbox.claimDue(50, 30_000)).some((r) => r.id === now), 'claimed twice');
    clock.now += 30_000;
    const again = await store.outbox.claimDue(50, 30_000);
    assert.ok(
      again.some((r) => r.id === now),
      'an expired claim gives the row back',
    );
    assert.ok(again.some((r) => r.id === later));
    for (const r of again) await store.transaction((tx) => store.outbox.settle(r.id, null, { status: 'skipped', at: clock.now }, tx));
  });

  test('a failing delivery is tried again after 10 s, 20 s, 40 s … and each attempt is logged', async () => {
    const { store, clock, enqueue } = await setup();
    const [id] = await enqueue(1);
    const fail = (code: number): Delivery => ({ kind: 'failed', statusCode: code, error: `refused ${code}` });
    const metrics = new Metrics({ processMetrics: false });
    const d = new OutboxDispatcher({
      store,
      channels: [scripted([fail(500), fail(502), new Error('socket hang up')])],
      log: quiet,
      metrics,
    });
    const start = clock.now;
    for (const expectedDelay of [retryDelayMs(1, { baseMs: BASE, maxAttempts: 8 }), 2 * BASE, 4 * BASE]) {
      const before = clock.now;
      const s = await d.drain();
      assert.equal(s.retried, 1);
      const row = (await store.outbox.get(id!))!;
      assert.equal(row.status, 'pending');
      assert.equal(row.nextAttemptAt, before + expectedDelay);
      // Nothing is due before then.
      clock.now = row.nextAttemptAt - 1;
      assert.equal((await d.drain()).retried, 0);
      clock.now = row.nextAttemptAt;
    }
    assert.equal((await d.drain()).delivered, 1);
    const row = (await store.outbox.get(id!))!;
    assert.equal(row.status, 'delivered');
    assert.equal(row.attempts, 4);
    assert.equal(row.finishedAt, clock.now);
    const log = (await store.outbox.attempts([id!])).get(id!)!;
    assert.deepEqual(
      log.map((a) => [a.attempt, a.statusCode, a.error]),
      [
        [1, 500, 'refused 500'],
        [2, 502, 'refused 502'],
        [3, null, 'socket hang up'],
        [4, 250, null],
      ],
    );
    assert.deepEqual(
      log.map((a) => a.at - start),
      [0, BASE, 3 * BASE, 7 * BASE],
    );
    const counted = await metrics.registry.getSingleMetricAsString('joelinks_outbox_deliveries_total');
    assert.match(counted, /channel="mail",outcome="retry"\} 3/);
    assert.match(counted, /channel="mail",outcome="delivered"\} 1/);
  });

  test('after the eighth failed attempt the row is failed for good, in the transaction that tells the channel', async () => {
    const { store, clock, enqueue } = await setup();
    const [id] = await enqueue(1);
    const gaveUp: string[] = [];
    const failures = Array.from({ length: 9 }, (): Delivery => ({ kind: 'failed', statusCode: null, error: 'down' }));
    const d = new OutboxDispatcher({ store, channels: [scripted(failures, [], gaveUp)], log: quiet });
    for (let i = 0; i < 8; i++) {
      await d.drain();
      const row = (await store.outbox.get(id!))!;
      if (i < 7) clock.now = row.nextAttemptAt;
    }
    const row = (await store.outbox.get(id!))!;
    assert.equal(row.status, 'failed');
    assert.equal(row.attempts, 8);
    assert.deepEqual(gaveUp, [id]);
    clock.now += 365 * 86_400_000;
    assert.deepEqual(await d.drain(), { delivered: 0, retried: 0, failed: 0, skipped: 0, deferred: 0 });
    assert.equal((await store.outbox.attempts([id!])).get(id!)!.length, 8);
  });

  test('skipped and deferred rows count no attempt', async () => {
    const { store, clock, enqueue } = await setup();
    const [a, b] = await enqueue(2);
    const d = new OutboxDispatcher({
      store,
      channels: [scripted([{ kind: 'skipped' }, { kind: 'deferred', until: clock.now + 600_000 }])],
      log: quiet,
    });
    const s = await d.drain();
    assert.equal(s.skipped + s.deferred, 2);
    const rows = [(await store.outbox.get(a!))!, (await store.outbox.get(b!))!];
    assert.deepEqual(rows.map((r) => r.status).sort(), ['pending', 'skipped']);
    const waiting = rows.find((r) => r.status === 'pending')!;
    assert.equal(waiting.nextAttemptAt, clock.now + 600_000);
    assert.equal(waiting.attempts, 0);
    assert.equal((await store.outbox.attempts([a!, b!])).size, 0);
    clock.now += 600_000;
    assert.equal((await d.drain()).delivered, 1);
  });

  test('two dispatchers at once (a lease changing hands) attempt every row once; one alone serves each recipient in order', async () => {
    const { store } = await setup();
    const people = await Promise.all(
      [1, 2, 3].map((i) => store.users.create({ email: `lane-${n}-${i}-${process.pid}@example.test`, displayName: 'L' })),
    );
    const ids = new Set(
      await store.transaction((tx) =>
        store.outbox.enqueue(
          people.flatMap((p) =>
            [0, 1, 2, 3].map((i) => ({
              channel: 'mail' as const,
              userId: p.id,
              messageId: `lane-${p.id}-${i}`,
              eventType: 'test',
              payload: '{}',
              dueAt: 0,
            })),
          ),
          tx,
        ),
      ),
    );
    const seen: OutboxRow[] = [];
    const slow = (): ChannelHandler => ({
      channel: 'mail',
      policy: { baseMs: BASE, maxAttempts: 8 },
      async deliver(row) {
        if (ids.has(row.id)) seen.push(row);
        await new Promise((r) => setTimeout(r, 5));
        return { kind: 'sent', statusCode: 250 };
      },
    });
    const replica = () => new OutboxDispatcher({ store, channels: [slow()], log: quiet, batchSize: 1 });
    const [a, b] = await Promise.all([replica().drain(), replica().drain()]);
    assert.equal(a.delivered + b.delivered, 12);
    assert.equal(seen.length, 12);
    assert.equal(new Set(seen.map((r) => r.id)).size, 12, 'a row was attempted twice');
    for (const id of ids) assert.equal((await store.outbox.get(id))!.status, 'delivered');

    // One dispatcher: each recipient's rows one after another, oldest first, recipients side by side.
    const more = await store.transaction((tx) =>
      store.outbox.enqueue(
        people.flatMap((p) =>
          [0, 1, 2].map((i) => ({ channel: 'mail' as const, userId: p.id, messageId: `m-${i}`, eventType: 't', payload: '{}', dueAt: 0 })),
        ),
        tx,
      ),
    );
    for (const id of more) ids.add(id);
    seen.length = 0;
    assert.equal((await replica().drain()).delivered, 9);
    for (const p of people) {
      const mine = seen.filter((r) => r.userId === p.id).map((r) => r.id);
      assert.deepEqual(mine, [...mine].sort(), 'out of order');
      assert.equal(mine.length, 3);
    }
    assert.notEqual(seen[0]!.userId, seen[1]!.userId, 'recipients were served one after another, not side by side');
  });

  test('a try that never ends is given up after its timeout and a second, and counted as a failed attempt', async () => {
    const { store, enqueue } = await setup();
    const [id] = await enqueue(1);
    const hangs: ChannelHandler = {
      channel: 'mail',
      policy: { baseMs: BASE, maxAttempts: 8 },
      attemptTimeoutMs: 100,
      deliver: () => new Promise<Delivery>(() => {}),
    };
    const started = Date.now();
    const summary = await new OutboxDispatcher({ store, channels: [hangs], log: quiet }).drain();
    const took = Date.now() - started;
    assert.equal(summary.retried, 1);
    assert.ok(took >= 1_100 && took < 3_000, `took ${took} ms`);
    const row = (await store.outbox.get(id!))!;
    assert.equal(row.status, 'pending');
    assert.equal(row.attempts, 1);
    assert.equal(row.lastError, 'timed out after 1s');
  });

  test('rows written in a transaction that rolls back never exist', async () => {
    const { store, user } = await setup();
    await assert.rejects(
      store.transaction(async (tx) => {
        await store.outbox.enqueue(
          [{ channel: 'mail', userId: user.id, messageId: 'gone', eventType: 'test', payload: '{}', dueAt: 0 }],
          tx,
        );
        throw new Error('the change failed');
      }),
      /the change failed/,
    );
    assert.ok(!(await store.outbox.claimDue(500, 1)).some((r) => r.messageId === 'gone'));
  });
});
