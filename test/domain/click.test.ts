import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  clickIds,
  cleanReferrer,
  cleanUserAgent,
  clientIpHasher,
  hashClientIp,
  REFERRER_MAX,
  USER_AGENT_MAX,
  utcDateKey,
} from '../../src/domain/click.js';
import { codePointLength } from '../../src/domain/text.js';
import { DAY_MS } from '../../src/domain/timeseries.js';

/** Click data of docs/analytics.md#click-data-and-ip-hashing. */

const SECRET = 'a'.repeat(64);

describe('ip hash', () => {
  const day1 = Date.UTC(2026, 2, 10, 23, 59, 59, 999);
  const day2 = Date.UTC(2026, 2, 11, 0, 0, 0, 0);

  test('is 64 lowercase hex characters', () => {
    assert.match(hashClientIp(SECRET, '198.51.100.7', day1), /^[0-9a-f]{64}$/);
  });

  test('is the HMAC-SHA-256 of "<ip>:<YYYYMMDD>" keyed with the install secret', () => {
    const expected = createHmac('sha256', SECRET).update('198.51.100.7:20260310').digest('hex');
    assert.equal(hashClientIp(SECRET, '198.51.100.7', day1), expected);
  });

  test('the same IP on the same UTC date hashes the same', () => {
    assert.equal(hashClientIp(SECRET, '198.51.100.7', day1), hashClientIp(SECRET, '198.51.100.7', Date.UTC(2026, 2, 10, 0, 0, 1)));
  });

  test('the same IP on two UTC dates hashes differently (rotates at UTC midnight)', () => {
    assert.notEqual(hashClientIp(SECRET, '198.51.100.7', day1), hashClientIp(SECRET, '198.51.100.7', day2));
  });

  test('different IPs on the same date hash differently', () => {
    assert.notEqual(hashClientIp(SECRET, '198.51.100.7', day1), hashClientIp(SECRET, '198.51.100.8', day1));
  });

  test('two installs (different secrets) never produce the same hash for one IP', () => {
    assert.notEqual(hashClientIp(SECRET, '198.51.100.7', day1), hashClientIp('b'.repeat(64), '198.51.100.7', day1));
  });

  test('a remembering hasher answers exactly what hashClientIp does, across days and past its memory', () => {
    const hash = clientIpHasher(SECRET);
    // Few addresses and instants around UTC midnights, so results are remembered, reused and forgotten.
    const click = fc.record({
      ip: fc.constantFrom('198.51.100.7', '198.51.100.8', '2001:db8::1', ''),
      at: fc.integer({ min: day1 - 2 * DAY_MS, max: day2 + 2 * DAY_MS }),
    });
    fc.assert(
      fc.property(fc.array(click, { maxLength: 200 }), (clicks) => {
        for (const { ip, at } of clicks) assert.equal(hash(ip, at), hashClientIp(SECRET, ip, at));
      }),
    );
    for (let i = 0; i < 10_000; i++)
      assert.equal(hash(`10.0.${i >> 8}.${i & 255}`, day1), hashClientIp(SECRET, `10.0.${i >> 8}.${i & 255}`, day1));
    assert.equal(hash('198.51.100.7', day2), hashClientIp(SECRET, '198.51.100.7', day2));
  });

  test('the date key is the UTC calendar date, zero-padded', () => {
    assert.equal(utcDateKey(Date.UTC(2026, 0, 5, 23, 30)), '20260105');
    assert.equal(utcDateKey(Date.UTC(1999, 11, 31, 23, 59, 59, 999)), '19991231');
    assert.equal(utcDateKey(Date.UTC(2000, 0, 1)), '20000101');
  });
});

