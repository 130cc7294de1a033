import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { MAIL_BURST, mailAllowance } from '../../src/domain/notifications.js';

/**
 * How often one person is mailed (docs/notifications.md#how-much-mail): a few
 * mails in any window, never more than the cap in any hour, and when none is
 * left, the moment the next one is.
 */

const MIN = 60_000;
const HOUR = 60 * MIN;
const pacing = { windowMs: MIN, hourlyCap: 5 };

test('three mails a window: after a quiet hour all three are left; once spent, the next waits for the oldest to leave the window', () => {
  const now = 10 * HOUR;
  assert.equal(MAIL_BURST, 3);
  assert.deepEqual(mailAllowance([], now, pacing), { left: 3, nextAt: now });
  assert.deepEqual(mailAllowance([now - HOUR, now - 2 * HOUR], now, pacing), { left: 3, nextAt: now });
  assert.deepEqual(mailAllowance([now - 10_000], now, pacing), { left: 2, nextAt: now });
  assert.deepEqual(mailAllowance([now - 30_000, now - 20_000, now - 10_000], now, pacing), { left: 0, nextAt: now + 30_000 });
  assert.deepEqual(mailAllowance([now - MIN, now - 20_000, now - 10_000], now, pacing), { left: 1, nextAt: now });
});

test('the hourly cap: past it, the next waits until the oldest mail that counts is an hour old', () => {
  const now = 10 * HOUR;
  const sent = [now - 50 * MIN, now - 40 * MIN, now - 30 * MIN, now - 20 * MIN, now - 10 * MIN];
  assert.deepEqual(mailAllowance(sent, now, pacing), { left: 0, nextAt: now + 10 * MIN });
  assert.deepEqual(mailAllowance(sent.slice(1), now, pacing), { left: 1, nextAt: now });
  assert.deepEqual(mailAllowance(sent.slice(0, 3), now, { windowMs: MIN, hourlyCap: 2 }), { left: 0, nextAt: now + 20 * MIN });
});

test('whenever mails are wanted, sending by the allowance never makes more than three in a window nor the cap in an hour', () => {
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 0, max: 4 * HOUR }), { maxLength: 80 }), (wishes) => {
      const sent: number[] = [];
      for (const wish of [...wishes].sort((a, b) => a - b)) {
        const now = Math.max(wish, sent.at(-1) ?? 0);
        const { left, nextAt } = mailAllowance(sent, now, pacing);
        sent.push(left > 0 ? now : nextAt);
        if (left === 0) assert.ok(mailAllowance(sent.slice(0, -1), nextAt, pacing).left > 0, 'nextAt allows a mail');
      }
      for (const t of sent) {
        assert.ok(sent.filter((u) => u >= t && u < t + MIN).length <= MAIL_BURST);
        assert.ok(sent.filter((u) => u >= t && u < t + HOUR).length <= pacing.hourlyCap);
      }
    }),
  );
});
