import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  BROWSER_FAMILIES,
  BROWSER_TOKENS,
  OS_FAMILIES,
  OS_TOKENS,
  UA_MAX_RUNES,
  UserAgentClassifier,
  parseUserAgent,
  scanUserAgent,
  type BrowserFamily,
  type OsFamily,
} from '../../src/domain/userAgent.js';

/**
 * docs/analytics.md#user-agent-families: real UA strings per family, the
 * mandated orderings, the closed taxonomy and the 512-rune bound.
 */

type Fixture = [label: string, ua: string, browser: BrowserFamily, os: OsFamily];

const FIXTURES: Fixture[] = [
  // Firefox
  ['Firefox on Windows', 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:125.0) Gecko/20100101 Firefox/125.0', 'Firefox', 'Windows'],
  ['Firefox on macOS', 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14.4; rv:125.0) Gecko/20100101 Firefox/125.0', 'Firefox', 'macOS'],
  ['Firefox on Ubuntu', 'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0', 'Firefox', 'Linux'],
  ['Firefox on Android', 'Mozilla/5.0 (Android 14; Mobile; rv:125.0) Gecko/125.0 Firefox/125.0', 'Firefox', 'Android'],
  [
    'Firefox on iOS (FxiOS)',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/125.0 Mobile/15E148 Safari/605.1.15',
    'Firefox',
    'iOS',
  ],
  // Edge
  [
    'Edge on Windows',
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.2478.67',
    'Edge',
    'Windows',
  ],
  [
    'Edge on macOS',
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.2478.67',
    'Edge',
    'macOS',
  ],
  [
    'Edge on Android (EdgA)',
    'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36 EdgA/124.0.2478.64',
    'Edge',
    'Android',
  ],
  [
    'Edge on iOS (EdgiOS)',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 EdgiOS/124.2478.50 Mobile/15E148 Safari/605.1.15',
    'Edge',
    'iOS',
  ],
  [
    'legacy EdgeHTML',
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/70.0.3538.102 Safari/537.36 Edge/18.19041',
    'Edge',
    'Windows',
  ],
  // Chrome
  [
    'Chrome on Windows',
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
    'Chrome',
    'Windows',
  ],
  [
    'Chrome on macOS',
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
    'Chrome',
    'macOS',
  ],
  [
    'Chrome on Linux',
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
    'Chrome',
    'Linux',
  ],
  [
    'Chrome on Android',
    'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.82 Mobile Safari/537.36',
    'Chrome',
    'Android',
  ],
  [
    'Android WebView',
    'Mozilla/5.0 (Linux; Android 13; Pixel 7 Build/TQ3A.230901.001; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/124.0.6367.82 Mobile Safari/537.36',
    'Chrome',
    'Android',
  ],
  [
    'Chrome on iPhone (CriOS)',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/124.0.6367.88 Mobile/15E148 Safari/604.1',
    'Chrome',
    'iOS',
  ],
  [
    'Chrome on iPad (CriOS)',
    'Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/124.0.6367.88 Mobile/15E148 Safari/604.1',
    'Chrome',
    'iOS',
  ],
  [
    'Chrome on ChromeOS',
    'Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
    'Chrome',
    'Other',
  ],
  // Safari
  [
    'Safari on macOS',
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Safari/605.1.15',
    'Safari',
    'macOS',
  ],
  [
    'Safari on iPhone',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Mobile/15E148 Safari/604.1',
    'Safari',
    'iOS',
  ],
  [
    'Safari on iPad',
    'Mozilla/5.0 (iPad; CPU OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Mobile/15E148 Safari/604.1',
    'Safari',
    'iOS',
  ],
  [
    'Safari on iPod touch',
    'Mozilla/5.0 (iPod touch; CPU iPhone OS 15_8 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/15.6.6 Mobile/15E148 Safari/604.1',
    'Safari',
    'iOS',
  ],
  // iPadOS asks for desktop sites by default and then sends the macOS UA verbatim: indistinguishable.
  [
    'iPadOS desktop-mode Safari',
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
    'Safari',
    'macOS',
  ],
  // Bots and command-line clients
  ['curl', 'curl/8.5.0', 'Bot/CLI', 'Other'],
  ['wget', 'Wget/1.21.4', 'Bot/CLI', 'Other'],
  ['Googlebot', 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', 'Bot/CLI', 'Other'],
  [
    'Googlebot smartphone',
    'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.118 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    'Bot/CLI',
    'Android',
  ],
  [
    'bingbot',
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36',
    'Bot/CLI',
    'Other',
  ],
  ['Baiduspider', 'Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)', 'Bot/CLI', 'Other'],
  ['Slack unfurler', 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)', 'Bot/CLI', 'Other'],
  ['Facebook crawler', 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)', 'Bot/CLI', 'Other'],
  ['python-requests', 'python-requests/2.31.0', 'Bot/CLI', 'Other'],
  [
    'headless Chrome',
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/124.0.0.0 Safari/537.36',
    'Bot/CLI',
    'Linux',
  ],
  // Other browsers: Chromium-based ones carry Chrome/ but are not Chrome; the taxonomy is closed.
  [
    'Opera',
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 OPR/110.0.0.0',
    'Other',
    'Windows',
  ],
  [
    'Samsung Internet',
    'Mozilla/5.0 (Linux; Android 14; SAMSUNG SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 Chrome/121.0.0.0 Mobile Safari/537.36',
    'Other',
    'Android',
  ],
  [
    'Yandex Browser',
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.0.0 YaBrowser/24.4.0.0 Safari/537.36',
    'Other',
    'Windows',
  ],
  [
    'Vivaldi',
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Vivaldi/6.7.3329.21',
    'Other',
    'Linux',
  ],
  ['Internet Explorer 11', 'Mozilla/5.0 (Windows NT 10.0; WOW64; Trident/7.0; rv:11.0) like Gecko', 'Other', 'Windows'],
  [
    'Opera Mini (Presto)',
    'Opera/9.80 (J2ME/MIDP; Opera Mini/9.80 (S60; SymbOS; Opera Mobi/23.348; U; en) Presto/2.5.25 Version/10.54',
    'Other',
    'Other',
  ],
  [
    'Android stock browser',
    'Mozilla/5.0 (Linux; U; Android 4.0.3; ko-kr; LG-L160L Build/IML74K) AppleWebKit/534.30 (KHTML, like Gecko) Version/4.0 Mobile Safari/534.30',
    'Other',
    'Android',
  ],
  [
    'Windows Phone',
    'Mozilla/5.0 (Mobile; Windows Phone 8.1; Android 4.0; ARM; Trident/7.0; Touch; rv:11.0; IEMobile/11.0; NOKIA; Lumia 635) like iPhone OS 7_0_3 Mac OS X AppleWebKit/537 (KHTML, like Gecko) Mobile Safari/537',
    'Other',
    'Windows',
  ],
  ['FreeBSD Firefox', 'Mozilla/5.0 (X11; FreeBSD amd64; rv:125.0) Gecko/20100101 Firefox/125.0', 'Firefox', 'Other'],
  ['an app', 'MyTeamApp/3.2 (build 77)', 'Other', 'Other'],
];

describe('User-Agent parsing (docs/analytics.md)', () => {
  for (const [label, ua, browser, os] of FIXTURES) {
    test(`${label} → ${browser} / ${os}`, () => {
      assert.deepEqual(parseUserAgent(ua), { browser, os });
    });
  }

  test('the fixtures cover every family with at least three real strings', () => {
    const count = (pick: (f: Fixture) => string, name: string) => FIXTURES.filter((f) => pick(f) === name).length;
    for (const b of ['Firefox', 'Edge', 'Chrome', 'Safari', 'Bot/CLI', 'Other']) assert.ok(count((f) => f[2], b) >= 3, `browser ${b}`);
    for (const o of ['Windows', 'macOS', 'iOS', 'Android', 'Linux', 'Other']) assert.ok(count((f) => f[3], o) >= 3, `os ${o}`);
  });

  test('Edge before Chrome: a UA carrying both Chrome/ and Edg/ is Edge', () => {
    assert.equal(parseUserAgent('Mozilla/5.0 Chrome/124.0 Safari/537.36 Edg/124.0').browser, 'Edge');
    assert.equal(parseUserAgent('Mozilla/5.0 Chrome/124.0 Safari/537.36').browser, 'Chrome');
  });

  test('Chrome before Safari, iOS before macOS', () => {
    assert.equal(parseUserAgent('AppleWebKit/537.36 Chrome/124.0 Safari/537.36').browser, 'Chrome');
    assert.equal(parseUserAgent('(iPhone; CPU iPhone OS 17_0 like Mac OS X)').os, 'iOS');
    const order = (token: string) => OS_TOKENS.findIndex(([t]) => t === token);
    assert.ok(order('iphone') < order('mac os x'));
    const border = (token: string) => BROWSER_TOKENS.findIndex(([t]) => t === token);
    assert.ok(border('edg/') < border('chrome/') && border('chrome/') < border('safari/'));
  });

  test('matching is case-insensitive', () => {
    assert.deepEqual(parseUserAgent('MOZILLA/5.0 (WINDOWS NT 10.0) FIREFOX/125.0'), { browser: 'Firefox', os: 'Windows' });
    assert.deepEqual(parseUserAgent('CURL/8.0'), { browser: 'Bot/CLI', os: 'Other' });
  });

  test('empty or absent UA is Unknown; unmatched text is Other', () => {
    for (const ua of [null, undefined, '', '   ', '\t\r\n']) assert.deepEqual(parseUserAgent(ua), { browser: 'Unknown', os: 'Unknown' });
    assert.deepEqual(parseUserAgent('Totally-Unknown-Agent/1.0'), { browser: 'Other', os: 'Other' });
  });

  test('the token tables are lower-case and map only into the closed taxonomy', () => {
    for (const [token, family] of BROWSER_TOKENS) {
      assert.equal(token, token.toLowerCase());
      assert.ok((BROWSER_FAMILIES as readonly string[]).includes(family));
      assert.notEqual(family, 'Unknown');
    }
    for (const [token, family] of OS_TOKENS) {
      assert.equal(token, token.toLowerCase());
      assert.ok((OS_FAMILIES as readonly string[]).includes(family));
      assert.notEqual(family, 'Unknown');
    }
  });

  test('only the first 512 code points are read, without splitting a surrogate pair', () => {
    const pad = 'x'.repeat(UA_MAX_RUNES);
    assert.deepEqual(parseUserAgent(`${pad} Firefox/125.0 (Windows NT 10.0)`), { browser: 'Other', os: 'Other' });
    assert.deepEqual(parseUserAgent(`${'x'.repeat(UA_MAX_RUNES - 20)}Firefox/125 Windows`), { browser: 'Firefox', os: 'Windows' });
    // 511 astral characters (two UTF-16 units each) still leave room for one more code point, not for "curl".
    assert.deepEqual(parseUserAgent(`${'😀'.repeat(UA_MAX_RUNES - 1)}curl`), { browser: 'Other', os: 'Other' });
    assert.deepEqual(parseUserAgent(`${'😀'.repeat(UA_MAX_RUNES - 4)}curl`), { browser: 'Bot/CLI', os: 'Other' });
  });

  test('a hostile UA costs no more than any other bounded input', () => {
    const hostile = 'Edg/Chrome/Safari/iPhone Mac OS X '.repeat(100_000);
    const started = performance.now();
    for (let i = 0; i < 200; i++) parseUserAgent(hostile);
    const elapsed = performance.now() - started;
    // 200 parses of a 3.4 MB string: bounded work reads 512 runes each; unbounded work would take seconds.
    assert.ok(elapsed < 1_000, `took ${elapsed.toFixed(0)} ms`);
    assert.deepEqual(parseUserAgent(hostile), parseUserAgent(hostile.slice(0, UA_MAX_RUNES)));
    const adversarial = 'a'.repeat(UA_MAX_RUNES - 1) + 'bot';
    assert.equal(parseUserAgent(adversarial).browser, 'Other');
  });

  test('the memoising classifier agrees with the parser', () => {
    const c = new UserAgentClassifier(4);
    for (let round = 0; round < 3; round++) {
      for (const [, ua] of FIXTURES) assert.deepEqual(c.classify(ua), parseUserAgent(ua));
    }
    assert.deepEqual(c.classify(null), parseUserAgent(null));
    assert.deepEqual(c.classify('x'.repeat(5_000)), parseUserAgent('x'.repeat(5_000)));
  });

  test('fuzz: never throws, always a taxonomy value, and depends only on the first 512 code points', () => {
    const tokens = [...BROWSER_TOKENS, ...OS_TOKENS].map(([t]) => t);
    const ua = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 1_200 }),
      fc
        .array(
          fc.oneof(
            fc.constantFrom(...tokens).chain((t) => fc.mixedCase(fc.constant(t))),
            fc.string({ maxLength: 8 }),
          ),
          { maxLength: 200 },
        )
        .map((p) => p.join('')),
      fc
        .constantFrom(...FIXTURES.map((f) => f[1]))
        .chain((base) => fc.string({ unit: 'binary', maxLength: 600 }).map((tail) => base + tail)),
    );
    fc.assert(
      fc.property(ua, (s) => {
        const r = parseUserAgent(s);
        assert.ok((BROWSER_FAMILIES as readonly string[]).includes(r.browser));
        assert.ok((OS_FAMILIES as readonly string[]).includes(r.os));
        const cps = [...s];
        if (cps.length > UA_MAX_RUNES) assert.deepEqual(r, parseUserAgent(cps.slice(0, UA_MAX_RUNES).join('')));
      }),
      { numRuns: 2_000 },
    );
  });
});

