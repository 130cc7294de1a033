import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readClaims } from '../../../src/auth/oidc.js';

describe('ID token claims', () => {
  const base = { iss: 'https://idp.example', sub: 's1', email: 'a@x.io', email_verified: true, name: 'A', groups: ['g'] };

  test('reads iss, sub, email, name and the configured groups claim', () => {
    assert.deepEqual(readClaims({ ...base, roles: ['r'] }, 'roles'), {
      issuer: 'https://idp.example',
      subject: 's1',
      email: 'a@x.io',
      emailVerified: true,
      name: 'A',
      groups: ['r'],
    });
    assert.equal(readClaims({ ...base, email_verified: 'true' }, 'groups').emailVerified, true);
    assert.equal(readClaims({ ...base, email_verified: undefined }, 'groups').emailVerified, false);
    assert.equal(readClaims({ ...base, name: undefined }, 'groups').name, '');
    assert.equal([...readClaims({ ...base, name: '🙂'.repeat(400) }, 'groups').name].length, 200);
  });

  test('refuses claims that cannot be stored', () => {
    for (const bad of [
      { email: undefined },
      { email: '' },
      { email: 'no-at' },
      { email: `${'a'.repeat(250)}@x.io` },
      { sub: 5 },
      { iss: undefined },
      { sub: 's'.repeat(300) },
    ]) {
      assert.throws(() => readClaims({ ...base, ...bad }, 'groups'), /iss or sub|email/);
    }
  });
});
