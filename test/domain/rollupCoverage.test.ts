import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RollupCoverage, runSource, type SpanRecord } from '../../src/domain/rollupCoverage.js';
import { DAY_MS } from '../../src/domain/timeseries.js';

describe('rollup coverage', () => {
  const V = 'v1';
  // A day whose index since the epoch is a multiple of 32, so every run size aligns on it.
  const d0 = Math.floor(Date.UTC(2026, 0, 8) / (32 * DAY_MS)) * 32 * DAY_MS;
  const day = (i: number): SpanRecord => ({ day: d0 + i * DAY_MS, span: 1, version: V, clicks: 1, authenticated: 0, source: `s${i}` });
  const run = (i: number, span: number, left: string, right: string): SpanRecord => ({
    day: d0 + i * DAY_MS,
    span,
    version: V,
    clicks: span,
    authenticated: 0,
    source: runSource(left, right),
  });

  test('covers with the longest current runs and leaves unrolled days out', () => {
    assert.equal(Math.round(d0 / DAY_MS) % 4, 0);
    const recs = [day(0), day(1), day(2), day(3), day(5), run(0, 2, 's0', 's1'), run(2, 2, 's2', 's3')];
    recs.push(run(0, 4, recs[5]!.source, recs[6]!.source));
    const cov = new RollupCoverage(recs, V);
    const c = cov.cover(d0, d0 + 6 * DAY_MS);
    assert.deepEqual(c.runs, [
      [d0, 4],
      [d0 + 5 * DAY_MS, 1],
    ]);
    assert.deepEqual(
      c.days,
      [0, 1, 2, 3, 5].map((i) => d0 + i * DAY_MS),
    );
  });

  test('a rebuilt day invalidates the runs built from its old version', () => {
    const recs = [day(0), day(1), run(0, 2, 's0', 's1')];
    const cov = new RollupCoverage(recs, V);
    assert.ok(cov.isValid(d0, 2));
    cov.put({ ...day(1), source: 'rebuilt' });
    assert.ok(!cov.isValid(d0, 2));
    assert.deepEqual(cov.cover(d0, d0 + 2 * DAY_MS).runs, [
      [d0, 1],
      [d0 + DAY_MS, 1],
    ]);
    assert.ok(!new RollupCoverage(recs, 'v2').dayRolled(d0), 'another classification version is not current');
  });
});
