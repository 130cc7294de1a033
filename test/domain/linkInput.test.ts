import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  validateDescription,
  validateExpiry,
  validateLinkChanges,
  validateLinkDraft,
  validateTitle,
  validateVisibility,
} from '../../src/domain/linkInput.js';
import { URL_MAX_BYTES } from '../../src/domain/url.js';

/** Input limits of docs/links.md#field-validation for a link write. */

const TITLE_ERROR = 'title must be at most 200 characters';
const DESCRIPTION_ERROR = 'description must be at most 2000 characters';
const VISIBILITY_ERROR = 'visibility must be one of: public, private, secure, internal';
const EXPIRY_ERROR = 'expiration must be in the future';

const now = Date.UTC(2026, 5, 1, 9, 30, 0, 250);

describe('title', () => {
  test('200 emoji are accepted: the limit counts code points, not UTF-16 units or bytes', () => {
    const title = '🚀'.repeat(200);
    assert.equal(title.length, 400);
    assert.equal(validateTitle(title), title);
  });

  test('200 multi-byte characters are accepted', () => {
    const title = 'é'.repeat(200);
    assert.equal(validateTitle(title), title);
  });

  test('201 characters are refused with the canonical message', () => {
    assert.throws(() => validateTitle('a'.repeat(201)), { code: 'INVALID_FIELD_LENGTH', field: 'title', message: TITLE_ERROR });
    assert.throws(() => validateTitle('🚀'.repeat(201)), { message: TITLE_ERROR });
  });

  test('an absent title is stored as the empty string, never null', () => {
    assert.equal(validateTitle(undefined), '');
    assert.equal(validateTitle(null), '');
  });
});

describe('description', () => {
  test('2000 code points are accepted, 2001 refused', () => {
    assert.equal(validateDescription('d'.repeat(2000)).length, 2000);
    assert.equal(validateDescription('日'.repeat(2000)), '日'.repeat(2000));
    assert.throws(() => validateDescription('d'.repeat(2001)), {
      code: 'INVALID_FIELD_LENGTH',
      field: 'description',
      message: DESCRIPTION_ERROR,
    });
  });

  test('an absent description is stored as the empty string', () => {
    assert.equal(validateDescription(null), '');
  });
});

describe('visibility', () => {
  test('empty or absent means public on create', () => {
    assert.equal(validateVisibility(''), 'public');
    assert.equal(validateVisibility(null), 'public');
    assert.equal(validateVisibility(undefined), 'public');
  });

  for (const v of ['public', 'private', 'secure', 'internal'] as const) {
    test(`"${v}" is accepted`, () => assert.equal(validateVisibility(v), v));
  }

  for (const v of ['Public', 'PRIVATE', 'hidden', ' secure', 'Internal']) {
    test(`${JSON.stringify(v)} is refused`, () => {
      assert.throws(() => validateVisibility(v), { code: 'INVALID_VISIBILITY', field: 'visibility', message: VISIBILITY_ERROR });
    });
  }
});

describe('expiry', () => {
  test('no expiry stays null', () => {
    assert.equal(validateExpiry(null, now), null);
    assert.equal(validateExpiry(undefined, now), null);
  });

  test('a future value is stored at whole-second precision', () => {
    const at = now + 3_600_000 + 789;
    const stored = validateExpiry(at, now);
    assert.ok(stored !== null);
    assert.equal(stored % 1000, 0);
    assert.ok(Math.abs(stored - at) < 1000);
  });

  test('a value in the past is refused', () => {
    assert.throws(() => validateExpiry(now - 60_000, now), { code: 'INVALID_EXPIRES_AT', field: 'expires_at', message: EXPIRY_ERROR });
  });

  test('a value equal to now is refused: it must be later than now', () => {
    const wholeNow = Math.floor(now / 1000) * 1000;
    assert.throws(() => validateExpiry(wholeNow, wholeNow), { message: EXPIRY_ERROR });
  });

  test('re-submitting the stored value is accepted even once it has passed', () => {
    const stored = now - 86_400_000 - ((now - 86_400_000) % 1000);
    assert.equal(validateExpiry(stored, now, stored), stored);
  });

  test('a past value that differs from the stored one is still refused', () => {
    const stored = Math.floor((now - 86_400_000) / 1000) * 1000;
    assert.throws(() => validateExpiry(stored - 1000, now, stored), { message: EXPIRY_ERROR });
  });

  test('a value within the stored second matches it after rounding', () => {
    const stored = Math.floor((now - 5_000) / 1000) * 1000;
    assert.equal(validateExpiry(stored + 400, now, stored), stored);
  });

  test('a non-finite value is refused', () => {
    assert.throws(() => validateExpiry(Number.NaN, now), { message: EXPIRY_ERROR });
  });
});

