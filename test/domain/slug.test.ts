import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { AppError } from '../../src/domain/errors.js';
import {
  assertValidSlug,
  isReservedSlug,
  isSegmentShaped,
  isSlugShaped,
  normalizationCandidates,
  RESERVED_SLUGS,
  slugAdvice,
  slugError,
  SLUG_MAX_SEGMENTS,
  slugKey,
  hyphenlessKey,
  suggestSlug,
} from '../../src/domain/slug.js';

/** Slug rules of docs/links.md#slugs with the canonical messages of docs/links.md#field-validation, and the forgiveness of docs/links.md#forgiveness-and-did-you-mean. */

const FORMAT_ERROR = 'slug must match [a-z0-9][a-z0-9-]*[a-z0-9]';
const LENGTH_ERROR = 'slug must be at most 128 characters';
// Written out from docs/links.md#field-validation rather than built from RESERVED_SLUGS, so a change to the list
// without a matching change to the documented message fails here.
const reservedError = (slug: string) =>
  `slug is reserved and cannot be used: "${slug}" (reserved: admin, api, auth, dashboard, healthz, links, mcp, metrics, notifications, readyz, s, static, u)`;

describe('slug format', () => {
  for (const slug of ['links-roundup', 'u-foo', 'api2', 'a', '7', 'go', 'a-b-c', '2fa', 'x--y', 'standup-notes']) {
    test(`"${slug}" is accepted`, () => {
      assert.equal(slugError(slug), null);
      assert.doesNotThrow(() => assertValidSlug(slug));
    });
  }

  for (const slug of ['Jira', '-foo', 'bar-', 'a b', '', '-', 'a_b', 'a.b', 'café', 'jira\n', '_admin']) {
    test(`${JSON.stringify(slug)} is refused with the format error`, () => {
      assert.equal(slugError(slug), FORMAT_ERROR);
      assert.throws(() => assertValidSlug(slug), { name: 'AppError', code: 'INVALID_SLUG', field: 'slug', message: FORMAT_ERROR });
    });
  }

  test('128 characters is the longest accepted slug; 129 is refused with the length error', () => {
    assert.equal(slugError('a'.repeat(128)), null);
    assert.equal(slugError('a'.repeat(129)), LENGTH_ERROR);
    assert.equal(slugError(`a${'-b'.repeat(64)}`), LENGTH_ERROR); // 129 chars, otherwise well-formed
  });

  test('validation is strict: no case folding or trimming at write time', () => {
    assert.equal(slugError('JIRA'), FORMAT_ERROR);
    assert.equal(slugError(' jira'), FORMAT_ERROR);
  });
});

