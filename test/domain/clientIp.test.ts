import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { clientIp, isTrusted, parseCidrList } from '../../src/domain/clientIp.js';

/** Client address rule of docs/server.md#client-address. */

const NONE = parseCidrList('');
const PROXIES = parseCidrList('10.0.0.0/8, 127.0.0.1, ::1');
const ALL_FORWARDED = {
  'true-client-ip': '198.51.100.1',
  'x-real-ip': '198.51.100.2',
  'x-forwarded-for': '198.51.100.3, 198.51.100.4',
};

describe('untrusted peer', () => {
  test('with no trusted proxies configured, every forwarded header is ignored', () => {
    assert.equal(clientIp('203.0.113.9', ALL_FORWARDED, NONE), '203.0.113.9');
    assert.equal(clientIp('10.0.0.2', ALL_FORWARDED, NONE), '10.0.0.2');
  });

  test('a peer outside the trusted list cannot spoof its address with headers', () => {
    assert.equal(clientIp('203.0.113.9', ALL_FORWARDED, PROXIES), '203.0.113.9');
  });

  test('an IPv4-mapped IPv6 peer is reported as plain IPv4', () => {
    assert.equal(clientIp('::ffff:203.0.113.9', {}, NONE), '203.0.113.9');
  });

  test('an IPv6 peer is reported as is', () => {
    assert.equal(clientIp('2001:db8::7', ALL_FORWARDED, PROXIES), '2001:db8::7');
  });
});

describe('trusted peer', () => {
  test('True-Client-IP wins over every other header', () => {
    assert.equal(clientIp('10.0.0.2', ALL_FORWARDED, PROXIES), '198.51.100.1');
  });

  test('X-Real-IP is used when True-Client-IP is absent', () => {
    const { 'true-client-ip': _, ...rest } = ALL_FORWARDED;
    assert.equal(clientIp('10.0.0.2', rest, PROXIES), '198.51.100.2');
  });

  test('then the right-most X-Forwarded-For entry', () => {
    assert.equal(clientIp('10.0.0.2', { 'x-forwarded-for': '198.51.100.3, 198.51.100.4' }, PROXIES), '198.51.100.4');
  });

  test('X-Forwarded-For entries that are trusted proxies themselves are skipped', () => {
    assert.equal(clientIp('10.0.0.2', { 'x-forwarded-for': '198.51.100.3, 10.0.0.7, 127.0.0.1' }, PROXIES), '198.51.100.3');
  });

  test('X-Forwarded-For sent as several header lines is read as one list', () => {
    assert.equal(clientIp('10.0.0.2', { 'x-forwarded-for': ['198.51.100.3', '198.51.100.5, 10.0.0.9'] }, PROXIES), '198.51.100.5');
  });

  test('with no usable header the peer is the client', () => {
    assert.equal(clientIp('10.0.0.2', {}, PROXIES), '10.0.0.2');
    assert.equal(clientIp('10.0.0.2', { 'x-forwarded-for': '10.0.0.3, 10.0.0.4' }, PROXIES), '10.0.0.2');
    assert.equal(clientIp('10.0.0.2', { 'x-forwarded-for': '' }, PROXIES), '10.0.0.2');
  });

  test('an IPv4-mapped peer matches an IPv4 trusted range', () => {
    assert.equal(clientIp('::ffff:10.0.0.2', { 'x-real-ip': '198.51.100.2' }, PROXIES), '198.51.100.2');
  });

  test('an IPv6 loopback peer matches ::1', () => {
    assert.equal(clientIp('::1', { 'x-real-ip': '2001:db8::42' }, PROXIES), '2001:db8::42');
  });

  test('forwarded IPv4-mapped addresses are reported as plain IPv4', () => {
    assert.equal(clientIp('10.0.0.2', { 'true-client-ip': '::ffff:198.51.100.1' }, PROXIES), '198.51.100.1');
  });

  test('surrounding whitespace in a header value is tolerated', () => {
    assert.equal(clientIp('10.0.0.2', { 'x-real-ip': '  198.51.100.2 ' }, PROXIES), '198.51.100.2');
  });

  for (const bad of [
    'unknown',
    'garbage',
    '198.51.100.1:443',
    '[2001:db8::1]',
    '256.1.1.1',
    '12345',
    '127.1',
    '010.0.0.1',
    '0x7f.0.0.1',
    '',
  ]) {
    test(`a header value that is not an IP (${JSON.stringify(bad)}) is ignored`, () => {
      assert.equal(clientIp('10.0.0.2', { 'true-client-ip': bad, 'x-real-ip': '198.51.100.2' }, PROXIES), '198.51.100.2');
      assert.equal(clientIp('10.0.0.2', { 'x-real-ip': bad, 'x-forwarded-for': `198.51.100.3, ${bad}` }, PROXIES), '198.51.100.3');
    });
  }
});

describe('parseCidrList / isTrusted', () => {
  test('accepts addresses and CIDRs of both families, skipping empty items', () => {
    const list = parseCidrList(' 192.168.0.0/16 , , 2001:db8::/32,127.0.0.1 ');
    assert.equal(list.length, 3);
    assert.equal(isTrusted('192.168.44.1', list), true);
    assert.equal(isTrusted('192.169.0.1', list), false);
    assert.equal(isTrusted('2001:db8:1::5', list), true);
    assert.equal(isTrusted('2001:db9::5', list), false);
    assert.equal(isTrusted('127.0.0.1', list), true);
    assert.equal(isTrusted('127.0.0.2', list), false);
  });

  test('a bare address trusts only itself', () => {
    assert.equal(isTrusted('10.0.0.1', parseCidrList('10.0.0.0')), false);
    assert.equal(isTrusted('10.0.0.0', parseCidrList('10.0.0.0')), true);
  });

  test('an IPv4 peer is not matched by an IPv6-only list', () => {
    assert.equal(isTrusted('10.0.0.1', parseCidrList('::1, fd00::/8')), false);
  });

  test('nothing is trusted when the list is empty or the address is not an IP', () => {
    assert.equal(isTrusted('127.0.0.1', NONE), false);
    assert.equal(isTrusted('localhost', PROXIES), false);
  });

  for (const bad of ['not-an-ip', '10.0.0.0/33', '10.0.0.0/', 'fd00::/129']) {
    test(`a bad entry ${JSON.stringify(bad)} is refused`, () => {
      assert.throws(() => parseCidrList(`127.0.0.1, ${bad}`));
    });
  }
});
