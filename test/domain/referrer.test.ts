import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DIRECT_UNKNOWN, referrerHost, referrerLabel } from '../../src/domain/referrer.js';

describe('referrer hosts', () => {
  test('host only, lower-case; empty or unparseable is Direct / unknown', () => {
    assert.equal(referrerHost('https://News.YCombinator.com/item?id=1#x'), 'news.ycombinator.com');
    assert.equal(referrerHost('http://a.example:8080/x'), 'a.example:8080');
    assert.equal(referrerHost('https://a.example:443/x'), 'a.example');
    assert.equal(referrerHost('https://bücher.example/'), 'xn--bcher-kva.example');
    assert.equal(referrerHost('android-app://com.Google.android.gm/'), 'com.google.android.gm');
    for (const v of [
      null,
      '',
      'not a url',
      '/relative/path',
      'mailto:a@b.c',
      'file:///etc/passwd',
      `https://${'a'.repeat(300)}.example/`,
    ]) {
      assert.equal(referrerHost(v), null, String(v));
      assert.equal(referrerLabel(v), DIRECT_UNKNOWN);
    }
  });
});
