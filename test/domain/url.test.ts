import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  fillKeywordTemplate,
  fillTemplate,
  fillTemplateSafely,
  forwardPathAndQuery,
  hasPlaceholders,
  isSafeSubstitution,
  KEYWORD_TEMPLATE,
  LINK_TEMPLATE,
  placeholderNames,
  templateHostError,
  validateDestination,
  validateKeywordTemplate,
} from '../../src/domain/url.js';

/** Destinations (docs/links.md#destinations-and-templates, docs/links.md#field-validation) and `$var` templates (docs/links.md#prefixes-and-variables). */

const SCHEME_ERROR = 'url must start with http:// or https://';
const HOST_ERROR = 'url must include a host (e.g. https://example.com)';

const refusedWith = (raw: string, message: string) =>
  assert.throws(() => validateDestination(raw), { name: 'AppError', code: 'INVALID_URL', field: 'url', message }, raw);

describe('validateDestination', () => {
  for (const raw of [
    'javascript:alert(1)',
    'JavaScript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    '//host.test/path',
    '/\\host.test/path',
    'bare.test/path',
    'ftp://files.test/x',
    'mailto:a@b.test',
    'https//x.test',
    '',
    '   ',
  ]) {
    test(`${JSON.stringify(raw)} is refused: not http(s)`, () => refusedWith(raw, SCHEME_ERROR));
  }

  // golink's relative destinations (docs/links.md#destinations-on-this-server): another link here.
  test('a path on this server is accepted as written', () => {
    for (const raw of ['/bare/path', '/meet', '/rel?a=1']) assert.equal(validateDestination(raw), raw);
    for (const raw of ['/a b', '/a\u0007']) refusedWith(raw, 'a destination on this server is a path such as /meet');
  });

  for (const raw of [
    'http://',
    'https://',
    'https:',
    'http:opaque',
    'https:/x.test',
    'http://user@',
    'https://:443',
    'https:///path',
    'https://\\evil.test/',
    'https://?q=1',
    'https://exa mple.com/',
    'https://exa<mple.com/',
    'http://[::1/',
    'https://e.test:99999/',
    'https://%zz/',
  ]) {
    test(`${JSON.stringify(raw)} is refused: no usable host`, () => refusedWith(raw, HOST_ERROR));
  }

  test('the scheme is compared case-insensitively and the URL is kept as written', () => {
    assert.equal(validateDestination('HTTPS://EXAMPLE.COM/Path'), 'HTTPS://EXAMPLE.COM/Path');
    assert.equal(validateDestination('HtTp://x.test'), 'HtTp://x.test');
  });

  test('surrounding whitespace is trimmed from the stored value', () => {
    assert.equal(validateDestination('  \thttps://x.test/a?b=c \n'), 'https://x.test/a?b=c');
  });

  for (const raw of [
    'https://jira.test',
    'http://127.0.0.1:8080/x',
    'https://[::1]/',
    'https://x.test/search?q=$term',
    'https://$team.example.com',
    'https://$team.example.com/$page',
    'https://$team-docs.example.com/',
    'https://$a.$b.example.com/',
    'https://user@$team.example.com:8443/x',
    'https://$team.bücher.example/',
    'https://e.test/$env/$env_id',
    'https://x.test/$Foo/$Foo', // `$Foo` is not a placeholder: names start with a lowercase letter
  ]) {
    test(`${JSON.stringify(raw)} is accepted`, () => assert.equal(validateDestination(raw), raw));
  }

  test('there is no maximum URL length', () => {
    const long = `https://x.test/${'a'.repeat(100_000)}`;
    assert.equal(validateDestination(long), long);
  });

  test('a repeated placeholder is refused naming it', () => {
    refusedWith('https://x.test/$foo/$foo', 'duplicate variable name in URL template: $foo');
    refusedWith('https://x.test/$a?q=$foo#$foo', 'duplicate variable name in URL template: $foo');
    refusedWith('https://$env.x.test/$env_id/$env', 'duplicate variable name in URL template: $env');
  });

  const HOST_END = "a variable in the url's host must be followed by the rest of the host name (e.g. https://$team.example.com/)";
  const USERINFO_PORT = "a variable may not stand in the url's user name, password or port";
  for (const [raw, message] of [
    ['https://example.com$p', HOST_END],
    ['https://example.com$p/x', HOST_END],
    ['https://$p/', HOST_END],
    ['https://$p', HOST_END],
    ['https://$a.example.$b/', HOST_END],
    ['https://$a./', HOST_END],
    ['https://$a.../', HOST_END],
    ['https://$a-x/', HOST_END],
    ['https://e.test$p?q=1', HOST_END],
    ['https://e.test$p#x', HOST_END],
    ['https://h.test:$port/x', USERINFO_PORT],
    ['https://$user@h.test/', USERINFO_PORT],
    ['https://user:$pw@h.test/', USERINFO_PORT],
    ['https://$a@$b.example.com/', USERINFO_PORT],
  ] as const) {
    test(`${JSON.stringify(raw)} is refused: a variable could change the host`, () => refusedWith(raw, message));
  }

  test('the host rule comes before the duplicate-variable check', () => {
    refusedWith('https://e.test$a/$a', HOST_END);
  });

  test('the scheme check comes before the placeholder check', () => {
    refusedWith('javascript:$a$a', SCHEME_ERROR);
  });
});

