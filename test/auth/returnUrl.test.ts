import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { safeReturnUrl } from '../../src/auth/returnUrl.js';

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
