import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { crossSiteReason } from '../../src/auth/crossSite.js';

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
