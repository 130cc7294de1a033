import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { lifecycleState } from '../../src/domain/lifecycle.js';

/** Derived lifecycle state (docs/lifecycle.md#lifecycle-state): archived if archived_at set; else expired if expires_at ≤ now; else active. */
describe('lifecycleState', () => {
  const now = Date.UTC(2026, 0, 15, 12, 0, 0);

  const cases: Array<[string, number | null, number | null, string]> = [
    ['no expiry, not archived', null, null, 'active'],
    ['expiry in the future', null, now + 1, 'active'],
    ['expiry exactly now', null, now, 'expired'],
    ['expiry in the past', null, now - 1, 'expired'],
    ['archived, no expiry', now - 1000, null, 'archived'],
    ['archived and expired: archived wins', now - 1000, now - 1, 'archived'],
    ['archived with a future expiry', now - 1000, now + 86_400_000, 'archived'],
    ['archived at epoch 0 is still archived', 0, null, 'archived'],
  ];
  for (const [label, archivedAt, expiresAt, expected] of cases) {
    test(label, () => assert.equal(lifecycleState({ archivedAt, expiresAt }, now), expected));
  }

  test('the same link moves from active to expired as the clock passes its expiry', () => {
    const link = { archivedAt: null, expiresAt: now };
    assert.equal(lifecycleState(link, now - 1), 'active');
    assert.equal(lifecycleState(link, now), 'expired');
  });
});
