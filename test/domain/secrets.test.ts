import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { base62, isPatShaped, newPersonalAccessToken, randomToken, sha256Base64Url, sha256Hex } from '../../src/domain/secrets.js';

describe('secrets', () => {
  test('base62 is big-endian with the 0-9A-Za-z alphabet', () => {
    assert.equal(base62(new Uint8Array([0])), '0');
    assert.equal(base62(new Uint8Array([61])), 'z');
    assert.equal(base62(new Uint8Array([62])), '10');
    assert.equal(base62(new Uint8Array([1, 0])), '48'); // 256 = 4·62 + 8
    assert.equal(base62(new Uint8Array(32).fill(255)).length, 43);
  });

  test('personal access tokens are jl_ + base62 of 32 random bytes', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const t = newPersonalAccessToken();
      assert.match(t, /^jl_[0-9A-Za-z]{38,43}$/);
      assert.ok(isPatShaped(t));
      seen.add(t);
    }
    assert.equal(seen.size, 200);
    assert.equal(isPatShaped('jl_'), false);
    assert.equal(isPatShaped(`jl_${'a'.repeat(44)}`), false);
    assert.equal(isPatShaped('jl_abc-def'), false);
  });

  test('digests: hex SHA-256 and the PKCE S256 challenge', () => {
    assert.equal(sha256Hex('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    // RFC 7636 appendix B.
    assert.equal(sha256Base64Url('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'), 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    assert.equal(randomToken().length, 43);
    assert.equal(randomToken(64).length, 86);
    assert.equal(createHash('sha256').update('x').digest('hex'), sha256Hex('x'));
  });
});
