import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DIRECT_UNKNOWN } from '../../src/domain/referrer.js';
import { BreakdownAccumulator, rankWithOther } from '../../src/domain/breakdowns.js';

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