describe('validateLinkDraft', () => {
  test('a full valid input comes back normalised', () => {
    const v = validateLinkDraft(
      {
        slug: 'jira',
        url: '  https://jira.test/browse  ',
        title: null,
        visibility: '',
        tags: ['Jira', 'jira', 'Eng Tools'],
        aliases: ['tickets', ' issues ', 'tickets'],
        expiresAt: now + 10_500,
        forwardPathAndQuery: true,
      },
      now,
    );
    assert.deepEqual(v, {
      slug: 'jira',
      url: 'https://jira.test/browse',
      title: '',
      description: '',
      visibility: 'public',
      tags: [
        { name: 'Jira', slug: 'jira' },
        { name: 'Eng Tools', slug: 'eng-tools' },
      ],
      aliases: ['issues', 'tickets'],
      expiresAt: Math.floor((now + 10_500) / 1000) * 1000,
      forwardPathAndQuery: true,
      defaultUrl: null,
    });
  });

  test('each rule of docs/links.md#field-validation is applied', () => {
    const base = { slug: 'ok', url: 'https://x.test' };
    assert.throws(() => validateLinkDraft({ ...base, slug: 'links' }, now), { code: 'INVALID_SLUG' });
    assert.throws(() => validateLinkDraft({ ...base, slug: 'Bad' }, now), { code: 'INVALID_SLUG' });
    assert.throws(() => validateLinkDraft({ ...base, url: 'javascript:alert(1)' }, now), { code: 'INVALID_URL' });
    assert.throws(() => validateLinkDraft({ ...base, title: 'x'.repeat(201) }, now), { message: TITLE_ERROR });
    assert.throws(() => validateLinkDraft({ ...base, description: 'x'.repeat(2001) }, now), { message: DESCRIPTION_ERROR });
    assert.throws(() => validateLinkDraft({ ...base, visibility: 'hidden' }, now), { message: VISIBILITY_ERROR });
    assert.throws(() => validateLinkDraft({ ...base, tags: ['<script>'] }, now), { code: 'INVALID_TAG_NAME' });
    assert.throws(() => validateLinkDraft({ ...base, aliases: ['No'] }, now), { code: 'INVALID_ALIAS' });
    assert.throws(() => validateLinkDraft({ ...base, aliases: ['ok'] }, now), { code: 'INVALID_ALIAS' });
    assert.throws(() => validateLinkDraft({ ...base, aliases: Array.from({ length: 11 }, (_, i) => `a${i}`) }, now), {
      code: 'TOO_MANY_ALIASES',
    });
    assert.throws(
      () => validateLinkDraft({ ...base, tags: ['<script>'], aliases: ['No'] }, now),
      { code: 'INVALID_TAG_NAME' },
      'tags first',
    );
    assert.throws(() => validateLinkDraft({ ...base, expiresAt: now - 1000 }, now), { message: EXPIRY_ERROR });
  });

  test('a new link never matches a stored expiry: a past value is always refused on create', () => {
    const past = Math.floor(now / 1000) * 1000 - 1000;
    assert.throws(() => validateLinkDraft({ slug: 'ok', url: 'https://x.test', expiresAt: past }, now), { message: EXPIRY_ERROR });
  });
});

describe('default destination (docs/links.md#default-destination)', () => {
  const template = { slug: 'drive', url: 'https://drive.test/search?q=$q' };
  const stored = { slug: 'drive', expiresAt: null, url: template.url, defaultUrl: 'https://drive.test/' };

  test('beside $name placeholders it is kept, trimmed; blank is none', () => {
    assert.equal(validateLinkDraft({ ...template, defaultUrl: '  https://drive.test/  ' }, now).defaultUrl, 'https://drive.test/');
    assert.equal(
      validateLinkDraft({ ...template, defaultUrl: '/drive-home' }, now).defaultUrl,
      '/drive-home',
      'a destination on this server',
    );
    assert.equal(validateLinkDraft({ ...template, defaultUrl: '  ' }, now).defaultUrl, null);
    assert.equal(validateLinkDraft({ ...template, defaultUrl: null }, now).defaultUrl, null);
  });

  test('it meets every rule url meets, named as default_url', () => {
    const refused = (defaultUrl: string, expected: { code: string; message?: string | RegExp }) =>
      assert.throws(() => validateLinkDraft({ ...template, defaultUrl }, now), { ...expected, field: 'default_url' });
    refused('javascript:alert(1)', { code: 'INVALID_URL', message: 'default_url must start with http:// or https://' });
    refused('https:///path', { code: 'INVALID_URL', message: 'default_url must include a host (e.g. https://example.com)' });
    refused('//evil.test/', { code: 'INVALID_URL' });
    refused('x'.repeat(URL_MAX_BYTES + 1), { code: 'INVALID_FIELD_LENGTH', message: 'default_url must be at most 1 MiB' });
    refused('https://a.test/\u0000', { code: 'BAD_REQUEST', message: 'default_url must not contain NUL characters' });
  });

  test('it is one destination: placeholders of either kind are refused', () => {
    for (const defaultUrl of ['https://drive.test/$q', 'https://drive.test/{{.Path}}']) {
      assert.throws(() => validateLinkDraft({ ...template, defaultUrl }, now), { code: 'INVALID_URL', field: 'default_url' }, defaultUrl);
    }
  });

  test('only a $name template takes one, on create and on update', () => {
    for (const url of ['https://plain.test/', 'https://go.test/{{.Path}}', '/elsewhere']) {
      assert.throws(
        () => validateLinkDraft({ slug: 'x', url, defaultUrl: 'https://d.test/' }, now),
        { code: 'INVALID_URL', field: 'default_url' },
        url,
      );
    }
    assert.throws(
      () => validateLinkChanges({ defaultUrl: 'https://d.test/' }, { ...stored, url: 'https://plain.test/', defaultUrl: null }, now),
      {
        field: 'default_url',
      },
    );
  });

  test('an update taking the placeholders out of url is refused while the default stays, and passes when it clears it', () => {
    assert.throws(() => validateLinkChanges({ url: 'https://drive.test/' }, stored, now), { code: 'INVALID_URL', field: 'default_url' });
    assert.deepEqual(validateLinkChanges({ url: 'https://drive.test/', defaultUrl: '' }, stored, now), {
      url: 'https://drive.test/',
      defaultUrl: null,
    });
    assert.deepEqual(validateLinkChanges({ title: 'Drive' }, stored, now), { title: 'Drive' }, 'other fields leave it alone');
  });
});
