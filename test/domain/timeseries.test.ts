import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  DAY_MS,
  DailyCounter,
  dayWindow,
  parsePeriod,
  parseRfc3339,
  parseSeriesDays,
  periodWindows,
  retentionHorizon,
  trendPct,
  uncoveredSpans,
} from '../../src/domain/timeseries.js';

const at = (iso: string) => Date.parse(iso);

describe('UTC day windows (docs/analytics.md#daily-series)', () => {
  test('a 30-day window is today plus 29 whole UTC days, aligned to midnight', () => {
    const w = dayWindow(at('2026-07-17T14:05:00Z'), 30);
    assert.equal(new Date(w.start).toISOString(), '2026-06-18T00:00:00.000Z');
    assert.equal(new Date(w.end).toISOString(), '2026-07-18T00:00:00.000Z');
  });

  test('gap-filled, ascending, exactly `days` entries, crossing a month boundary', () => {
    const c = new DailyCounter(dayWindow(at('2026-03-02T08:00:00Z'), 30));
    c.add(at('2026-02-28T23:59:59.999Z'));
    c.add(at('2026-03-01T00:00:00Z'));
    c.add(at('2026-03-01T12:00:00Z'));
    const s = c.series(null);
    assert.equal(s.series.length, 30);
    assert.equal(s.series[0]!.date, '2026-02-01');
    assert.equal(s.series[29]!.date, '2026-03-02');
    assert.deepEqual(
      s.series.filter((p) => p.count > 0).map((p) => [p.date, p.count]),
      [
        ['2026-02-28', 1],
        ['2026-03-01', 2],
      ],
    );
    assert.ok(s.series.every((p, i) => i === 0 || p.dayStart - s.series[i - 1]!.dayStart === DAY_MS));
  });

  test('a click at 23:30Z counts toward its UTC day whatever the viewer zone', () => {
    const c = new DailyCounter(dayWindow(at('2026-07-17T10:00:00Z'), 30));
    c.add(at('2026-07-16T23:30:00Z'));
    assert.equal(c.series(null).series.find((p) => p.count === 1)!.date, '2026-07-16');
  });

  test('rows outside the window are ignored', () => {
    const c = new DailyCounter(dayWindow(at('2026-07-17T10:00:00Z'), 30));
    c.add(at('2026-06-17T23:59:59.999Z'));
    c.add(at('2026-07-18T00:00:00Z'));
    assert.ok(c.series(null).series.every((p) => p.count === 0));
  });

  test('days opening before the retention horizon are no-data, later ones are zero', () => {
    const now = at('2026-07-17T10:00:00Z');
    const c = new DailyCounter(dayWindow(now, 90));
    const s = c.series(retentionHorizon(now, 60));
    assert.equal(s.series.filter((p) => p.noData).length, 30);
    assert.ok(s.series.slice(0, 30).every((p) => p.noData && p.count === 0));
    assert.ok(s.series.slice(30).every((p) => !p.noData));
    assert.equal(retentionHorizon(now, null), null);
    assert.ok(new DailyCounter(dayWindow(now, 90)).series(retentionHorizon(now, 90)).series.every((p) => !p.noData));
  });

  test('query parameters: days is exactly "30" or "90"; period week|month', () => {
    assert.equal(parseSeriesDays(undefined), 30);
    assert.equal(parseSeriesDays('30'), 30);
    assert.equal(parseSeriesDays('90'), 90);
    for (const bad of ['7', '030', '+30', '30.0', ' 30', '', '90 ']) assert.equal(parseSeriesDays(bad), null, bad);
    assert.equal(parsePeriod(undefined), 'week');
    assert.equal(parsePeriod('month'), 'month');
    assert.equal(parsePeriod('year'), null);
  });

  test('period windows and trend', () => {
    const now = at('2026-07-17T10:00:00Z');
    const w = periodWindows(now, 'week');
    assert.equal(now - w.currentStart, 7 * DAY_MS);
    assert.equal(now - w.previousStart, 14 * DAY_MS);
    assert.equal(trendPct(120, 80), 50);
    assert.equal(trendPct(5, 0), null);
    assert.equal(trendPct(0, 4), -100);
  });

  test('uncovered spans merge adjacent gaps and skip covered days', () => {
    const d = Date.UTC(2026, 0, 10);
    assert.deepEqual(uncoveredSpans(d, d + 5 * DAY_MS, [d + DAY_MS, d + 2 * DAY_MS, d + 4 * DAY_MS]), [
      { from: d, to: d + DAY_MS },
      { from: d + 3 * DAY_MS, to: d + 4 * DAY_MS },
    ]);
    assert.deepEqual(uncoveredSpans(d + 3_600_000, null, [d + DAY_MS]), [
      { from: d + 3_600_000, to: d + DAY_MS },
      { from: d + 2 * DAY_MS, to: null },
    ]);
    assert.deepEqual(uncoveredSpans(d, d + DAY_MS, [d]), []);
  });
});

describe('RFC 3339 parsing', () => {
  test('accepts RFC 3339 date-times and converts offsets', () => {
    assert.equal(parseRfc3339('2026-07-17T14:00:00Z'), at('2026-07-17T14:00:00Z'));
    assert.equal(parseRfc3339('2026-07-17T15:00:00+01:00'), at('2026-07-17T14:00:00Z'));
    assert.equal(parseRfc3339('2026-07-17t14:00:00.123456z'), at('2026-07-17T14:00:00.123Z'));
    assert.equal(new Date(parseRfc3339('0099-01-01T00:00:00Z')!).getUTCFullYear(), 99);
    assert.equal(parseRfc3339('2024-02-29T00:00:00Z'), at('2024-02-29T00:00:00Z'));
  });

  test('rejects anything else, including calendar-invalid dates', () => {
    for (const bad of [
      '2026-07-17',
      '2026-07-17 14:00:00Z',
      '2026-02-30T00:00:00Z',
      '2025-02-29T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-07-17T24:00:00Z',
      'yesterday',
      '1721224800000',
      '2026-07-17T14:00:00',
    ]) {
      assert.equal(parseRfc3339(bad), null, bad);
    }
  });
});
