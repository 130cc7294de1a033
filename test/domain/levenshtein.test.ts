import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { levenshtein } from '../../src/domain/levenshtein.js';

/** Plain Levenshtein distance used by did-you-mean and suggest (docs/links.md#autocomplete-and-search, docs/links.md#forgiveness-and-did-you-mean). */
describe('levenshtein', () => {
  const cases: Array<[string, string, number]> = [
    ['', '', 0],
    ['jira', 'jira', 0],
    ['', 'abc', 3],
    ['abc', '', 3],
    ['secrt', 'secret', 1], // insertion
    ['secret', 'secrt', 1], // deletion
    ['jira', 'jora', 1], // substitution
    ['ab', 'ba', 2], // no transposition move
    ['kitten', 'sitting', 3],
    ['flaw', 'lawn', 2],
    ['😀a', '😀b', 1], // code points, not UTF-16 units
    ['😀', '😁', 1],
  ];
  for (const [a, b, d] of cases) {
    test(`${JSON.stringify(a)} ↔ ${JSON.stringify(b)} = ${d}`, () => {
      assert.equal(levenshtein(a, b), d);
      assert.equal(levenshtein(b, a), d);
    });
  }

  test('with a cap, anything beyond it reports cap+1 and anything within it is exact', () => {
    assert.equal(levenshtein('abcdef', 'uvwxyz', 2), 3);
    assert.equal(levenshtein('a', 'abcdefgh', 2), 3);
    assert.equal(levenshtein('secrt', 'secret', 2), 1);
    assert.equal(levenshtein('ab', 'ba', 2), 2);
    // every row stays within the cap here, only the last cell goes past it
    assert.equal(levenshtein('aaba', 'cb-aa😀'), 5);
    assert.equal(levenshtein('aaba', 'cb-aa😀', 3), 4);
  });

  const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c', '-', '😀'), maxLength: 8 });

  test('property: a metric (identity, symmetry, triangle inequality)', () => {
    fc.assert(
      fc.property(word, word, word, (a, b, c) => {
        assert.equal(levenshtein(a, b) === 0, a === b);
        assert.equal(levenshtein(a, b), levenshtein(b, a));
        assert.ok(levenshtein(a, c) <= levenshtein(a, b) + levenshtein(b, c));
      }),
    );
  });

  test('property: the capped distance agrees with the exact one up to the cap', () => {
    fc.assert(
      fc.property(word, word, fc.integer({ min: 0, max: 4 }), (a, b, max) => {
        const exact = levenshtein(a, b);
        assert.equal(levenshtein(a, b, max), exact <= max ? exact : max + 1);
      }),
    );
  });
});
