import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { displayNameSlug, emailLocalPart } from '../../src/domain/displayName.js';

/** The display-name slug rule of core.md §1.4 (migration 00011 backfill). */
describe('displayNameSlug', () => {
  const id = '3f2a9c1e-7b44-4d0a-9e55-1c2d3e4f5a6b';

  const cases: Array<[string, string]> = [
    ['Alice Smith', 'alice-smith'],
    ["Joe O'Brien III", 'joe-obrien-iii'],
    ['  Padded Name  ', 'padded-name'],
    ['Dr. "Who"', 'dr-who'],
    ['Hello, World! (really?)', 'hello-world-really'],
    ['me@example.com', 'meexamplecom'],
    ['A & B + C', 'a-b-c'],
    ['tom #1 / jerry \\ co', 'tom-1-jerry-co'],
    ['a - b', 'a-b'],
    ['(Leading) and trailing!', 'leading-and-trailing'],
    ['- edge -', 'edge'],
    ['ÉLODIE', 'élodie'], // only the listed punctuation is removed
  ];
  for (const [name, slug] of cases) {
    test(`${JSON.stringify(name)} → ${slug}`, () => assert.equal(displayNameSlug(name, id), slug));
  }

  test('a name that leaves nothing becomes user- plus the first 8 characters of the id', () => {
    assert.equal(displayNameSlug('', id), 'user-3f2a9c1e');
    assert.equal(displayNameSlug('   ', id), 'user-3f2a9c1e');
    assert.equal(displayNameSlug('?!.,()', id), 'user-3f2a9c1e');
    assert.equal(displayNameSlug(' - ', id), 'user-3f2a9c1e');
  });

  test('the fallback is distinct per user', () => {
    assert.notEqual(displayNameSlug('', id), displayNameSlug('', 'aaaaaaaa-0000-4000-8000-000000000000'));
  });
});

describe('emailLocalPart', () => {
  test('is the part before @, or the whole text when there is none', () => {
    assert.equal(emailLocalPart('alice.smith@example.com'), 'alice.smith');
    assert.equal(emailLocalPart('no-at-sign'), 'no-at-sign');
    assert.equal(emailLocalPart('@example.com'), '@example.com');
  });
});
