import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { encodeQueryValue, encodeSegment } from '../../src/domain/urlEncoding.js';

/** How a visitor's value is written into a destination (docs/links.md#prefixes-and-variables). */

describe('encodeSegment', () => {
  test('ASCII letters, digits and -_.~$&+:=@ stay literal', () => {
    const safe = 'AZaz09-_.~$&+:=@';
    assert.equal(encodeSegment(safe), safe);
  });

  const cases: Array<[string, string]> = [
    [' ', '%20'],
    ['/', '%2F'],
    [';', '%3B'],
    [',', '%2C'],
    ['?', '%3F'],
    ['#', '%23'],
    ['%', '%25'],
    ['\\', '%5C'],
    ['"', '%22'],
    ['<>', '%3C%3E'],
    ['\n', '%0A'],
    ['é', '%C3%A9'],
    ['日本', '%E6%97%A5%E6%9C%AC'],
    ['😀', '%F0%9F%98%80'],
    ['hello world', 'hello%20world'],
    ['a%2Fb', 'a%252Fb'],
  ];
  for (const [value, encoded] of cases) {
    test(`${JSON.stringify(value)} → ${encoded}`, () => assert.equal(encodeSegment(value), encoded));
  }

  test('property: decoding the encoded segment gives the value back, and the result is one path segment', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (v) => {
        const enc = encodeSegment(v);
        assert.equal(decodeURIComponent(enc), v);
        assert.match(enc, /^(?:[A-Za-z0-9\-_.~$&+:=@]|%[0-9A-F]{2})*$/);
      }),
    );
  });
});

describe('encodeQueryValue', () => {
  test('`c++` and `a&b=c` stay one value; unreserved characters stay literal', () => {
    assert.equal(encodeQueryValue('c++'), 'c%2B%2B');
    assert.equal(encodeQueryValue('a&b=c'), 'a%26b%3Dc');
    assert.equal(encodeQueryValue('AZaz09-_.~'), 'AZaz09-_.~');
    assert.equal(encodeQueryValue('café au lait'), 'caf%C3%A9%20au%20lait');
  });

  test('property: decoding gives the value back, and nothing in it ends or splits a query value', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (v) => {
        const enc = encodeQueryValue(v);
        assert.equal(decodeURIComponent(enc), v);
        assert.match(enc, /^(?:[A-Za-z0-9\-_.~]|%[0-9A-F]{2})*$/);
      }),
    );
  });
});
