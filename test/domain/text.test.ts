import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { codePointLength, escapeLike, truncateCodePoints } from '../../src/domain/text.js';

/** Code-point counting (docs/links.md#field-validation conventions) and LIKE escaping (docs/server.md#databases). */

describe('codePointLength', () => {
  test('counts code points, not UTF-16 units or bytes', () => {
    assert.equal(codePointLength(''), 0);
    assert.equal(codePointLength('abc'), 3);
    assert.equal(codePointLength('é日'), 2);
    assert.equal(codePointLength('😀😀'), 2);
    assert.equal(codePointLength('👍🏽'), 2); // emoji + skin-tone modifier are two code points
  });
});

describe('truncateCodePoints', () => {
  test('keeps short text unchanged', () => {
    assert.equal(truncateCodePoints('abc', 3), 'abc');
    assert.equal(truncateCodePoints('😀😀', 2), '😀😀');
  });

  test('cuts at a code-point boundary, never inside a surrogate pair', () => {
    assert.equal(truncateCodePoints('😀😀😀', 2), '😀😀');
    assert.equal(truncateCodePoints('a😀b', 2), 'a😀');
    assert.equal(truncateCodePoints('abc', 0), '');
  });

  test('property: the result is the first max code points', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), fc.integer({ min: 0, max: 100 }), (s, max) => {
        const out = truncateCodePoints(s, max);
        const points = [...s];
        assert.equal(out, points.slice(0, max).join(''));
        assert.ok(s.startsWith(out));
        assert.equal(codePointLength(out), Math.min(points.length, max));
        // a cut never leaves a lone high surrogate at the end
        assert.doesNotMatch(out, /[\uD800-\uDBFF]$/);
      }),
    );
  });
});

describe('escapeLike', () => {
  const cases: Array<[string, string]> = [
    ['100%', '100!%'],
    ['a_b', 'a!_b'],
    ['wow!', 'wow!!'],
    ['!%_', '!!!%!_'],
    ['plain text', 'plain text'],
    ['', ''],
  ];
  for (const [input, escaped] of cases) {
    test(`${JSON.stringify(input)} → ${JSON.stringify(escaped)}`, () => assert.equal(escapeLike(input), escaped));
  }

  // Model of SQL `LIKE '%' || ? || '%' ESCAPE '!'`: an escaped pattern must match exactly the
  // texts that contain the input literally.
  const likeToRegExp = (pattern: string): RegExp => {
    let re = '';
    for (let i = 0; i < pattern.length; i++) {
      const c = pattern[i]!;
      if (c === '!') re += pattern[++i]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      else if (c === '%') re += '.*';
      else if (c === '_') re += '.';
      else re += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    }
    return new RegExp(`^${re}$`, 's');
  };

  test('property: an escaped search term matches only texts containing it literally', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'b', '%', '_', '!', '1', '0'), maxLength: 10 });
    fc.assert(
      fc.property(text, text, (needle, haystack) => {
        const re = likeToRegExp(`%${escapeLike(needle)}%`);
        assert.equal(re.test(haystack), haystack.includes(needle), `${needle} in ${haystack}`);
      }),
    );
  });
});