describe('templateHostError and validateKeywordTemplate (docs/links.md#placeholders-in-the-host)', () => {
  test('keyword templates follow the same host rule with {slug}', () => {
    for (const ok of [
      'https://{slug}.example.com/',
      'https://github.com/{slug}',
      'https://e.test/?q={slug}#{slug}',
      'HTTPS://{slug}.E.test',
    ]) {
      assert.equal(templateHostError(ok, KEYWORD_TEMPLATE), null, ok);
      assert.equal(validateKeywordTemplate(` ${ok} `), ok);
    }
    for (const [bad, message] of [
      ['https://{slug}/', "{slug} in the url's host must be followed by the rest of the host name (e.g. https://{slug}.example.com/)"],
      [
        'https://example.com{slug}',
        "{slug} in the url's host must be followed by the rest of the host name (e.g. https://{slug}.example.com/)",
      ],
      ['https://x.test:{slug}/', "{slug} may not stand in the url's user name, password or port"],
      ['https://{slug}@x.test/', "{slug} may not stand in the url's user name, password or port"],
      ['{slug}', 'url must start with http:// or https:// and a host'],
      ['https:///{slug}', 'url must start with http:// or https:// and a host'],
      ['//{slug}.example.com/', 'url must start with http:// or https:// and a host'],
    ] as const) {
      assert.equal(templateHostError(bad, KEYWORD_TEMPLATE), message, bad);
      assert.throws(() => validateKeywordTemplate(bad), { name: 'AppError', code: 'BAD_REQUEST', field: 'url_template', message }, bad);
    }
  });

  test('a keyword template without {slug} keeps its own message', () => {
    assert.throws(() => validateKeywordTemplate('https://{SLUG}.example.com/'), {
      message: 'URL template must contain {slug} placeholder.',
    });
  });
});

describe('placeholders', () => {
  test('names are distinct, in order of first appearance, and matched greedily', () => {
    assert.deepEqual(placeholderNames('https://e.test/$env/$env_id/$env'), ['$env', '$env_id']);
    assert.deepEqual(placeholderNames('https://e.test/?q=$query&page=$page'), ['$query', '$page']);
    assert.deepEqual(placeholderNames('https://e.test/$a1_b2x'), ['$a1_b2x']);
  });

  test('only `$` followed by a lowercase letter starts a placeholder', () => {
    assert.deepEqual(placeholderNames('https://e.test/$1/$_x/$X/$'), []);
    assert.equal(hasPlaceholders('https://e.test/$1/$X'), false);
    assert.equal(hasPlaceholders('https://e.test/$x'), true);
  });
});