describe('names of several segments (docs/links.md#slugs)', () => {
  const SEGMENTS_ERROR = 'slug must be segments joined by single "/", each matching [a-z0-9][a-z0-9-]*[a-z0-9]';

  for (const slug of ['blog/launch', 'eng/1', 'a/b/c/d/e/f/g/h', 'links-roundup/q3', 'u-foo/bar', 'x/admin', 'team/s/u']) {
    test(`"${slug}" is accepted`, () => {
      assert.equal(slugError(slug), null);
      assert.equal(slugError(slug, 'alias'), null);
      assert.equal(isSlugShaped(slug), true);
      assert.doesNotThrow(() => assertValidSlug(slug));
    });
  }

  for (const slug of ['/blog', 'blog/', 'blog//launch', '/', 'Blog/launch', 'blog/-x', 'blog/x-', 'blog/a_b', 'blog/ launch', 'a/b.c']) {
    test(`${JSON.stringify(slug)} is refused: every segment follows the one-segment rule, none empty`, () => {
      assert.equal(slugError(slug), SEGMENTS_ERROR);
      assert.equal(isSlugShaped(slug), false);
      assert.throws(() => assertValidSlug(slug), { name: 'AppError', code: 'INVALID_SLUG', field: 'slug', message: SEGMENTS_ERROR });
    });
  }

  test(`at most ${SLUG_MAX_SEGMENTS} segments`, () => {
    assert.equal(SLUG_MAX_SEGMENTS, 8);
    assert.equal(slugError('a/b/c/d/e/f/g/h/i'), 'slug must have at most 8 segments');
    assert.equal(slugError('a/b/c/d/e/f/g/h/i', 'alias'), 'alias must have at most 8 segments');
    assert.equal(isSlugShaped('a/b/c/d/e/f/g/h/i'), false);
  });

  test('at most 128 characters in all, slashes counted', () => {
    const longest = `${'a'.repeat(63)}/${'b'.repeat(64)}`;
    assert.equal(longest.length, 128);
    assert.equal(slugError(longest), null);
    assert.equal(slugError(`${longest}b`), LENGTH_ERROR);
    assert.equal(isSlugShaped(`${longest}b`), false);
  });

  for (const first of RESERVED_SLUGS) {
    test(`a reserved first segment is refused: "${first}/x"`, () => {
      const want = `slug starts with a reserved word and cannot be used: "${first}" (reserved: ${RESERVED_SLUGS.join(', ')})`;
      assert.equal(isReservedSlug(`${first}/x`), true);
      assert.equal(slugError(`${first}/x`), want);
      assert.throws(() => assertValidSlug(`${first}/x`), { code: 'INVALID_SLUG', message: want });
    });
  }

  test('only the first segment is checked against the reserved words', () => {
    assert.equal(isReservedSlug('x/admin'), false);
    assert.equal(isReservedSlug('admins/x'), false);
    assert.equal(slugError('api2/v1'), null);
  });

  test('isSegmentShaped is the one-segment rule', () => {
    assert.equal(isSegmentShaped('launch'), true);
    assert.equal(isSegmentShaped('blog/launch'), false);
    assert.equal(isSegmentShaped(''), false);
  });

  test("golink's hyphen-less key keeps the `/`, so a name of several segments never matches a one-segment key", () => {
    assert.equal(slugKey('blog/launch-day'), 'blog/launchday');
    assert.equal(hyphenlessKey('blog/launch-day'), null);
    assert.equal(hyphenlessKey('launch-day'), 'launchday');
  });

  test('advice for a name of several segments: the rule with slashes, the reserved word, the name meant', () => {
    assert.equal(slugAdvice('blog/launch'), null);
    assert.deepEqual(slugAdvice('Blog/Launch'), {
      message:
        'A short name may have up to 8 parts joined by single slashes; each uses lowercase letters, digits and hyphens, and starts and ends with a letter or digit.',
      suggestion: 'blog/launch',
    });
    assert.deepEqual(slugAdvice('blog//launch')!.suggestion, 'blog/launch');
    assert.deepEqual(slugAdvice('admin/tools'), {
      message: "'admin' is used by the app: a short name cannot start with it. Choose another name.",
      suggestion: null,
    });
  });
});

describe('reserved slugs', () => {
  test('the list is exactly the one docs/links.md#slugs documents', () => {
    assert.deepEqual(
      [...RESERVED_SLUGS],
      ['admin', 'api', 'auth', 'dashboard', 'healthz', 'links', 'mcp', 'metrics', 'notifications', 'readyz', 's', 'static', 'u'],
    );
  });

  for (const slug of [
    'admin',
    'api',
    'auth',
    'dashboard',
    'healthz',
    'links',
    'mcp',
    'metrics',
    'notifications',
    'readyz',
    's',
    'static',
    'u',
  ]) {
    test(`"${slug}" is refused naming it and listing every reserved slug`, () => {
      assert.equal(isReservedSlug(slug), true);
      assert.equal(slugError(slug), reservedError(slug));
      assert.throws(
        () => assertValidSlug(slug),
        (e: unknown) => e instanceof AppError && e.message === reservedError(slug) && e.status === 400,
      );
    });
  }

  test('reservation is by exact match only', () => {
    for (const slug of ['links-roundup', 'u-foo', 'api2', 'admins', 'sa', 'static-site', 'my-admin']) {
      assert.equal(isReservedSlug(slug), false, slug);
      assert.equal(slugError(slug), null, slug);
    }
  });

  test('the reserved list cannot be mutated at run time', () => {
    assert.throws(() => (RESERVED_SLUGS as string[]).push('dashboard2'));
    assert.equal(isReservedSlug('dashboard2'), false);
  });
});

describe('isSlugShaped (resolver pre-check)', () => {
  test('agrees with write-time format and length rules for non-reserved input', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'z', '0', '9', '-', 'A', '_', ' '), maxLength: 140 }), (s) => {
        if (isReservedSlug(s)) return;
        assert.equal(isSlugShaped(s), slugError(s) === null, JSON.stringify(s));
      }),
    );
  });

  test('reserved words are slug-shaped (the router, not the pattern, keeps them out)', () => {
    assert.equal(isSlugShaped('links'), true);
    assert.equal(isSlugShaped(''), false);
  });
});

