import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  expandGolinkTemplate,
  goFormat,
  GolinkTemplateError,
  OUTPUT_MAX,
  parseGolinkTemplate,
  type GolinkEnv,
} from '../../src/domain/golinkTemplate.js';

/**
 * golink's template language (docs/links.md#golink-templates). The cases of the first block
 * are tailscale/golink's own `TestExpandLink` (golink_test.go) for every destination with a
 * template; its plain-URL and query cases are forwarding, checked where the resolver runs
 * (test/http/golinkImport.test.ts).
 */

const env = (over: Partial<GolinkEnv> = {}): GolinkEnv => ({ path: '', user: null, now: new Date(0), ...over });
const expand = (long: string, over: Partial<GolinkEnv> = {}) => expandGolinkTemplate(long, env(over));

describe("golink's TestExpandLink", () => {
  const cases: Array<{ name: string; long: string; env?: Partial<GolinkEnv>; want: string | 'error' | 'login' }> = [
    {
      name: 'var-expansions-time',
      long: 'https://roamresearch.com/#/app/ts-corp/page/{{.Now.Format "01-02-2006"}}',
      env: { now: new Date(Date.UTC(2022, 5, 2, 1, 2, 3, 0)) },
      want: 'https://roamresearch.com/#/app/ts-corp/page/06-02-2022',
    },
    {
      name: 'var-expansions-user',
      long: 'http://host.com/{{.User}}',
      env: { user: 'foo@example.com' },
      want: 'http://host.com/foo@example.com',
    },
    // golink answers 401 for a link that needs a user nobody is: here the visitor signs in.
    { name: 'var-expansions-no-user', long: 'http://host.com/{{.User}}', want: 'login' },
    { name: 'unknown-field', long: 'http://host.com/{{.Foo}}', want: 'error' },
    {
      name: 'template-no-path',
      long: 'https://calendar.google.com/{{with .Path}}calendar/embed?mode=week&src={{.}}@tailscale.com{{end}}',
      want: 'https://calendar.google.com/',
    },
    {
      name: 'template-with-path',
      long: 'https://calendar.google.com/{{with .Path}}calendar/embed?mode=week&src={{.}}@tailscale.com{{end}}',
      env: { path: 'amelie' },
      want: 'https://calendar.google.com/calendar/embed?mode=week&src=amelie@tailscale.com',
    },
    {
      name: 'template-with-pathescape-func',
      long: 'http://host.com/{{PathEscape .Path}}',
      env: { path: 'a/b+c' },
      want: 'http://host.com/a%2Fb+c',
    },
    {
      name: 'template-with-queryescape-func',
      long: 'http://host.com/{{QueryEscape .Path}}',
      env: { path: 'a/b+c' },
      want: 'http://host.com/a%2Fb%2Bc',
    },
    {
      name: 'template-with-trimprefix-func',
      long: 'http://host.com/{{TrimPrefix .Path "BUG-"}}',
      env: { path: 'BUG-123' },
      want: 'http://host.com/123',
    },
    {
      name: 'template-with-trimsuffix-func',
      long: 'http://host.com/{{TrimSuffix .Path "/"}}',
      env: { path: 'a/' },
      want: 'http://host.com/a',
    },
    {
      name: 'template-with-tolower-func',
      long: 'http://host.com/{{ToLower .Path}}',
      env: { path: 'BUG-123' },
      want: 'http://host.com/bug-123',
    },
    {
      name: 'template-with-toupper-func',
      long: 'http://host.com/{{ToUpper .Path}}',
      env: { path: 'bug-123' },
      want: 'http://host.com/BUG-123',
    },
    {
      name: 'template-with-match-func',
      long: 'http://host.com/{{if Match "\\\\d+" .Path}}id/{{.Path}}{{else}}search/{{.Path}}{{end}}',
      env: { path: '123' },
      want: 'http://host.com/id/123',
    },
    {
      name: 'template-with-match-func2',
      long: 'http://host.com/{{if Match "\\\\d+" .Path}}id/{{.Path}}{{else}}search/{{.Path}}{{end}}',
      env: { path: 'query' },
      want: 'http://host.com/search/query',
    },
    {
      name: 'template-and-combined-query-string',
      long: '/rel{{with .Path}}/{{.}}{{end}}?a=1',
      env: { path: 'path' },
      want: '/rel/path?a=1',
    },
    // TestServeGo's user link: a destination on the go server itself.
    { name: 'serve-go user link', long: '/who/{{.User}}', env: { user: 'foo@example.com' }, want: '/who/foo@example.com' },
    { name: 'serve-go unknown variable', long: '/who/{{.Invalid}}', want: 'error' },
    // TestResolveLink's cs link.
    { name: 'resolve-link cs', long: 'http://codesearch/{{with .Path}}search?q={{.}}{{end}}', want: 'http://codesearch/' },
    {
      name: 'resolve-link cs/term',
      long: 'http://codesearch/{{with .Path}}search?q={{.}}{{end}}',
      env: { path: 'term' },
      want: 'http://codesearch/search?q=term',
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const got = expand(c.long, c.env);
      if (c.want === 'error') assert.equal(got.kind, 'error');
      else if (c.want === 'login') assert.deepEqual(got, { kind: 'login' });
      else assert.deepEqual(got, { kind: 'destination', url: c.want });
    });
  }
});