describe('fillTemplate (docs/links.md#prefixes-and-variables acceptance examples)', () => {
  const cases: Array<[string, string[], string]> = [
    ['https://github.com/$username', ['joestump'], 'https://github.com/joestump'],
    ['https://e.test/?q=$query&page=$page', ['widgets', '3'], 'https://e.test/?q=widgets&page=3'],
    ['https://e.test/search?q=$term', ['hello world'], 'https://e.test/search?q=hello%20world'],
    ['https://x.test/browse/$ticket', ['PROJ-123'], 'https://x.test/browse/PROJ-123'],
    ['https://e.test/$env/$env_id', ['a', 'b'], 'https://e.test/a/b'],
    ['https://e.test/$a/$b', ['x', ''], 'https://e.test/x/'],
    ['https://e.test/$a/$a', ['x'], 'https://e.test/x/x'],
    ['https://e.test/$q', ['café/menu'], 'https://e.test/caf%C3%A9%2Fmenu'],
    // In a query a value is query-escaped: it stays one parameter, and `+` stays a plus, not a space.
    ['https://e.test/?q=$q', ['a&b=c'], 'https://e.test/?q=a%26b%3Dc'],
    ['https://e.test/search?q=$q', ['c++'], 'https://e.test/search?q=c%2B%2B'],
    ['https://e.test/$p?q=$q', ['a&b+c', 'a&b+c'], 'https://e.test/a&b+c?q=a%26b%2Bc'],
    ['https://e.test/$p?x=1#$f', ['a+b', 'c&d'], 'https://e.test/a+b?x=1#c&d'],
    ['https://e.test/#frag?q=$q', ['a&b'], 'https://e.test/#frag?q=a&b'],
  ];
  for (const [template, values, expected] of cases) {
    test(`${template} ← ${JSON.stringify(values)}`, () => assert.equal(fillTemplate(template, values), expected));
  }

  test('substituted values are never re-scanned: a value naming another placeholder stays literal', () => {
    assert.equal(fillTemplate('https://e.test/$a/$b', ['$b', 'x']), 'https://e.test/$b/x');
    assert.equal(fillTemplate('https://e.test/$a', ['$a$a']), 'https://e.test/$a$a');
  });

  test('substitution is positional by first appearance, not by name order', () => {
    assert.equal(fillTemplate('https://e.test/$zeta/$alpha/$zeta', ['1', '2']), 'https://e.test/1/2/1');
  });
});

describe('isSafeSubstitution', () => {
  const fixed = 'https://e.test/go/$a';

  for (const value of [
    'evil.test',
    '@evil.test',
    'x@evil.test',
    ':evil.test',
    '//evil.test',
    '/\\evil.test',
    '\\\\evil.test',
    '#@evil.test',
    '?@evil.test',
    '%2F%2Fevil.test',
    '%40evil.test',
    '..%2F..%2F@evil.test',
    'http://evil.test',
    '\r\nHost: evil.test',
  ]) {
    test(`a fixed-host template keeps its host for value ${JSON.stringify(value)}`, () => {
      const result = fillTemplate(fixed, [value]);
      assert.equal(new URL(result).host, 'e.test');
      assert.equal(isSafeSubstitution(fixed, result), true);
    });
  }

  test('a result on another host than a fixed-host template is refused, however it was built', () => {
    assert.equal(isSafeSubstitution(fixed, 'https://evil.test/go/x'), false);
    assert.equal(isSafeSubstitution(fixed, 'https://e.test@evil.test/go/x'), false);
    assert.equal(isSafeSubstitution(fixed, 'https://e.test.evil.test/go/x'), false);
    assert.equal(isSafeSubstitution(fixed, 'https://e.test:444/go/x'), false);
    assert.equal(isSafeSubstitution(fixed, 'javascript:alert(1)'), false);
    assert.equal(isSafeSubstitution(fixed, 'not a url'), false);
  });

  test('the host comparison ignores case, as hosts do', () => {
    assert.equal(isSafeSubstitution('https://E.Test/$a', 'https://e.test/x'), true);
  });

  const hostTemplate = 'https://$team.example.com/x';
  for (const value of [
    'evil.com/',
    'evil.com@',
    'evil.com:',
    'evil.com:80',
    'evil.com\\',
    'evil.com#',
    'evil.com?',
    'evil.com%2F',
    'evil.com%00',
    'evil.com／',
    'evil.com＠',
    'a/b',
    '',
  ]) {
    test(`a $team.example.com template never leaves .example.com for value ${JSON.stringify(value)}`, () => {
      const result = fillTemplate(hostTemplate, [value]);
      assert.equal(isSafeSubstitution(hostTemplate, result), false, result);
    });
  }

  for (const [value, host] of [
    ['eng', 'eng.example.com'],
    ['Eng', 'eng.example.com'],
    ['a.b', 'a.b.example.com'],
    ['evil.com', 'evil.com.example.com'],
    ['evil．com', 'evil.com.example.com'], // full-width dot maps to `.`, still under example.com
  ] as const) {
    test(`a $team.example.com template accepts ${JSON.stringify(value)} → ${host}`, () => {
      const result = fillTemplate(hostTemplate, [value]);
      assert.equal(isSafeSubstitution(hostTemplate, result), true);
      assert.equal(new URL(result).hostname, host);
    });
  }

  test('a host template refuses a result carrying credentials it did not have', () => {
    assert.equal(isSafeSubstitution(hostTemplate, 'https://evil.test@eng.example.com/x'), false);
  });

  test('a host template keeps its suffix when it also has a port', () => {
    const t = 'https://$team.example.com:8443/x';
    assert.equal(isSafeSubstitution(t, fillTemplate(t, ['eng'])), true);
    assert.equal(isSafeSubstitution(t, 'https://evil.test:8443/x'), false);
  });

  // Segment values are arbitrary decoded path segments; a value built from URL delimiters and
  // their look-alikes must not be able to move the redirect to another host.
  const hostile = fc.string({
    unit: fc.oneof(
      fc.constantFrom(
        '@',
        ':',
        '/',
        '\\',
        '#',
        '?',
        '%',
        '.',
        '[',
        ']',
        ' ',
        '\t',
        '\n',
        '\u0000',
        '．',
        '／',
        '＠',
        '＼',
        '%2F',
        '%40',
        'evil.test',
        '//',
      ),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
    ),
    maxLength: 20,
  });

  test('property: a fixed-host template always yields a parsable URL on the template host', () => {
    const templates = [
      'https://e.test/$a',
      'https://e.test/p?q=$a&r=$b',
      'https://e.test/#$a',
      'https://e.test:8443/$a/$b',
      'http://e.test/x/$a?y=$b#$a',
      'https://e.test/$a$b',
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...templates),
        fc.array(fc.oneof(hostile, fc.string({ unit: 'binary' })), { minLength: 2, maxLength: 2 }),
        (template, values) => {
          const result = fillTemplate(template, values);
          const parsed = new URL(result);
          assert.equal(parsed.host, new URL(template).host);
          assert.equal(parsed.username, '');
          assert.equal(isSafeSubstitution(template, result), true);
        },
      ),
      { numRuns: 500 },
    );
  });

  test('property: whatever the value, an accepted $team.example.com substitution lands under .example.com', () => {
    fc.assert(
      fc.property(hostile, (value) => {
        const result = fillTemplate(hostTemplate, [value]);
        if (!isSafeSubstitution(hostTemplate, result)) return;
        const u = new URL(result);
        assert.ok(u.hostname.endsWith('.example.com') && u.hostname.length > '.example.com'.length, u.hostname);
        assert.equal(u.username, '');
        assert.equal(u.protocol, 'https:');
      }),
      { numRuns: 500 },
    );
  });
});