describe('normalization candidates (docs/links.md#forgiveness-and-did-you-mean)', () => {
  test('`standup_notes.` tries `standup-notes.`, then `standup_notes`, then `standup-notes`', () => {
    assert.deepEqual(normalizationCandidates('standup_notes.'), ['standup-notes.', 'standup_notes', 'standup-notes']);
  });

  test('`...` yields no candidates (empty ones are skipped)', () => {
    assert.deepEqual(normalizationCandidates('...'), []);
  });

  test('a path that needs no forgiveness yields nothing (the original is never retried)', () => {
    assert.deepEqual(normalizationCandidates('standup-notes'), []);
  });

  test('duplicates are skipped: only underscores gives one candidate', () => {
    assert.deepEqual(normalizationCandidates('standup_notes'), ['standup-notes']);
  });

  test('only trailing punctuation gives one candidate, every char of the set is stripped', () => {
    assert.deepEqual(normalizationCandidates('jira.,;:!?)'), ['jira']);
    assert.deepEqual(normalizationCandidates('jira)'), ['jira']);
  });

  test('punctuation in the middle stays; only the trailing run is stripped', () => {
    assert.deepEqual(normalizationCandidates('a.b!'), ['a.b']);
  });

  test('characters outside the set are not stripped', () => {
    assert.deepEqual(normalizationCandidates('jira]'), []);
    assert.deepEqual(normalizationCandidates('jira-'), []);
  });

  test('property: candidates never include the original, empties or duplicates, and are at most three', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'b', '_', '-', '.', ',', ';', ':', '!', '?', ')'), maxLength: 12 }), (p) => {
        const c = normalizationCandidates(p);
        assert.ok(c.length <= 3);
        assert.ok(!c.includes(p));
        assert.ok(!c.includes(''));
        assert.equal(new Set(c).size, c.length);
        for (const x of c) assert.ok(!x.includes('_') || x === p.replace(/[.,;:!?)]+$/, ''), x);
      }),
    );
  });
});

describe('slug suggestions (docs/links.md#slug-suggestions)', () => {
  const cases: Array<[string, string | null]> = [
    ['Bad Slug!', 'bad-slug'],
    ['Slack', 'slack'],
    ['  team   wiki  ', 'team-wiki'],
    ['Café Menü', 'cafe-menu'],
    ['a_b.c/d', 'a-b-c/d'],
    ['Blog/Launch', 'blog/launch'],
    ['/Blog//Launch Day/', 'blog/launch-day'],
    ['a/b/c/d/e/f/g/h/i/j', 'a/b/c/d/e/f/g/h-i-j'],
    ['Admin/Tools', null],
    ['--x--', 'x'],
    ['!!!', null],
    ['', null],
    ['Admin', null],
    ['日本', null],
  ];
  for (const [input, want] of cases) {
    test(`${JSON.stringify(input)} → ${JSON.stringify(want)}`, () => assert.equal(suggestSlug(input), want));
  }

  test('a suggestion is always a usable slug, and a usable slug suggests itself', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (s) => {
        const got = suggestSlug(s);
        if (got !== null) assert.equal(slugError(got), null, JSON.stringify(s));
        if (slugError(s) === null) assert.equal(got, s);
      }),
    );
    assert.equal(suggestSlug(`${'a'.repeat(127)}-b`)?.length, 127, 'cut at 128 without a trailing hyphen');
  });

  test('plain-language advice: the rule, the slug meant, what the app uses, nothing for a good slug', () => {
    assert.equal(slugAdvice('slack'), null);
    assert.deepEqual(slugAdvice('Bad Slug!'), {
      message: 'A short name uses lowercase letters, digits and hyphens, and starts and ends with a letter or digit.',
      suggestion: 'bad-slug',
    });
    assert.deepEqual(slugAdvice('admin'), { message: "'admin' is used by the app. Choose another name.", suggestion: null });
    assert.deepEqual(slugAdvice(''), { message: 'Choose a short name for the link.', suggestion: null });
    assert.deepEqual(slugAdvice('a'.repeat(129)), {
      message: 'That is too long: a short name has at most 128 characters.',
      suggestion: 'a'.repeat(128),
    });
    assert.equal(slugAdvice('!!!')!.suggestion, null);
  });
});
