import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { normalizeTags, splitTagList, tagSlug } from '../../src/domain/tags.js';

/** Tag slugs (docs/links.md#tags) and tag validation (docs/links.md#field-validation). */

const TOO_MANY = 'a link may have at most 20 tags';
const tooLong = (name: string) => `tag names must be at most 50 characters: "${name}"`;
const badCharset = (name: string) =>
  `tag names must start with a letter or digit and may contain only letters, digits, spaces, hyphens, and underscores: "${name}"`;

describe('tagSlug', () => {
  const cases: Array<[string, string]> = [
    ['Engineering Tools', 'engineering-tools'],
    ['engineering tools', 'engineering-tools'],
    ['  Jira  ', 'jira'],
    ['snake_case_tag', 'snake-case-tag'],
    ['a - b', 'a-b'],
    ['a__b  c--d', 'a-b-c-d'],
    ['-edge-', 'edge'],
    ['C++ & Go!', 'c-go'],
    ['Ünïcode', 'ncode'],
    ['2024 Q1', '2024-q1'],
  ];
  for (const [name, slug] of cases) {
    test(`${JSON.stringify(name)} → ${slug}`, () => assert.equal(tagSlug(name), slug));
  }

  test('property: a slug only holds [a-z0-9-], has no `-` run and no edge `-`', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (name) => {
        const s = tagSlug(name);
        assert.match(s, /^(?:[a-z0-9]+(?:-[a-z0-9]+)*)?$/);
      }),
    );
  });

  test('property: every name that passes validation has a non-empty slug', () => {
    const validName = fc
      .tuple(fc.constantFrom(...'aZ09'), fc.string({ unit: fc.constantFrom(...'abcXYZ019 _-'), maxLength: 49 }))
      .map(([h, t]) => h + t);
    fc.assert(
      fc.property(validName, (name) => {
        const [tag] = normalizeTags([name]);
        assert.ok(tag && tag.slug.length > 0, name);
      }),
    );
  });
});

describe('normalizeTags', () => {
  test('`Jira, jira` attaches one tag and keeps the first spelling', () => {
    assert.deepEqual(normalizeTags(['Jira', 'jira']), [{ name: 'Jira', slug: 'jira' }]);
  });

  test('names that differ only by spacing or underscores collapse to one tag', () => {
    assert.deepEqual(normalizeTags(['Engineering Tools', 'engineering tools', 'engineering_tools']), [
      { name: 'Engineering Tools', slug: 'engineering-tools' },
    ]);
  });

  test('names are trimmed before they are stored', () => {
    assert.deepEqual(normalizeTags(['  ops  ']), [{ name: 'ops', slug: 'ops' }]);
  });

  test('order of first occurrence is kept', () => {
    assert.deepEqual(
      normalizeTags(['b', 'a', 'B', 'c']).map((t) => t.name),
      ['b', 'a', 'c'],
    );
  });

  test('an empty list is fine', () => {
    assert.deepEqual(normalizeTags([]), []);
  });

  test('20 tags are accepted; 21 are refused', () => {
    const twenty = Array.from({ length: 20 }, (_, i) => `t${i}`);
    assert.equal(normalizeTags(twenty).length, 20);
    assert.throws(() => normalizeTags([...twenty, 't20']), { code: 'TOO_MANY_TAGS', field: 'tags', message: TOO_MANY });
  });

  test('the 20-tag limit counts names before de-duplication', () => {
    const same = Array.from({ length: 21 }, () => 'jira');
    assert.throws(() => normalizeTags(same), { code: 'TOO_MANY_TAGS', message: TOO_MANY });
  });

  test('50 code points are accepted, 51 refused naming the tag', () => {
    const fifty = 'a'.repeat(50);
    assert.deepEqual(normalizeTags([fifty]), [{ name: fifty, slug: fifty }]);
    const fiftyOne = 'a'.repeat(51);
    assert.throws(() => normalizeTags([fiftyOne]), { code: 'INVALID_TAG_NAME', field: 'tags', message: tooLong(fiftyOne) });
  });

  test('the length is measured after trimming', () => {
    const padded = `   ${'a'.repeat(50)}   `;
    assert.equal(normalizeTags([padded])[0]?.name, 'a'.repeat(50));
  });

  test('the length check comes before the charset check and counts code points', () => {
    const emoji = '😀'.repeat(51);
    assert.throws(() => normalizeTags([emoji]), { message: tooLong(emoji) });
    const fiftyEmoji = '😀'.repeat(50);
    assert.throws(() => normalizeTags([fiftyEmoji]), { message: badCharset(fiftyEmoji) });
  });

  for (const name of ['<script>', '-leading', '_leading', ' ', '', 'café', 'a/b', 'a,b', 'a.b', 'tag!', 'ａｂｃ']) {
    test(`${JSON.stringify(name)} is refused with the charset error`, () => {
      assert.throws(() => normalizeTags([name]), { code: 'INVALID_TAG_NAME', message: badCharset(name.trim()) });
    });
  }

  test('one bad name refuses the whole list', () => {
    assert.throws(() => normalizeTags(['ok', 'fine', '<b>']), { message: badCharset('<b>') });
  });
});

describe('splitTagList', () => {
  test('splits on commas, trims, and drops empty items', () => {
    assert.deepEqual(splitTagList(' Jira, jira ,, ops ,'), ['Jira', 'jira', 'ops']);
    assert.deepEqual(splitTagList(''), []);
    assert.deepEqual(splitTagList(' , '), []);
  });
});