describe('fillTemplateSafely and fillKeywordTemplate: no value changes the host (docs/links.md#placeholders-in-the-host)', () => {
  const linkHost = 'https://$team.example.com/x';
  const keywordHost = 'https://{slug}.example.com/';
  // Each value tries to end the host early, move it into the user name, add a port, or smuggle a
  // delimiter in escaped, look-alike or invisible form.
  const hostile = [
    'evil.com/',
    'evil.com#',
    'evil.com?',
    'a@evil.com',
    'evil.com:80',
    '%2F',
    'evil.com%2F',
    '%40',
    '%40evil.com',
    '%2540evil.com',
    'evil.com\\',
    'evil.com\t',
    'evil.com\n',
    'evil com',
    'evil.com／',
    'evil.com＠',
    'a.example.com/',
    'a.example.com#',
    'a.example.com?x=',
    '',
  ];
  for (const value of hostile) {
    test(`a $team.example.com link template refuses ${JSON.stringify(value)}`, () => {
      assert.equal(fillTemplateSafely(linkHost, [value]), null);
    });
    test(`a {slug}.example.com keyword template refuses ${JSON.stringify(value)}`, () => {
      assert.equal(fillKeywordTemplate(keywordHost, value), null);
    });
  }

  test('the finding: /hk/evil.com/ no longer sends a {slug}.example.com keyword to evil.com', () => {
    assert.equal(fillKeywordTemplate(keywordHost, 'evil.com/'), null);
    // The result check alone would pass this one (its host is a.example.com): the value check refuses it.
    assert.equal(isSafeSubstitution(keywordHost, 'https://a.example.com#.example.com/', KEYWORD_TEMPLATE), true);
    assert.equal(fillKeywordTemplate(keywordHost, 'a.example.com#'), null);
  });

  for (const [value, host] of [
    ['eng', 'eng.example.com'],
    ['Eng', 'eng.example.com'],
    ['a.b', 'a.b.example.com'],
    ['evil.com', 'evil.com.example.com'],
    ['evil\u3002com', 'evil.com.example.com'],
    ['evil\uFF0Ecom', 'evil.com.example.com'],
    ['bücher', 'xn--bcher-kva.example.com'],
  ] as const) {
    test(`a host value ${JSON.stringify(value)} only adds labels in front of .example.com → ${host}`, () => {
      const link = fillTemplateSafely(linkHost, [value]);
      assert.notEqual(link, null);
      assert.equal(new URL(link!).hostname, host);
      const keyword = fillKeywordTemplate(keywordHost, value);
      assert.notEqual(keyword, null);
      assert.equal(new URL(keyword!).hostname, host);
    });
  }

  test('the port and user name of a host template stay as written', () => {
    const t = 'https://user@$team.example.com:8443/x';
    const u = new URL(fillTemplateSafely(t, ['eng'])!);
    assert.deepEqual([u.username, u.hostname, u.port], ['user', 'eng.example.com', '8443']);
    assert.equal(isSafeSubstitution(t, 'https://user@eng.example.com:8444/x'), false);
    assert.equal(isSafeSubstitution(t, 'https://other@eng.example.com:8443/x'), false);
  });

  // Stored before the write-time rule: such a template never redirects, whatever the value.
  for (const template of ['https://example.com$p', 'https://$p/', 'https://h.test:$port/x', 'https://$u@h.test/']) {
    for (const value of ['.evil.com', '\uFF0Eevil.com', '\u3002evil.com', '@evil.com', '', 'x', '8080']) {
      test(`a legacy link template ${template} refuses ${JSON.stringify(value)}`, () => {
        assert.equal(fillTemplateSafely(template, [value]), null);
        assert.equal(isSafeSubstitution(template, fillTemplate(template, [value])), false);
      });
    }
  }

  test('the finding: /slug/.evil.com no longer sends https://example.com$p to example.com.evil.com', () => {
    assert.equal(fillTemplate('https://example.com$p', ['.evil.com']), 'https://example.com.evil.com');
    assert.equal(isSafeSubstitution('https://example.com$p', 'https://example.com.evil.com'), false);
  });

  for (const template of ['https://example.com{slug}', 'https://{slug}/', 'https://x.test:{slug}/', 'https:///{slug}', '{slug}']) {
    for (const value of ['.evil.com', 'evil.com', 'https://evil.com', '80']) {
      test(`a legacy keyword template ${template} refuses ${JSON.stringify(value)}`, () => {
        assert.equal(fillKeywordTemplate(template, value), null);
      });
    }
  }

  test('keyword values outside the host are substituted as received, as before', () => {
    assert.equal(fillKeywordTemplate('https://github.com/{slug}', 'a/b%20c'), 'https://github.com/a/b%20c');
    assert.equal(fillKeywordTemplate('https://e.test/search?q={slug}&r={slug}', 'x?y'), 'https://e.test/search?q=x?y&r=x?y');
    assert.equal(fillKeywordTemplate('https://e.test/{slug}', '//evil.test'), 'https://e.test///evil.test');
    assert.equal(fillKeywordTemplate('https://e.test/{slug}', '@evil.test'), 'https://e.test/@evil.test');
  });

  test('link values outside the host are encoded as before', () => {
    assert.equal(fillTemplateSafely('https://e.test/search?q=$term', ['hello world']), 'https://e.test/search?q=hello%20world');
    assert.equal(fillTemplateSafely('https://$team.example.com/$page', ['eng', 'a/b']), 'https://eng.example.com/a%2Fb');
  });

  const hostileUnit = fc.oneof(
    fc.constantFrom(
      '@',
      ':',
      '/',
      '\\',
      '#',
      '?',
      '%',
      '.',
      '[',
      ']',
      ' ',
      '\t',
      '\n',
      '\u0000',
      '．',
      '。',
      '／',
      '＠',
      '%2F',
      '%40',
      '%3A',
      'evil.com',
      '//',
    ),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  );
  test('property: whatever the value, an accepted host substitution keeps scheme, user, port and lands under .example.com', () => {
    const templates = ['https://$team.example.com/x', 'https://user@$a.example.com:8443/?q=$b'];
    fc.assert(
      fc.property(fc.array(fc.string({ unit: hostileUnit, maxLength: 12 }), { minLength: 2, maxLength: 2 }), ([a, b]) => {
        const results = [
          ...templates.map((t) => fillTemplateSafely(t, [a!, b!])),
          fillKeywordTemplate('https://{slug}.example.com:8443/', a!),
        ];
        for (const result of results) {
          if (result === null) continue;
          const u = new URL(result);
          assert.ok(u.hostname.endsWith('.example.com') && u.hostname.length > '.example.com'.length, u.hostname);
          assert.equal(u.protocol, 'https:');
          assert.ok(u.username === '' || u.username === 'user', u.username);
          assert.equal(u.password, '');
          assert.ok(u.port === '' || u.port === '8443', u.port);
        }
      }),
      { numRuns: 1000 },
    );
  });

  test('property: a template with no placeholder in its authority keeps that authority for any value, link or keyword', () => {
    // These results are not parsed when they are made: the literal delimiter that ends the
    // authority must be enough. Each is checked here with a real parse and the full rule.
    const fixedLink = ['https://e.test/go/$a/$b', 'https://u:p@e.test:8443?q=$a#$b', 'https://e.test#$a', 'http://E.Test\\$a/$b'];
    const fixedKeyword = [
      'https://e.test/{slug}',
      'https://u@e.test:8443?q={slug}&r={slug}',
      'https://e.test#{slug}',
      'https://e.test\\{slug}',
    ];
    fc.assert(
      fc.property(fc.array(fc.string({ unit: hostileUnit, maxLength: 12 }), { minLength: 2, maxLength: 2 }), ([a, b]) => {
        const filled = [
          ...fixedLink.map((t) => [t, fillTemplateSafely(t, [a!, b!]), LINK_TEMPLATE] as const),
          ...fixedKeyword.map((t) => [t, fillKeywordTemplate(t, a!), KEYWORD_TEMPLATE] as const),
        ];
        for (const [template, result, syntax] of filled) {
          assert.ok(result !== null, `${template} refused ${JSON.stringify(a)}`);
          const got = new URL(result);
          const want = new URL(template.replace(syntax.pattern, 'x'));
          assert.deepEqual([got.protocol, got.username, got.password, got.host], [want.protocol, want.username, want.password, want.host]);
          assert.equal(isSafeSubstitution(template, result, syntax), true);
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe('forwardPathAndQuery (docs/links.md#path-and-query-forwarding)', () => {
  test('segments follow the destination path; the query follows its own; the fragment stays last', () => {
    assert.equal(
      forwardPathAndQuery('https://d.test/base?src=go#top', ['a', 'b c'], new URLSearchParams('x=1')),
      'https://d.test/base/a/b%20c?src=go&x=1#top',
    );
    assert.equal(forwardPathAndQuery('https://d.test/base/', ['a'], null), 'https://d.test/base/a');
    assert.equal(forwardPathAndQuery('https://d.test', ['a', ''], null), 'https://d.test/a/', 'a trailing slash is kept');
    assert.equal(forwardPathAndQuery('https://d.test/?a=1', [], new URLSearchParams('a=2')), 'https://d.test/?a=1&a=2', 'both kept');
    assert.equal(forwardPathAndQuery('https://d.test/p', [], new URLSearchParams('')), 'https://d.test/p');
  });

  test('adversarial values never leave the destination’s host', () => {
    const hostile: string[][] = [
      ['/evil.com'],
      ['', 'evil.com'],
      ['@evil.com'],
      ['\\evil.com'],
      ['\\\\evil.com'],
      ['..%2F..%2Fevil.com'],
      ['../../evil.com'],
      ['%2F%2Fevil.com'],
      ['a', '..', '..'],
      ['?x=1#', 'evil.com'],
      ['evil.com:443@x'],
      ['／evil.com'],
      ['\u0000evil'],
      ['https://evil.com'],
    ];
    for (const base of ['https://d.test', 'https://d.test/', 'https://user@d.test:8443/base', 'http://d.test?q=1']) {
      for (const segments of hostile) {
        const out = forwardPathAndQuery(base, segments, new URLSearchParams('@=evil.com&next=//evil.com'));
        if (out === null) continue;
        const parsed = new URL(out);
        const original = new URL(base);
        assert.equal(parsed.host, original.host, `${base} + ${JSON.stringify(segments)} → ${out}`);
        assert.equal(parsed.username, original.username);
        assert.equal(parsed.protocol, original.protocol);
        assert.ok(!/[\\]/.test(out), `no raw backslash: ${out}`);
        assert.equal(new URL(out, 'https://other.test/').host, original.host, 'absolute, whatever it is resolved against');
      }
    }
    assert.equal(forwardPathAndQuery('https://d.test/a/b', ['..'], null), null, 'a dot segment is refused, not walked');
    assert.equal(forwardPathAndQuery('https://d.test/a/b', ['.'], null), null);
    assert.equal(
      forwardPathAndQuery('https://d.test/a', ['a/b'], null),
      'https://d.test/a/a%2Fb',
      'an encoded slash stays inside its segment',
    );
  });
});
