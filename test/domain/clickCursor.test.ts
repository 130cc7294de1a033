import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { clampClicksLimit, decodeClickCursor, encodeClickCursor, parseClicksBefore } from '../../src/domain/clickCursor.js';

const at = (iso: string) => Date.parse(iso);

describe('click cursors (docs/api.md#pagination)', () => {
  test('padded URL-safe base64 of "<clicked_at> NUL <id>", round-tripping exactly', () => {
    const p = { clickedAt: 1_752_760_800_123, id: '0b9a5c1e-4f1d-4c52-9a3e-2f3d4e5f6a7b' };
    const c = encodeClickCursor(p);
    assert.match(c, /^[A-Za-z0-9_-]+=*$/);
    assert.equal(Buffer.from(c.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString(), `${p.clickedAt}\u0000${p.id}`);
    assert.deepEqual(decodeClickCursor(c), p);
    assert.deepEqual(decodeClickCursor(c.replace(/=+$/, '')), p);
  });

  test('malformed cursors decode to null', () => {
    const enc = (s: string) => Buffer.from(s).toString('base64url');
    for (const bad of [
      '',
      'not-a-cursor!',
      enc('123'),
      enc('abc\u0000id'),
      enc('1\u0000'),
      enc('1\u0000id\u0000x'),
      enc('99999999999999999\u0000id'),
      'AAAA====',
    ]) {
      assert.equal(decodeClickCursor(bad), null, bad);
    }
    fc.assert(fc.property(fc.string({ maxLength: 80 }), (s) => void decodeClickCursor(s)));
  });

  test('before: a bare RFC 3339 timestamp first, then a cursor, else nothing', () => {
    assert.deepEqual(parseClicksBefore('2026-07-17T14:00:00Z'), { kind: 'time', clickedAt: at('2026-07-17T14:00:00Z') });
    const c = encodeClickCursor({ clickedAt: 5, id: 'abc' });
    assert.deepEqual(parseClicksBefore(c), { kind: 'position', position: { clickedAt: 5, id: 'abc' } });
    assert.equal(parseClicksBefore('not-a-cursor'), null);
  });

  test('limit: default 50, junk/zero/negative → 50, capped at 200', () => {
    assert.equal(clampClicksLimit(undefined), 50);
    assert.equal(clampClicksLimit('abc'), 50);
    assert.equal(clampClicksLimit('0'), 50);
    assert.equal(clampClicksLimit('-3'), 50);
    assert.equal(clampClicksLimit('10'), 10);
    assert.equal(clampClicksLimit('999'), 200);
  });
});