/**
 * The table-order rule as the parser used to run it: bound, blank check, lower
 * case, then each row of each table tested with `includes` in order. The
 * single-pass parser must answer exactly this for every input.
 */
function byTableOrder(ua: string | null | undefined): { browser: BrowserFamily; os: OsFamily } {
  if (typeof ua !== 'string') return { browser: 'Unknown', os: 'Unknown' };
  const bounded = Array.from(ua).slice(0, UA_MAX_RUNES).join('');
  if ([...bounded].every((c) => c.charCodeAt(0) <= 0x20)) return { browser: 'Unknown', os: 'Unknown' };
  const lower = bounded.toLowerCase();
  return {
    browser: BROWSER_TOKENS.find(([token]) => lower.includes(token))?.[1] ?? 'Other',
    os: OS_TOKENS.find(([token]) => lower.includes(token))?.[1] ?? 'Other',
  };
}

/** How often the scan steps at each code unit index of `ua`. */
function stepsPerIndex(ua: string): Map<number, number> {
  const steps = new Map<number, number>();
  scanUserAgent(ua, (i) => steps.set(i, (steps.get(i) ?? 0) + 1));
  return steps;
}

/** 512 characters of `piece` repeated, cut mid-piece where it does not fit. */
const fill = (piece: string, length = UA_MAX_RUNES) => piece.repeat(Math.ceil(length / piece.length)).slice(0, length);

