import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { DIRECT_UNKNOWN, referrerHost, referrerLabel } from '../../src/domain/referrer.js';
import { BreakdownAccumulator, rankWithOther } from '../../src/domain/breakdowns.js';
import { clampClicksLimit, decodeClickCursor, encodeClickCursor, parseClicksBefore } from '../../src/domain/clickCursor.js';
import { RollupCoverage, runSource, type SpanRecord } from '../../src/domain/rollupCoverage.js';
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

describe('referrer hosts', () => {
  test('host only, lower-case; empty or unparseable is Direct / unknown', () => {
    assert.equal(referrerHost('https://News.YCombinator.com/item?id=1#x'), 'news.ycombinator.com');
    assert.equal(referrerHost('http://a.example:8080/x'), 'a.example:8080');
    assert.equal(referrerHost('https://a.example:443/x'), 'a.example');
    assert.equal(referrerHost('https://bücher.example/'), 'xn--bcher-kva.example');
    assert.equal(referrerHost('android-app://com.Google.android.gm/'), 'com.google.android.gm');
    for (const v of [
      null,
      '',
      'not a url',
      '/relative/path',
      'mailto:a@b.c',
      'file:///etc/passwd',
      `https://${'a'.repeat(300)}.example/`,
    ]) {
      assert.equal(referrerHost(v), null, String(v));
      assert.equal(referrerLabel(v), DIRECT_UNKNOWN);
    }
  });
});

describe('breakdown ranking', () => {
  test('top 10 by count, ties by name, the rest summed into Other', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 14; i++) counts.set(`h${String(i).padStart(2, '0')}.example`, 100 - i);
    counts.set('tie-b.example', 95);
    counts.set('tie-a.example', 95);
    const top = rankWithOther(counts);
    assert.equal(top.length, 11);
    assert.deepEqual(
      top.slice(5, 9).map((r) => r.name),
      ['h05.example', 'tie-a.example', 'tie-b.example', 'h06.example'],
    );
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    assert.equal(top.at(-1)!.name, 'Other');
    assert.equal(
      top.reduce((a, r) => a + r.count, 0),
      total,
    );
  });

  test('no Other row when nothing is left over; the Other family folds into it', () => {
    assert.deepEqual(
      rankWithOther(
        new Map([
          ['a', 2],
          ['b', 1],
        ]),
      ),
      [
        { name: 'a', count: 2 },
        { name: 'b', count: 1 },
      ],
    );
    assert.deepEqual(
      rankWithOther(
        new Map([
          ['Other', 5],
          ['Chrome', 1],
        ]),
      ),
      [
        { name: 'Chrome', count: 1 },
        { name: 'Other', count: 5 },
      ],
    );
  });

  test('the accumulator counts hosts, families and the auth split, and carries no identity', () => {
    const acc = new BreakdownAccumulator();
    acc.add('https://a.example/x', 'curl/8', true);
    acc.add('https://a.example/y?z=1', null, false);
    acc.add('', 'Mozilla/5.0 (Windows NT 10.0) Firefox/1', false);
    const r = acc.result();
    assert.deepEqual(r.referrers, [
      { host: 'a.example', count: 2 },
      { host: DIRECT_UNKNOWN, count: 1 },
    ]);
    assert.deepEqual(r.auth, { authenticated: 1, anonymous: 2 });
    assert.deepEqual(Object.keys(r).sort(), ['auth', 'browsers', 'os', 'referrers']);
  });
});

describe('click cursors (docs/api.md#pagination)', () => {
  test('padded URL-safe base64 of "<clicked_at> NUL <id>", round-tripping exactly', () => {
    const p = { clickedAt: 1_752_760_800_123, id: '0b9a5c1e-4f1d-4c52-9a3e-2f3d4e5f6a7b' };
    const c = encodeClickCursor(p);
    assert.match(c, /^[A-Za-z0-9_-]+=*$/);
    assert.equal(Buffer.from(c.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString(), `${p.clickedAt}\u0000${p.id}`);
    assert.deepEqual(decodeClickCursor(c), p);
    assert.deepEqual(decodeClickCursor(c.replace(/=+$/, '')), p);
  });

  test('malformed cursors decode to null', () => {
    const enc = (s: string) => Buffer.from(s).toString('base64url');
    for (const bad of [
      '',
      'not-a-cursor!',
      enc('123'),
      enc('abc\u0000id'),
      enc('1\u0000'),
      enc('1\u0000id\u0000x'),
      enc('99999999999999999\u0000id'),
      'AAAA====',
    ]) {
      assert.equal(decodeClickCursor(bad), null, bad);
    }
    fc.assert(fc.property(fc.string({ maxLength: 80 }), (s) => void decodeClickCursor(s)));
  });

  test('before: a bare RFC 3339 timestamp first, then a cursor, else nothing', () => {
    assert.deepEqual(parseClicksBefore('2026-07-17T14:00:00Z'), { kind: 'time', clickedAt: at('2026-07-17T14:00:00Z') });
    const c = encodeClickCursor({ clickedAt: 5, id: 'abc' });
    assert.deepEqual(parseClicksBefore(c), { kind: 'position', position: { clickedAt: 5, id: 'abc' } });
    assert.equal(parseClicksBefore('not-a-cursor'), null);
  });

  test('limit: default 50, junk/zero/negative → 50, capped at 200', () => {
    assert.equal(clampClicksLimit(undefined), 50);
    assert.equal(clampClicksLimit('abc'), 50);
    assert.equal(clampClicksLimit('0'), 50);
    assert.equal(clampClicksLimit('-3'), 50);
    assert.equal(clampClicksLimit('10'), 10);
    assert.equal(clampClicksLimit('999'), 200);
  });
});

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