describe('the examples of golink’s help page (tmpl/help.html)', () => {
  test('{{.Path}} takes the whole rest of the path, several segments included', () => {
    assert.deepEqual(expand('http://go/search?q={{.Path}}', { path: 'a/b/c' }), { kind: 'destination', url: 'http://go/search?q=a/b/c' });
  });
  test('{{.User}} with TrimSuffix', () => {
    assert.deepEqual(expand('https://github.com/{{TrimSuffix .User "@example.com"}}', { user: 'amelie@example.com' }), {
      kind: 'destination',
      url: 'https://github.com/amelie',
    });
  });
  test('{{.Now.Format}} with Go layouts', () => {
    const at = new Date(Date.UTC(2022, 5, 2, 13, 4, 5, 120));
    assert.equal(goFormat(at, '2006-01-02'), '2022-06-02');
    assert.equal(goFormat(at, 'Jan 2, 2006 3:04PM'), 'Jun 2, 2022 1:04PM');
    assert.equal(goFormat(at, 'Monday January _2 15:04:05.000 MST'), 'Thursday June  2 13:04:05.120 UTC');
    assert.equal(goFormat(at, '2006-01-02T15:04:05Z07:00'), '2022-06-02T13:04:05Z');
    assert.equal(goFormat(at, '06/1/2 -0700'), '22/6/2 +0000');
  });
  test('pipes, parentheses, else if, trimming and comments', () => {
    assert.deepEqual(expand('https://a.test/{{.Path | ToLower | PathEscape}}', { path: 'A B' }), {
      kind: 'destination',
      url: 'https://a.test/a%20b',
    });
    assert.deepEqual(expand('https://a.test/{{PathEscape (ToUpper .Path)}}', { path: 'x/y' }), {
      kind: 'destination',
      url: 'https://a.test/X%2FY',
    });
    const chain = 'https://a.test/{{if eq .Path "a"}}A{{else if Match "^b" .Path}}B{{else}}C{{end}}';
    assert.deepEqual(expand(chain, { path: 'a' }), { kind: 'destination', url: 'https://a.test/A' });
    assert.deepEqual(expand(chain, { path: 'bee' }), { kind: 'destination', url: 'https://a.test/B' });
    assert.deepEqual(expand(chain, { path: 'z' }), { kind: 'destination', url: 'https://a.test/C' });
    assert.deepEqual(expand('https://a.test/{{- /* note */ -}} {{- .Path -}} ', { path: 'p' }), {
      kind: 'destination',
      url: 'https://a.test/p',
    });
    assert.deepEqual(expand('https://a.test/{{if not .Path}}home{{end}}'), { kind: 'destination', url: 'https://a.test/home' });
  });
});