/** Hostile shapes: every token prefix repeated, the way a naive backtracking matcher would be made to restart at every position. */
const ADVERSARIAL: string[] = (() => {
  const pieces = new Set(['Mozilla/', 'Chrom', 'AppleWebKit/', 'Mozilla/5.0 (', 'Mac OS ', 'Edg', 'edgio', 'iPhon', 'Safari', 'x']);
  for (const [token] of [...BROWSER_TOKENS, ...OS_TOKENS]) {
    for (let end = 1; end <= token.length; end++) pieces.add(token.slice(0, end));
    pieces.add(token.toUpperCase().slice(0, -1));
  }
  return [...pieces].flatMap((piece) => [fill(piece), fill(piece, UA_MAX_RUNES - 8) + 'Firefox/', fill(piece) + 'curl/8']);
})();

describe('User-Agent parsing is one pass (docs/analytics.md#user-agent-families)', () => {
  test('every fixture gets the same browser and OS as testing the table rows in order', () => {
    for (const [label, ua, browser, os] of FIXTURES) {
      assert.deepEqual(byTableOrder(ua), { browser, os }, `${label}: the fixture states the table-order answer`);
      assert.deepEqual(parseUserAgent(ua), { browser, os }, label);
    }
  });

  test('adversarial 512-character inputs of repeated token prefixes get the table-order answer', () => {
    assert.ok(ADVERSARIAL.length > 300);
    for (const ua of ADVERSARIAL) assert.deepEqual(parseUserAgent(ua), byTableOrder(ua), JSON.stringify(ua.slice(0, 40)));
    // Spot checks a reader can follow: prefixes alone never match; a whole token at the end still does.
    assert.deepEqual(parseUserAgent(fill('Mozilla/')), { browser: 'Other', os: 'Other' });
    assert.deepEqual(parseUserAgent(fill('Chrom')), { browser: 'Other', os: 'Other' });
    assert.deepEqual(parseUserAgent(fill('AppleWebKit/')), { browser: 'Other', os: 'Other' });
    assert.deepEqual(parseUserAgent(fill('Chrom', UA_MAX_RUNES - 7) + 'Chrome/'), { browser: 'Chrome', os: 'Other' });
    assert.deepEqual(parseUserAgent(fill('Mac OS ', UA_MAX_RUNES - 1) + 'X'), { browser: 'Other', os: 'macOS' });
  });

  test('each character of an adversarial input is read by exactly one automaton step', () => {
    for (const ua of ADVERSARIAL) {
      const steps = stepsPerIndex(ua);
      const bounded = Math.min(ua.length, UA_MAX_RUNES);
      assert.equal(steps.size, bounded, JSON.stringify(ua.slice(0, 40)));
      for (let i = 0; i < bounded; i++) assert.equal(steps.get(i), 1, `index ${i} of ${JSON.stringify(ua.slice(0, 40))}`);
    }
  });

  test('the work depends on the length read, not on what the characters are', () => {
    const total = (ua: string) => [...stepsPerIndex(ua).values()].reduce((a, b) => a + b, 0);
    const bland = total('x'.repeat(UA_MAX_RUNES));
    assert.equal(bland, UA_MAX_RUNES);
    for (const ua of ADVERSARIAL.filter((u) => u.length === UA_MAX_RUNES)) assert.equal(total(ua), bland);
    for (const [, ua] of FIXTURES) assert.equal(total(ua), ua.length);
  });

  test('a huge input is read only up to the bound, counting a surrogate pair as one code point', () => {
    const hostile = 'Edg/Chrome/Safari/iPhone Mac OS X '.repeat(100_000);
    assert.deepEqual([...stepsPerIndex(hostile).keys()], [...Array(UA_MAX_RUNES).keys()]);
    const astral = '😀'.repeat(UA_MAX_RUNES * 4);
    const steps = stepsPerIndex(astral);
    assert.equal(steps.size, UA_MAX_RUNES * 2);
    assert.ok([...steps.values()].every((n) => n === 1));
    // A lone high surrogate is one code point of its own; the unit after it starts the next.
    const lone = '\ud83d'.repeat(UA_MAX_RUNES - 4) + 'curl' + 'x'.repeat(100);
    assert.equal(stepsPerIndex(lone).size, UA_MAX_RUNES);
    assert.deepEqual(parseUserAgent(lone), byTableOrder(lone));
    assert.deepEqual(parseUserAgent(lone), { browser: 'Bot/CLI', os: 'Other' });
    // So is a lone low surrogate: it does not pair with what came before it.
    const lows = '\ude00'.repeat(UA_MAX_RUNES) + 'curl';
    assert.equal(stepsPerIndex(lows).size, UA_MAX_RUNES);
    assert.deepEqual(parseUserAgent(lows), byTableOrder(lows));
    assert.deepEqual(parseUserAgent(lows), { browser: 'Other', os: 'Other' });
  });

  test('blank means only characters up to U+0020 within the bound', () => {
    assert.deepEqual(parseUserAgent(' '.repeat(UA_MAX_RUNES) + 'curl/8'), { browser: 'Unknown', os: 'Unknown' });
    assert.deepEqual(parseUserAgent('\u0000\u001f\u0020'), { browser: 'Unknown', os: 'Unknown' });
    assert.deepEqual(parseUserAgent('!'), { browser: 'Other', os: 'Other' });
    assert.deepEqual(parseUserAgent(' '.repeat(UA_MAX_RUNES - 1) + '!'), { browser: 'Other', os: 'Other' });
  });

  test('case folding matches toLowerCase for every character: only U+212A and U+0130 fold into ASCII', () => {
    const intoAscii: number[] = [];
    for (let cp = 0x80; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      if (/[\u0000-\u007f]/.test(String.fromCodePoint(cp).toLowerCase())) intoAscii.push(cp);
    }
    // If a Node upgrade changes this list, the parser's fold (scanUserAgent) must learn the new characters.
    assert.deepEqual(intoAscii, [0x130, 0x212a]);
    assert.deepEqual(parseUserAgent('O\u212AHTTP/4.12'), { browser: 'Bot/CLI', os: 'Other' });
    assert.deepEqual(parseUserAgent('O\u212AHTTP/4.12'), byTableOrder('O\u212AHTTP/4.12'));
    // "İ" lower-cases to "i" + U+0307: "\u0130PHONE" is not "iphone", and the scan steps twice there.
    assert.deepEqual(parseUserAgent('Mozilla/5.0 (\u0130PHONE; \u0130PAD)'), byTableOrder('Mozilla/5.0 (\u0130PHONE; \u0130PAD)'));
    assert.deepEqual(parseUserAgent('Mozilla/5.0 (\u0130PHONE)').os, 'Other');
    assert.equal(stepsPerIndex('\u0130').get(0), 2);
    // Every BMP unit, upper and lower case, in the middle of every token.
    for (let unit = 0; unit <= 0xffff; unit++) {
      const c = String.fromCharCode(unit);
      const ua = `Mozilla/5.0 (${c}indows; ${c}url; o${c}http; ${c}phone; linu${c}) Chrome${c}`;
      const got = parseUserAgent(ua);
      const want = byTableOrder(ua);
      if (got.browser !== want.browser || got.os !== want.os)
        assert.fail(`U+${unit.toString(16)}: ${JSON.stringify(got)} ≠ ${JSON.stringify(want)}`);
    }
  });

  test('fuzz: the single pass agrees with the table order on token soup and real strings', () => {
    const tokens = [...BROWSER_TOKENS, ...OS_TOKENS].map(([t]) => t);
    const piece = fc.oneof(
      fc.constantFrom(...tokens).chain((t) => fc.mixedCase(fc.constant(t))),
      fc.constantFrom(...tokens).chain((t) => fc.nat(t.length - 1).map((n) => t.slice(0, n))),
      fc.constantFrom('\u212a', '\u0130', 'K', '😀', '\ud83d', '\ude00', ' ', '!', '/'),
      fc.string({ unit: 'binary', maxLength: 6 }),
    );
    const ua = fc.oneof(
      fc.array(piece, { maxLength: 300 }).map((p) => p.join('')),
      fc.constantFrom(...FIXTURES.map((f) => f[1])).chain((base) => fc.array(piece, { maxLength: 100 }).map((p) => base + p.join(''))),
    );
    fc.assert(
      fc.property(ua, (s) => assert.deepEqual(parseUserAgent(s), byTableOrder(s))),
      { numRuns: 3_000 },
    );
  });
});
