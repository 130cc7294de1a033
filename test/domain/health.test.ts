import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { backoffMs, classifyStatus, deriveHealth, nextHealthRow, parseRetryAfter, truncateUtf8 } from '../../src/domain/health.js';

const H = 3_600_000;
const DAY = 24 * H;

/** docs/lifecycle.md#health-checks, docs/lifecycle.md#outcomes-and-backoff, docs/lifecycle.md#health-status as pure rules. */
describe('health rules', () => {
  test('backoff: 1, 2, 4, then 7 intervals', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5, 10, 60].map((n) => backoffMs(n, DAY) / DAY),
      [1, 2, 4, 7, 7, 7, 7],
    );
    assert.equal(backoffMs(3, 2 * H), 8 * H);
  });

  test('final status classes', () => {
    for (const s of [200, 204, 299, 301, 302, 304, 399]) assert.equal(classifyStatus(s), 'success', String(s));
    assert.equal(classifyStatus(429), 'rate-limited');
    for (const s of [400, 401, 403, 404, 405, 410, 500, 501, 503, 100, 600]) assert.equal(classifyStatus(s), 'failure', String(s));
  });

  test('what each outcome writes (docs/lifecycle.md#outcomes-and-backoff)', () => {
    const t = Date.UTC(2026, 6, 18, 3);
    assert.deepEqual(nextHealthRow(2, { kind: 'success', status: 200 }, t, DAY), {
      lastCheckedAt: t,
      lastStatus: 200,
      lastError: null,
      consecutiveFailures: 0,
      nextCheckAt: t + DAY,
      skipped: false,
    });
    assert.deepEqual(nextHealthRow(0, { kind: 'failure', status: 503, error: null }, t, DAY), {
      lastCheckedAt: t,
      lastStatus: 503,
      lastError: null,
      consecutiveFailures: 1,
      nextCheckAt: t + DAY,
      skipped: false,
    });
    const third = nextHealthRow(2, { kind: 'failure', status: null, error: 'connection refused' }, t, DAY);
    assert.equal(third.consecutiveFailures, 3);
    assert.equal(third.lastStatus, null);
    assert.equal(third.lastError, 'connection refused');
    assert.equal(third.nextCheckAt, t + 4 * DAY);
    assert.equal(nextHealthRow(7, { kind: 'failure', status: 500, error: null }, t, DAY).nextCheckAt, t + 7 * DAY);
    assert.deepEqual(nextHealthRow(2, { kind: 'rate-limited', retryAfterMs: 2 * DAY }, t, DAY), {
      lastCheckedAt: t,
      lastStatus: 429,
      lastError: null,
      consecutiveFailures: 2,
      nextCheckAt: t + 2 * DAY,
      skipped: false,
    });
    assert.equal(nextHealthRow(0, { kind: 'rate-limited', retryAfterMs: 5_000 }, t, 2 * H).nextCheckAt, t + 2 * H);
    assert.equal(nextHealthRow(0, { kind: 'rate-limited', retryAfterMs: null }, t, 2 * H).nextCheckAt, t + 2 * H);
    assert.deepEqual(nextHealthRow(1, { kind: 'skipped', reason: 'nope' }, t, DAY), {
      lastCheckedAt: t,
      lastStatus: null,
      lastError: 'nope',
      consecutiveFailures: 1,
      nextCheckAt: t + DAY,
      skipped: true,
    });
  });

  test('stored errors are at most 512 bytes, cut on a character boundary', () => {
    const long = 'é'.repeat(400); // 800 bytes
    const cut = truncateUtf8(long);
    assert.equal(Buffer.byteLength(cut), 512);
    assert.equal(cut, 'é'.repeat(256));
    const emoji = 'a' + '😀'.repeat(200);
    const cut2 = truncateUtf8(emoji);
    assert.ok(Buffer.byteLength(cut2) <= 512);
    assert.equal(cut2, 'a' + '😀'.repeat(127), 'a 4-byte character is never split');
    const row = nextHealthRow(0, { kind: 'failure', status: null, error: 'x'.repeat(5000) }, 0, DAY);
    assert.equal(Buffer.byteLength(row.lastError!), 512);
  });

  test('Retry-After: delta-seconds or a future HTTP-date; anything else ignored', () => {
    const now = Date.UTC(2026, 0, 1, 0, 0, 0);
    assert.equal(parseRetryAfter('172800', now), 172_800_000);
    assert.equal(parseRetryAfter('0', now), 0);
    assert.equal(parseRetryAfter(' 5 ', now), 5_000);
    assert.equal(parseRetryAfter(['60', '120'], now), 60_000);
    assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:01:00 GMT', now), 60_000);
    assert.equal(parseRetryAfter('Thursday, 01-Jan-26 00:02:00 GMT', now), 120_000);
    assert.equal(parseRetryAfter('Thu Jan  1 00:03:00 2026', now), 180_000);
    for (const bad of [
      undefined,
      '',
      '-5',
      '1.5',
      'soon',
      '2026-01-02',
      'Wed, 31 Dec 2025 23:59:00 GMT',
      'Thu, 01 Jan 2026 00:00:00 GMT',
    ]) {
      assert.equal(parseRetryAfter(bad, now), null, String(bad));
    }
    // A hostile value cannot push the next check beyond a storable instant.
    assert.ok(parseRetryAfter('9'.repeat(400), now)! <= 366 * DAY);
  });

  test('derived health and the surfacing rule (docs/lifecycle.md#health-status)', () => {
    const now = 1_000_000;
    const live = { archivedAt: null, expiresAt: null, healthChecksDisabled: false };
    const row = (cf: number, skipped = false) => ({ lastCheckedAt: 900, lastStatus: 503, consecutiveFailures: cf, skipped });
    assert.deepEqual(deriveHealth(live, null, now), { status: 'unchecked', lastCheckedAt: null, lastStatus: null });
    assert.deepEqual(deriveHealth(live, row(0), now), { status: 'ok', lastCheckedAt: 900, lastStatus: 503 });
    assert.equal(deriveHealth(live, row(2), now).status, 'ok');
    assert.equal(deriveHealth(live, row(3), now).status, 'broken');
    assert.equal(deriveHealth(live, row(9, true), now).status, 'skipped', 'skipped wins over the counter');
    const hidden = { status: 'unchecked', lastCheckedAt: null, lastStatus: null };
    assert.deepEqual(deriveHealth({ ...live, healthChecksDisabled: true }, row(5), now), hidden);
    assert.deepEqual(deriveHealth({ ...live, archivedAt: 1 }, row(5), now), hidden);
    assert.deepEqual(deriveHealth({ ...live, expiresAt: now }, row(5), now), hidden, 'expired at exactly expires_at');
    assert.equal(deriveHealth({ ...live, expiresAt: now + 1 }, row(5), now).status, 'broken');
  });
});
