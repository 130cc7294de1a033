import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { formatDuration, parseDuration } from '../../src/domain/duration.js';

/** Duration syntax of docs/server.md#configuration: concatenated number+unit pairs with units d, h, m, s, ms. */

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

describe('parseDuration', () => {
  const valid: Array<[string, number]> = [
    ['30d', 30 * D],
    ['720h', 720 * H],
    ['10s', 10 * S],
    ['1h30m', H + 30 * M],
    ['500ms', 500],
    ['15m', 15 * M],
    ['1d12h', D + 12 * H],
    ['2m30s500ms', 2 * M + 30 * S + 500],
    ['1.5h', 90 * M],
    ['0', 0],
    ['0s', 0],
    [' 10s ', 10 * S],
  ];
  for (const [text, ms] of valid) {
    test(`${JSON.stringify(text)} = ${ms} ms`, () => assert.equal(parseDuration(text), ms));
  }

  test('`m` is minutes and `ms` milliseconds, also back to back', () => {
    assert.equal(parseDuration('1m'), M);
    assert.equal(parseDuration('1ms'), 1);
    assert.equal(parseDuration('1m1ms'), M + 1);
  });

  for (const text of ['', '10', 'h', 'forever', '-1s', '1h 30m', '1H', '10 s', '1w', '1y', '.5s', '1.s', '1e3s', '10s!', 's10', '1h-30m']) {
    test(`${JSON.stringify(text)} is not a duration`, () => assert.equal(parseDuration(text), null));
  }

  test('property: any concatenation of pairs is the sum of its parts', () => {
    const pair = fc.tuple(fc.integer({ min: 0, max: 10_000 }), fc.constantFrom('d', 'h', 'm', 's', 'ms'));
    const unitMs: Record<string, number> = { d: D, h: H, m: M, s: S, ms: 1 };
    fc.assert(
      fc.property(fc.array(pair, { minLength: 1, maxLength: 5 }), (pairs) => {
        const text = pairs.map(([n, u]) => `${n}${u}`).join('');
        assert.equal(
          parseDuration(text),
          pairs.reduce((sum, [n, u]) => sum + n * unitMs[u]!, 0),
        );
      }),
    );
  });
});

describe('formatDuration', () => {
  const cases: Array<[number, string]> = [
    [30 * D, '30d'],
    [720 * H, '30d'],
    [25 * H, '25h'],
    [90 * M, '90m'],
    [10 * S, '10s'],
    [1500, '1500ms'],
  ];
  for (const [ms, text] of cases) {
    test(`${ms} ms → ${text}`, () => assert.equal(formatDuration(ms), text));
  }

  test('property: formatting then parsing gives the same milliseconds', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10 * 365 * D }), (ms) => {
        assert.equal(parseDuration(formatDuration(ms)), ms);
      }),
    );
  });
});
