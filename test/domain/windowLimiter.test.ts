import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { WindowLimiter } from '../../src/domain/windowLimiter.js';

describe('window limiter', () => {
  test('allows the limit per window, then refuses with the time left, and starts over after the window', () => {
    const clock = { now: 1_000_000 };
    const l = new WindowLimiter(3, 60_000, () => clock.now);
    for (let i = 0; i < 3; i++) assert.equal(l.take('a').ok, true);
    assert.deepEqual(l.take('a'), { ok: false, retryAfterSeconds: 60 });
    assert.equal(l.take('b').ok, true, 'clients are counted apart');
    clock.now += 20_500;
    assert.deepEqual(l.take('a'), { ok: false, retryAfterSeconds: 40 });
    clock.now += 39_500;
    assert.equal(l.take('a').ok, true);
  });

  test('a refund gives one slot back within the window', () => {
    const l = new WindowLimiter(1, 60_000, () => 0);
    assert.equal(l.take('a').ok, true);
    l.refund('a');
    assert.equal(l.take('a').ok, true);
    assert.equal(l.take('a').ok, false);
  });

  test('memory stays bounded: ended windows are dropped, and past maxKeys the oldest window goes', () => {
    const clock = { now: 0 };
    const l = new WindowLimiter(1, 1_000, () => clock.now, 100);
    for (let i = 0; i < 50; i++) l.take(`old-${i}`);
    clock.now = 5_000;
    l.take('fresh');
    assert.equal(l.size, 1, 'ended windows are dropped when a new one starts');
    for (let i = 0; i < 10_000; i++) l.take(`k-${i}`);
    assert.ok(l.size <= 100, `size ${l.size}`);
    assert.equal(l.take('k-9999').ok, false, 'the newest clients are still counted');
  });
});
