import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { crossSiteReason } from '../../src/auth/crossSite.js';
import { isEnvGrantedAdmin, roleAfterLogin } from '../../src/auth/grants.js';
import { readClaims } from '../../src/auth/oidc.js';
import { safeReturnUrl } from '../../src/auth/returnUrl.js';
import { base62, isPatShaped, newPersonalAccessToken, randomToken, sha256Base64Url, sha256Hex } from '../../src/domain/secrets.js';

describe('safe return URLs (docs/auth.md#safe-return-urls)', () => {
  const cases: Array<[unknown, string]> = [
    ['/go/secret', '/go/secret'],
    ['/dashboard?x=1', '/dashboard?x=1'],
    ['/dashboard/links/new?slug=new-thing', '/dashboard/links/new?slug=new-thing'],
    ['/links?q=a%20b', '/links?q=a%20b'],
    ['/', '/'],
    ['', '/dashboard'],
    [undefined, '/dashboard'],
    [['/a', '/b'], '/dashboard'],
    ['https://evil.com', '/dashboard'],
    ['http://evil.com', '/dashboard'],
    ['//evil.com', '/dashboard'],
    ['/\\evil.com', '/dashboard'],
    ['/\t/evil.com', '/dashboard'],
    ['/\r/evil.com', '/dashboard'],
    ['/\n/evil.com', '/dashboard'],
    ['/go\u0000x', '/dashboard'],
    ['/go\u007fx', '/dashboard'],
    ['javascript:alert(1)', '/dashboard'],
    ['JAVASCRIPT:alert(1)', '/dashboard'],
    ['%2F%2Fevil.com', '/dashboard'],
    ['/%2F/evil.com', '/dashboard'],
    ['/%2f%2fevil.com', '/dashboard'],
    ['/%5Cevil.com', '/dashboard'],
    ['/%09/evil.com', '/dashboard'],
    ['/%0d%0a/evil.com', '/dashboard'],
    ['/go/%E0%A4%A', '/dashboard'],
    ['/a\\b', '/dashboard'],
    ['evil.com', '/dashboard'],
    [`/${'a'.repeat(3000)}`, '/dashboard'],
  ];
  for (const [input, want] of cases) {
    test(`${JSON.stringify(input)} → ${want}`, () => assert.equal(safeReturnUrl(input), want));
  }
});

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

describe('admin grants (docs/auth.md#roles-and-admin-grants)', () => {
  const config: Parameters<typeof isEnvGrantedAdmin>[0] = { adminEmail: 'boss@x.io', oidc: { adminGroups: ['joe-admins', 'ops'] } };

  test('JOE_ADMIN_EMAIL is an exact string match', () => {
    assert.equal(isEnvGrantedAdmin(config, { email: 'boss@x.io' }), true);
    assert.equal(isEnvGrantedAdmin(config, { email: 'Boss@x.io' }), false);
    assert.equal(isEnvGrantedAdmin(config, { email: ' boss@x.io' }), false);
    assert.equal(isEnvGrantedAdmin({ ...config, adminEmail: null }, { email: 'boss@x.io' }), false);
  });

  test('only an array groups claim holding an admin group grants', () => {
    assert.equal(isEnvGrantedAdmin(config, { email: 'a@x.io', groups: ['staff', 'ops'] }), true);
    assert.equal(isEnvGrantedAdmin(config, { email: 'a@x.io', groups: ['staff'] }), false);
    assert.equal(isEnvGrantedAdmin(config, { email: 'a@x.io', groups: 'joe-admins' }), false);
    assert.equal(isEnvGrantedAdmin(config, { email: 'a@x.io', groups: { 'joe-admins': true } }), false);
    assert.equal(isEnvGrantedAdmin(config, { email: 'a@x.io', groups: [['joe-admins'], 1, null] }), false);
    assert.equal(isEnvGrantedAdmin(config, { email: 'a@x.io' }), false);
    assert.equal(isEnvGrantedAdmin({ ...config, oidc: { adminGroups: [] } }, { email: 'a@x.io', groups: [''] }), false);
  });

  test('grants promote, config revokes only what config granted', () => {
    assert.deepEqual(roleAfterLogin({ role: 'user', roleSource: 'manual' }, true), { role: 'admin', roleSource: 'config' });
    assert.deepEqual(roleAfterLogin({ role: 'user', roleSource: 'config' }, true), { role: 'admin', roleSource: 'config' });
    assert.equal(roleAfterLogin({ role: 'admin', roleSource: 'manual' }, true), null);
    assert.equal(roleAfterLogin({ role: 'admin', roleSource: 'config' }, true), null);
    assert.deepEqual(roleAfterLogin({ role: 'admin', roleSource: 'config' }, false), { role: 'user', roleSource: 'config' });
    assert.equal(roleAfterLogin({ role: 'admin', roleSource: 'manual' }, false), null);
    assert.equal(roleAfterLogin({ role: 'user', roleSource: 'manual' }, false), null);
  });
});

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

describe('cross-site rule (docs/auth.md#cross-site-checks)', () => {
  const config = { baseUrl: 'https://go.example.com' };
  // Where the rule applies is the web context's business (test/http/contexts.test.ts); the path is kept for reading.
  const reason = (method: string, _path: string, headers: Record<string, string>) => crossSiteReason(config, method, headers);

  test('same-origin writes and every read pass', () => {
    assert.equal(reason('POST', '/dashboard/theme', { host: 'go.example.com', origin: 'https://go.example.com' }), null);
    assert.equal(reason('POST', '/dashboard/theme', { host: 'go.example.com:443', origin: 'https://go.example.com' }), null);
    assert.equal(
      reason('DELETE', '/dashboard/links/1', { host: '10.0.0.5:8080', origin: 'https://go.example.com' }),
      null,
      'Origin matches JOE_BASE_URL behind a proxy',
    );
    assert.equal(reason('POST', '/auth/logout', { host: 'localhost:8080', origin: 'http://localhost:8080' }), null);
    assert.equal(reason('POST', '/auth/logout', { host: 'go.example.com' }), null, 'no Origin, no Sec-Fetch-Site: not a browser');
    assert.equal(reason('POST', '/auth/logout', { host: 'go.example.com', 'sec-fetch-site': 'same-origin' }), null);
    assert.equal(reason('GET', '/dashboard', { host: 'go.example.com', origin: 'https://evil.example' }), null);
    assert.equal(reason('HEAD', '/dashboard', { host: 'go.example.com', 'sec-fetch-site': 'cross-site' }), null);
  });

  test('cross-site writes are refused', () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      assert.ok(reason(method, '/dashboard/links/1', { host: 'go.example.com', origin: 'https://evil.example' }), method);
    }
    assert.ok(reason('POST', '/x', { host: 'go.example.com', origin: 'https://go.example.com:8443' }), 'port differs');
    assert.ok(reason('POST', '/x', { host: 'go.example.com', origin: 'https://go.example.com.evil.example' }));
    assert.ok(reason('POST', '/x', { host: 'go.example.com', origin: 'null' }));
    assert.ok(reason('POST', '/x', { host: 'go.example.com', origin: 'file://' }));
    assert.ok(reason('POST', '/auth/logout', { host: 'go.example.com', 'sec-fetch-site': 'cross-site' }));
    assert.ok(
      reason('POST', '/x', { host: 'evil.example/@go.example.com', origin: 'https://evil.example' }),
      'a Host header with a path is no host',
    );
  });
});
