import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { classifyAddress, isPublicAddress, type AddressClass } from '../../src/domain/addressClass.js';

/** docs/lifecycle.md#ssrf-guard: every refused class, the unmapping rule, and public unicast allowed. */
describe('address classes', () => {
  const refused: Array<[string, AddressClass]> = [
    // loopback
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    // RFC 1918
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    // unique-local
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456:789a::1', 'uniqueLocal'],
    // link-local unicast, cloud metadata included
    ['169.254.169.254', 'linkLocal'],
    ['169.254.0.1', 'linkLocal'],
    ['fe80::1', 'linkLocal'],
    ['fe80::1%eth0', 'linkLocal'],
    ['febf::1', 'linkLocal'],
    // multicast, link-local multicast included
    ['224.0.0.1', 'multicast'],
    ['224.0.0.251', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['ff0e::1', 'multicast'],
    // unspecified and "this network"
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['0.1.2.3', 'thisNetwork'],
    ['0.255.255.255', 'thisNetwork'],
    // CGNAT
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.254', 'cgnat'],
    // limited broadcast
    ['255.255.255.255', 'broadcast'],
    // NAT64, whatever it embeds
    ['64:ff9b::7f00:1', 'nat64'],
    ['64:ff9b::a00:1', 'nat64'],
    ['64:ff9b::808:808', 'nat64'],
    ['64:ff9b:1::a00:1', 'nat64'],
    // documentation, benchmarking, reserved and other non-global ranges (refusing more is allowed)
    ['192.0.2.1', 'reserved'],
    ['198.51.100.7', 'reserved'],
    ['203.0.113.9', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['198.19.255.254', 'reserved'],
    ['192.0.0.8', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['2001:2::1', 'reserved'],
    ['2002:7f00:1::1', 'reserved'],
    ['100::1', 'reserved'],
    ['fec0::1', 'reserved'],
    ['1::1', 'reserved'],
  ];

  for (const [address, cls] of refused) {
    test(`${address} is ${cls} and refused`, () => {
      assert.equal(classifyAddress(address).class, cls);
      assert.equal(isPublicAddress(address), false);
    });
  }

  test('IPv4-mapped and IPv4-compatible IPv6 are unmapped before any range test', () => {
    const cases: Array<[string, AddressClass, string]> = [
      ['::ffff:127.0.0.1', 'loopback', '127.0.0.1'],
      ['::ffff:7f00:1', 'loopback', '127.0.0.1'],
      ['::ffff:10.1.2.3', 'private', '10.1.2.3'],
      ['::ffff:169.254.169.254', 'linkLocal', '169.254.169.254'],
      ['::ffff:100.64.0.1', 'cgnat', '100.64.0.1'],
      ['::ffff:0.1.2.3', 'thisNetwork', '0.1.2.3'],
      ['::127.0.0.1', 'loopback', '127.0.0.1'],
      ['::7f00:1', 'loopback', '127.0.0.1'],
      ['::a01:203', 'private', '10.1.2.3'],
      ['[::ffff:192.168.0.1]', 'private', '192.168.0.1'],
    ];
    for (const [address, cls, unmapped] of cases) {
      const c = classifyAddress(address);
      assert.equal(c.class, cls, address);
      assert.equal(c.address, unmapped, address);
      assert.equal(c.family, 4, address);
    }
    // A mapped public address is judged as the public IPv4 address it is.
    assert.equal(classifyAddress('::ffff:8.8.8.8').class, 'public');
  });

  test('NAT64 reports the IPv4 address the translator would reach', () => {
    assert.equal(classifyAddress('64:ff9b::7f00:1').embeddedIPv4, '127.0.0.1');
    assert.equal(classifyAddress('64:ff9b::c0a8:101').embeddedIPv4, '192.168.1.1');
  });

  test('public unicast is allowed, including the edges next to refused ranges', () => {
    for (const address of [
      '8.8.8.8',
      '1.1.1.1',
      '93.184.216.34',
      '2606:4700::1111',
      '2a00:1450:4001:80b::200e',
      '100.128.0.1',
      '100.63.255.255',
      '172.32.0.1',
      '172.15.255.255',
      '11.0.0.1',
      '126.255.255.255',
      '128.0.0.1',
      '169.253.255.255',
      '223.255.255.255',
      '::ffff:1.1.1.1',
    ]) {
      assert.equal(classifyAddress(address).class, 'public', address);
      assert.equal(isPublicAddress(address), true, address);
    }
  });

  test('anything that is not an address literal is invalid, never public', () => {
    for (const address of ['', 'localhost', 'example.com', '127.1', '2130706433', '0x7f000001', '1.2.3.4.5', '::g', '256.1.1.1']) {
      assert.equal(classifyAddress(address).class, 'invalid', address);
      assert.equal(isPublicAddress(address), false, address);
    }
  });
});
