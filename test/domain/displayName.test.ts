import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { displayNameSlug, emailLocalPart } from '../../src/domain/displayName.js';

/** The profile slug rule of docs/web-ui.md#public-browser-and-profiles. */
describe('displayNameSlug', () => {
  const cases: Array<[string, string]> = [
    ['Alice Smith', 'alice-smith'],
    ["Joe O'Brien III", 'joe-obrien-iii'],
    ['  Padded Name  ', 'padded-name'],
    ['Dr. "Who"', 'dr-who'],
    ['Hello, World! (really?)', 'hello-world-really'],
    ['me@example.com', 'meexamplecom'],
    ['A & B + C', 'a-b-c'],
    ['tab\tand\nnewline', 'tab-and-newline'],
    ['a - b', 'a-b'],
    ['- edge -', 'edge'],
    ['ÉLODIE', 'lodie'],
    ['100% sure: yes', '100-sure-yes'],
  ];
  for (const [name, slug] of cases) {
    test(`${JSON.stringify(name)} → ${slug}`, () => assert.equal(displayNameSlug(name), slug));
  }

  test('a name that leaves nothing becomes "user"', () => {
    for (const empty of ['', '   ', '?!.,()', ' - ', '日本語']) assert.equal(displayNameSlug(empty), 'user');
  });

  test('the result is always a non-empty [a-z0-9-] slug without edge or doubled hyphens', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), (name) => {
        const s = displayNameSlug(name);
        return /^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(s);
      }),
    );
  });
});

describe('emailLocalPart', () => {
  test('is the part before @, or the whole text when there is none', () => {
    assert.equal(emailLocalPart('alice.smith@example.com'), 'alice.smith');
    assert.equal(emailLocalPart('no-at-sign'), 'no-at-sign');
    assert.equal(emailLocalPart('@example.com'), '@example.com');
  });
});