describe('referrer', () => {
  test('query string and fragment are removed', () => {
    assert.equal(cleanReferrer('https://wiki.test/page?token=abc#x'), 'https://wiki.test/page');
    assert.equal(cleanReferrer('https://wiki.test/a/b?x=1'), 'https://wiki.test/a/b');
    assert.equal(cleanReferrer('https://wiki.test/a#frag'), 'https://wiki.test/a');
  });

  test('a referrer without query or fragment keeps its path', () => {
    assert.equal(cleanReferrer('https://wiki.test/docs/intro'), 'https://wiki.test/docs/intro');
  });

  test('an unparsable referrer is kept as sent', () => {
    assert.equal(cleanReferrer('not a url?secret=1'), 'not a url?secret=1');
    assert.equal(cleanReferrer('/relative/path?x=1'), '/relative/path?x=1');
  });

  test('an absent referrer is empty', () => {
    assert.equal(cleanReferrer(undefined), '');
    assert.equal(cleanReferrer(''), '');
  });

  test('is truncated to 2048 code points without splitting a character', () => {
    const long = `https://wiki.test/${'😀'.repeat(3000)}`;
    const out = cleanReferrer(long);
    assert.ok(codePointLength(out) <= REFERRER_MAX);
    assert.equal(REFERRER_MAX, 2048);
    assert.doesNotMatch(out, /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    const unparsable = `x ${'😀'.repeat(3000)}`;
    const kept = cleanReferrer(unparsable);
    assert.equal(codePointLength(kept), 2048);
    assert.equal(kept, [...unparsable].slice(0, 2048).join(''));
  });
});

describe('user agent', () => {
  test('short values are kept unchanged; absent is empty', () => {
    assert.equal(cleanUserAgent('Mozilla/5.0 (X11; Linux x86_64)'), 'Mozilla/5.0 (X11; Linux x86_64)');
    assert.equal(cleanUserAgent(undefined), '');
  });

  test('is truncated to the first 512 code points', () => {
    assert.equal(USER_AGENT_MAX, 512);
    assert.equal(cleanUserAgent('u'.repeat(600)), 'u'.repeat(512));
    assert.equal(cleanUserAgent('u'.repeat(512)), 'u'.repeat(512));
  });

  test('truncation never splits a surrogate pair', () => {
    // 511 ASCII characters then emoji: code point 512 is the first emoji, whole.
    const ua = `${'u'.repeat(511)}${'😀'.repeat(10)}`;
    const out = cleanUserAgent(ua);
    assert.equal(out, `${'u'.repeat(511)}😀`);
    assert.equal(codePointLength(out), 512);
  });

  test('property: the result is a prefix of at most 512 code points and never ends in half a pair', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 700 }), (ua) => {
        const out = cleanUserAgent(ua);
        assert.ok(ua.startsWith(out));
        assert.equal(codePointLength(out), Math.min(codePointLength(ua), 512));
        assert.equal(out, [...ua].slice(0, 512).join(''));
      }),
    );
  });
});

describe('click ids', () => {
  const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
  const msOf = (id: string) => parseInt(id.slice(0, 8) + id.slice(9, 13), 16);

  test('are RFC 9562 version-7 UUIDs carrying the time they were made', () => {
    const at = Date.UTC(2026, 11, 2, 14, 30, 0, 123);
    const next = clickIds(() => at);
    const a = next();
    const b = next();
    assert.match(a, UUID_V7);
    assert.match(b, UUID_V7);
    assert.equal(msOf(a), at);
    assert.notEqual(a.slice(19), b.slice(19), 'the random part differs');
  });

  test('increase in the order they are made, within a millisecond, past 4,096 of them, and when the clock steps back', () => {
    fc.assert(
      // Clock readings in any order, each read for `perReading` ids in a row.
      fc.property(
        fc.array(fc.integer({ min: 0, max: 2 ** 47 }), { minLength: 1, maxLength: 50 }),
        fc.integer({ min: 1, max: 9_000 }),
        (readings, perReading) => {
          let calls = 0;
          const next = clickIds(() => readings[Math.floor(calls++ / perReading)]!);
          let last = '';
          for (let i = 0; i < Math.min(readings.length * perReading, 20_000); i++) {
            const id = next();
            assert.match(id, UUID_V7);
            assert.ok(id > last, `${id} after ${last}`);
            last = id;
          }
        },
      ),
      { numRuns: 30 },
    );
  });

  test('never run ahead of the clock by more than the ids made within one millisecond need', () => {
    const next = clickIds(() => 1_000);
    let id = '';
    for (let i = 0; i < 3 * 4_096; i++) id = next();
    assert.equal(msOf(id), 1_002);
  });
});