describe('the scheme and host are the author’s', () => {
  for (const [long, path] of [
    ['{{.Path}}', 'https://evil.test/'],
    ['https://{{.Path}}', 'evil.test'],
    ['https://a.test{{.Path}}', '.evil.test'],
    ['https://a.test{{.Path}}', '@evil.test'],
    ['https://a.test{{.Path}}', ':8080'],
    ['/{{.Path}}', '/evil.test'],
    ['/{{.Path}}', '\\evil.test'],
    ['{{.Path}}', 'javascript:alert(1)'],
    ['{{with .Path}}{{.}}{{else}}https://a.test/{{end}}', '//evil.test'],
  ] as const) {
    test(`${long} with ${JSON.stringify(path)} is refused`, () => {
      assert.equal(expand(long, { path }).kind, 'error');
    });
  }
  test('a value may add to the host in front of a literal domain, as in help.html’s varz example', () => {
    const varz = 'http://{{if .Path}}{{.Path}}{{else}}host{{end}}.example/debug/varz';
    assert.deepEqual(expand(varz, { path: 'db1' }), { kind: 'destination', url: 'http://db1.example/debug/varz' });
    assert.deepEqual(expand(varz), { kind: 'destination', url: 'http://host.example/debug/varz' });
    for (const path of ['evil.test/', 'a@evil.test', 'a:1', 'a%2f', 'evil.test#']) assert.equal(expand(varz, { path }).kind, 'error', path);
  });
  test('a value after the authority is a path, and an authored choice of hosts is the author’s', () => {
    assert.deepEqual(expand('https://a.test{{.Path}}', { path: '/x' }), { kind: 'destination', url: 'https://a.test/x' });
    const two = '{{if .Path}}https://b.test/{{.Path}}{{else}}https://a.test/{{end}}';
    assert.deepEqual(expand(two, { path: 'q' }), { kind: 'destination', url: 'https://b.test/q' });
    assert.deepEqual(expand(two), { kind: 'destination', url: 'https://a.test/' });
  });
  test('an authored destination that is no http(s) URL nor a path here is refused', () => {
    assert.equal(expand('javascript:alert({{.Path}})', { path: '1' }).kind, 'error');
  });
});

describe('what a template may not do', () => {
  for (const [long, why] of [
    ['https://a.test/{{range .Path}}x{{end}}', /range/],
    ['https://a.test/{{template "x"}}', /template/],
    ['https://a.test/{{printf "%s" .Path}}', /printf/],
    ['https://a.test/{{$x := .Path}}', /variables/],
    ['https://a.test/{{if .Path}}x', /without \{\{end\}\}/],
    ['https://a.test/{{end}}', /unexpected/],
    ['https://a.test/{{.Path', /unclosed/],
    ['https://a.test/{{ToLower}}', /wrong number/],
    ['https://a.test/{{Match .Path .Path}}', /literal pattern/],
    ['https://a.test/{{if Match "(a+)+$" .Path}}x{{end}}', /repeat/],
    ['https://a.test/{{if Match "(a|aa)*$" .Path}}x{{end}}', /repeat/],
    ['https://a.test/{{if Match "(a)\\\\1" .Path}}x{{end}}', /backreferences/],
  ] as const) {
    test(`${long} is refused when read`, () => {
      assert.throws(
        () => parseGolinkTemplate(long),
        (e: unknown) => e instanceof GolinkTemplateError && why.test(e.message),
      );
    });
  }
  test('the output is bounded', () => {
    const got = expand('https://a.test/{{.Path}}{{.Path}}', { path: 'x'.repeat(OUTPUT_MAX) });
    assert.equal(got.kind, 'error');
  });
  test('a long subject never makes Match slow: it is not matched past its bound', () => {
    const started = performance.now();
    const got = expand('https://a.test/{{if Match "^a*b$" .Path}}y{{else}}n{{end}}', { path: 'a'.repeat(100_000) });
    assert.deepEqual(got, { kind: 'destination', url: 'https://a.test/n' });
    assert.ok(performance.now() - started < 200);
  });
});
