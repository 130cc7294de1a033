import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { createStore } from '../../src/store/index.js';
import { JobScheduler } from '../../src/workers/scheduler.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { eventually } from '../helpers/server.js';

/** The JobScheduler that runs each leased job on one replica (docs/server.md#background-jobs-and-leases). */

const DAY = 86_400_000;
const silent = pino({ level: 'silent' });

describeEachDatabase('scheduler idle', (ctx) => {
  test('idle() waits for the run at start, however long it takes, and resolves at once when nothing runs', async () => {
    const c = ctx();
    const store = createStore(c.db, () => c.clock.now);
    const scheduler = new JobScheduler({ leases: store.leases, log: silent, now: store.now, tickMs: 3_600_000, holder: 'idle-test' });
    let release!: () => void;
    let finished = false;
    scheduler.add({
      name: 'idle-probe',
      intervalMs: DAY,
      runAtStart: true,
      run: () =>
        new Promise<void>((resolve) => {
          release = () => {
            finished = true;
            resolve();
          };
        }),
    });
    try {
      scheduler.start();
      const idle = scheduler.idle();
      await eventually(() => release !== undefined);
      let settled = false;
      void idle.then(() => (settled = true));
      await new Promise((r) => setImmediate(r));
      assert.equal(settled, false, 'idle while the job still runs');
      release();
      await idle;
      assert.equal(finished, true);
      await scheduler.idle();
    } finally {
      await scheduler.stop(1_000);
    }
  });
});

describeEachDatabase('scheduler stop', (ctx) => {
  test('stop() closes each job once, after its run has ended, and a job that fails to close does not stop the others', async () => {
    const c = ctx();
    const store = createStore(c.db, () => c.clock.now);
    const scheduler = new JobScheduler({ leases: store.leases, log: silent, now: store.now, tickMs: 3_600_000, holder: 'stop-test' });
    const events: string[] = [];
    let release!: () => void;
    scheduler.add({
      name: 'stop-probe-slow',
      intervalMs: DAY,
      runAtStart: true,
      run: () =>
        new Promise<void>((resolve) => {
          release = () => {
            events.push('slow ended');
            resolve();
          };
        }),
      close: async () => {
        events.push('slow closed');
      },
    });
    scheduler.add({
      name: 'stop-probe-broken',
      intervalMs: DAY,
      run: async () => {},
      close: () => Promise.reject(new Error('already gone')),
    });
    scheduler.add({
      name: 'stop-probe-last',
      intervalMs: DAY,
      run: async () => {},
      close: async () => {
        events.push('last closed');
      },
    });
    scheduler.start();
    await eventually(() => release !== undefined);
    const stopped = scheduler.stop(5_000);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(events, [], 'nothing is closed while a run is on its way');
    release();
    await stopped;
    assert.deepEqual(events, ['slow ended', 'slow closed', 'last closed']);
  });
});
