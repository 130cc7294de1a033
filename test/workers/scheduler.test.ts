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
