import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase } from '../helpers/databases.js';

/** Job leases (docs/server.md#background-jobs-and-leases): one replica runs each periodic job. */
describeEachDatabase('leases', (ctx) => {
  const TTL = 60_000;

  test('A takes a free lease; B is refused while it is valid; A renews', async () => {
    const { store, clock } = ctx();
    assert.equal(await store.leases.acquire('job-a', 'A', TTL), true);
    assert.equal(await store.leases.holderOf('job-a'), 'A');
    assert.equal(await store.leases.acquire('job-a', 'B', TTL), false);
    const t0 = clock.now;
    try {
      clock.now = t0 + TTL - 1;
      assert.equal(await store.leases.acquire('job-a', 'B', TTL), false, 'one ms before expiry it is still held');
      assert.equal(await store.leases.acquire('job-a', 'A', TTL), true, 'the holder renews');
      clock.now = t0 + TTL + 5;
      assert.equal(await store.leases.acquire('job-a', 'B', TTL), false, 'the renewal extended it');
      assert.equal(await store.leases.holderOf('job-a'), 'A');
    } finally {
      clock.now = t0;
    }
  });

  test('renewing twice at the same instant still reports the lease as held', async () => {
    const { store } = ctx();
    assert.equal(await store.leases.acquire('job-same', 'A', TTL), true);
    // Same holder, same expiry: MySQL would report 0 "changed" rows; the lease is still ours.
    assert.equal(await store.leases.acquire('job-same', 'A', TTL), true);
    assert.equal(await store.leases.acquire('job-same', 'A', TTL), true);
  });

  test('B takes over once the lease expires, and A can no longer stamp runs', async () => {
    const { store, clock } = ctx();
    assert.equal(await store.leases.acquire('job-b', 'A', TTL), true);
    assert.equal(await store.leases.markRun('job-b', 'A', clock.now), true);
    const t0 = clock.now;
    try {
      clock.now = t0 + TTL;
      assert.equal(await store.leases.holderOf('job-b'), null, 'expired at exactly expires_at');
      assert.equal(await store.leases.acquire('job-b', 'B', TTL), true);
      assert.equal(await store.leases.holderOf('job-b'), 'B');
      assert.equal(await store.leases.acquire('job-b', 'A', TTL), false);
      assert.equal(await store.leases.markRun('job-b', 'A', clock.now), false, 'only the holder stamps a run');
      assert.equal(await store.leases.lastRunAt('job-b'), t0, 'the old run stays recorded');
      assert.equal(await store.leases.markRun('job-b', 'B', clock.now), true);
      assert.equal(await store.leases.lastRunAt('job-b'), t0 + TTL);
    } finally {
      clock.now = t0;
    }
  });

  test('release hands the lease over at once and keeps last_run_at', async () => {
    const { store, clock } = ctx();
    assert.equal(await store.leases.lastRunAt('job-c'), null, 'never ran');
    assert.equal(await store.leases.acquire('job-c', 'A', TTL), true);
    assert.equal(await store.leases.lastRunAt('job-c'), null);
    assert.equal(await store.leases.markRun('job-c', 'A', clock.now - 5), true);
    await store.leases.release('job-c', 'B');
    assert.equal(await store.leases.holderOf('job-c'), 'A', 'only the holder can release');
    await store.leases.release('job-c', 'A');
    assert.equal(await store.leases.holderOf('job-c'), null);
    assert.equal(await store.leases.lastRunAt('job-c'), clock.now - 5);
    assert.equal(await store.leases.acquire('job-c', 'B', TTL), true);
    assert.equal(await store.leases.lastRunAt('job-c'), clock.now - 5, 'the schedule carries on under the new holder');
  });

  test('leases are independent by name', async () => {
    const { store } = ctx();
    assert.equal(await store.leases.acquire('job-d1', 'A', TTL), true);
    assert.equal(await store.leases.acquire('job-d2', 'B', TTL), true);
    assert.equal(await store.leases.holderOf('job-d1'), 'A');
    assert.equal(await store.leases.holderOf('job-d2'), 'B');
    assert.equal(await store.leases.markRun('job-d2', 'A', 1), false);
  });

  test('many replicas racing for a fresh lease: exactly one wins', async () => {
    const { store } = ctx();
    const holders = Array.from({ length: 8 }, (_, i) => `R${i}`);
    const results = await Promise.all(holders.map((h) => store.leases.acquire('job-race', h, TTL)));
    assert.equal(results.filter(Boolean).length, 1);
    assert.equal(await store.leases.holderOf('job-race'), holders[results.indexOf(true)]);
  });

  test('many replicas racing for an expired lease: exactly one takes it over', async () => {
    const { store, clock } = ctx();
    assert.equal(await store.leases.acquire('job-race2', 'old', TTL), true);
    const t0 = clock.now;
    try {
      clock.now = t0 + TTL * 2;
      const holders = Array.from({ length: 8 }, (_, i) => `N${i}`);
      const results = await Promise.all(holders.map((h) => store.leases.acquire('job-race2', h, TTL)));
      assert.equal(results.filter(Boolean).length, 1);
      assert.equal(await store.leases.holderOf('job-race2'), holders[results.indexOf(true)]);
    } finally {
      clock.now = t0;
    }
  });
});
