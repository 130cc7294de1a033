import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  directHostRedirect,
  encodeSearchSlug,
  parseKeywordQuery,
  searchQueryOf,
  searchRedirect,
} from '../../integrations/extension/lib/navigation.js';
import {
  MAX_OMNIBOX_SUGGESTIONS,
  createDebouncer,
  omniboxSuggestions,
  omniboxTarget,
  xmlEscape,
} from '../../integrations/extension/lib/omnibox.js';
import {
  addTag,
  createErrorMessage,
  createLinkBody,
  existingLinkRows,
  normalizeTag,
  prefillSlug,
  shortcutRows,
  suggestionRows,
  templateShortcuts,
} from '../../integrations/extension/lib/popup-logic.js';
import { hostsCoveredBy, redirectRules } from '../../integrations/extension/lib/rules.js';
import {
  DEFAULT_SETTINGS,
  parseServerInput,
  serverBase,
  serverKeyword,
  withDefaults,
  type Settings,
} from '../../integrations/extension/lib/settings.js';

/**
 * The extension's rules, exercised on the same modules the extension loads.
 * The browser test (browser.test.ts) checks the wiring in Chromium.
 */

const settings = (over: Partial<Settings> = {}): Settings => ({
  baseURL: 'https://go.example.com',
  apiKey: '',
  keywords: ['go.example.com', 'go', 'wtf', 'gh'],
  shortKeyword: '',
  ...over,
});

const google = (q: string, host = 'www.google.com') => new URL(`https://${host}/search?q=${encodeURIComponent(q)}`);

describe('stored settings', () => {
  test('missing or mistyped values fall back to the documented defaults', () => {
    assert.deepEqual(withDefaults(undefined), { baseURL: 'http://go', apiKey: '', keywords: ['go'], shortKeyword: '' });
    assert.deepEqual(withDefaults({ baseURL: 7, apiKey: null, keywords: 'go', shortKeyword: {} }), {
      ...DEFAULT_SETTINGS,
      keywords: ['go'],
    });
    assert.deepEqual(withDefaults({ keywords: ['gh', 3, '', 'wtf'] }).keywords, ['gh', 'wtf']);
  });

  test('the server keyword is the announced short keyword, lowercased, else the first host label', () => {
    assert.equal(serverKeyword(settings()), 'go');
    assert.equal(serverKeyword(settings({ shortKeyword: 'WTF' })), 'wtf');
    assert.equal(serverKeyword(settings({ baseURL: 'http://links.corp.example:8080' })), 'links');
    assert.equal(serverKeyword(settings({ baseURL: 'http://go' })), 'go');
  });

  test('the options page keeps only the origin of an http(s) URL', () => {
    assert.deepEqual(parseServerInput('  https://go.example.com/dashboard?x=1#y '), { ok: true, origin: 'https://go.example.com' });
    assert.deepEqual(parseServerInput('http://go:8080/'), { ok: true, origin: 'http://go:8080' });
    assert.deepEqual(parseServerInput('https://user:secret@go.example.com/'), { ok: true, origin: 'https://go.example.com' });
    for (const bad of [
      '',
      'go.example.com',
      'ftp://go.example.com',
      'javascript:alert(1)',
      'file:///etc/passwd',
      'http://',
      'data:text/html,x',
    ]) {
      const r = parseServerInput(bad);
      assert.equal(r.ok, false, bad);
      if (!r.ok) assert.match(r.error, /http:\/\/ or https:\/\//);
    }
  });

  test('links are built without a doubled slash even from a hand-edited base', () => {
    assert.equal(serverBase({ baseURL: 'https://go.example.com///' }), 'https://go.example.com');
  });
});

describe('search interception', () => {
  test('acceptance: gh/joe-links and go/project-docs typed as searches open the server', () => {
    const s = settings({ keywords: ['go', 'wtf', 'gh'] });
    assert.equal(searchRedirect(google('gh/joe-links'), s), 'https://go.example.com/gh/joe-links');
    assert.equal(searchRedirect(google('go/project-docs'), s), 'https://go.example.com/project-docs');
  });

  test('every listed search engine is recognised, on its own path and parameter only', () => {
    const engines: Array<[string, string]> = [
      ['https://www.google.com/search?q=go%2Fjira', 'go/jira'],
      ['https://google.com/search?q=go%2Fjira', 'go/jira'],
      ['https://www.google.co.uk/search?q=go%2Fjira', 'go/jira'],
      ['https://www.google.com.au/search?q=go%2Fjira', 'go/jira'],
      ['https://google.de/search?q=go%2Fjira', 'go/jira'],
      ['https://www.bing.com/search?q=go%2Fjira&form=QBLH', 'go/jira'],
      ['https://bing.com/search?q=go%2Fjira', 'go/jira'],
      ['https://duckduckgo.com/?q=go%2Fjira&ia=web', 'go/jira'],
      ['https://start.duckduckgo.com/?q=go%2Fjira', 'go/jira'],
      ['https://search.yahoo.com/search?p=go%2Fjira', 'go/jira'],
      ['https://search.yahoo.com/search;_ylt=abc?p=go%2Fjira', 'go/jira'],
      ['https://search.brave.com/search?q=go%2Fjira', 'go/jira'],
      ['https://www.ecosia.org/search?q=go%2Fjira', 'go/jira'],
      ['https://www.qwant.com/?q=go%2Fjira', 'go/jira'],
      ['https://kagi.com/search?q=go%2Fjira', 'go/jira'],
      ['https://www.perplexity.ai/search?q=go%2Fjira', 'go/jira'],
    ];
    for (const [url, q] of engines) {
      assert.equal(searchQueryOf(new URL(url)), q, url);
      assert.equal(searchRedirect(new URL(url), settings()), 'https://go.example.com/jira', url);
    }
    const lookalikes = [
      'https://www.google.evil.test/search?q=go%2Fjira',
      'https://google.com.evil.test/search?q=go%2Fjira',
      'https://notgoogle.com/search?q=go%2Fjira',
      'https://www.google.com/webhp?q=go%2Fjira',
      'https://www.google.com/url?q=go%2Fjira',
      'https://www.bing.com/images/search?q=go%2Fjira',
      'https://duckduckgo.com/html?q=go%2Fjira',
      'https://search.yahoo.com/search?q=go%2Fjira',
      'https://ecosia.org/search?q=go%2Fjira',
      'https://kagi.com/search?p=go%2Fjira',
      'ftp://www.google.com/search?q=go%2Fjira',
    ];
    for (const url of lookalikes) assert.equal(searchRedirect(new URL(url), settings()), null, url);
  });

  test('fallthrough: real searches, unknown keywords and ordinary sites are left alone', () => {
    const s = settings();
    for (const q of [
      'how to use go/defer',
      'go/no-go decision matrix',
      'unknown/foo',
      'go/',
      '/jira',
      ' go/jira',
      'go/jira ',
      'go /jira',
      'go/ji\tra',
      'go/ji\nra',
      'go/jira\u00a0x',
      '1go/jira',
      'go_x/jira',
      'go',
      'jira',
      'https://go/jira',
      'go.example.com/jira',
    ]) {
      assert.equal(searchRedirect(google(q), s), null, JSON.stringify(q));
    }
    for (const url of [
      'https://example.com/go/jira',
      'https://go.example.com/jira',
      'https://go.example.com/search?q=go%2Fjira',
      'http://localhost:8080/?q=go/x',
    ]) {
      assert.equal(searchRedirect(new URL(url), s), null, url);
    }
  });

  test('the keyword is matched case-insensitively; the slug keeps its case', () => {
    assert.equal(searchRedirect(google('GO/Jira'), settings()), 'https://go.example.com/Jira');
    assert.equal(searchRedirect(google('Wtf/sssd'), settings()), 'https://go.example.com/wtf/sssd');
    assert.deepEqual(parseKeywordQuery('My-Tool/x/y'), { keyword: 'my-tool', slug: 'x/y' });
  });

  test('the server keyword is intercepted even when the stored list is stale', () => {
    const stale = settings({ keywords: [] });
    assert.equal(searchRedirect(google('go/jira'), stale), 'https://go.example.com/jira');
    assert.equal(searchRedirect(google('gh/x'), stale), null);
    const announced = settings({ shortKeyword: 'links', keywords: ['go'] });
    assert.equal(searchRedirect(google('links/jira'), announced), 'https://go.example.com/jira');
    // `go` is no longer the server's own keyword here: it uses path routing.
    assert.equal(searchRedirect(google('go/jira'), announced), 'https://go.example.com/go/jira');
  });

  test('the slug is percent-encoded keeping "/" and "?", with "#" encoded', () => {
    assert.equal(encodeSearchSlug('jira/ABC-123'), 'jira/ABC-123');
    assert.equal(encodeSearchSlug('search?q=1&x=2'), 'search?q=1&x=2');
    assert.equal(encodeSearchSlug('notes#top'), 'notes%23top');
    assert.equal(encodeSearchSlug('100%'), '100%25');
    assert.equal(encodeSearchSlug('café'), 'caf%C3%A9');
    assert.equal(encodeSearchSlug('a\uD800b'), 'a%EF%BF%BDb');
    assert.equal(searchRedirect(google('go/notes#top'), settings()), 'https://go.example.com/notes%23top');
  });
});

describe('keyword hosts typed as URLs', () => {
  test('the fallback sends keyword hosts to the server, query included', () => {
    const s = settings();
    assert.equal(directHostRedirect(new URL('http://go/slack'), s), 'https://go.example.com/slack');
    assert.equal(
      directHostRedirect(new URL('http://gh/joestump/joe-links?tab=readme'), s),
      'https://go.example.com/gh/joestump/joe-links?tab=readme',
    );
    assert.equal(directHostRedirect(new URL('https://WTF/a%20b'), s), 'https://go.example.com/wtf/a%20b');
  });

  test('the server host, bare keyword hosts and other sites are never redirected', () => {
    const s = settings();
    for (const url of [
      'https://go.example.com/slack',
      'http://go/',
      'http://go',
      'http://unknown/foo',
      'https://example.com/go/slack',
      'ftp://go/slack',
      'http://go.evil.test/slack',
    ]) {
      assert.equal(directHostRedirect(new URL(url), s), null, url);
    }
    // A server reached by its bare name is its own host: no loop.
    assert.equal(directHostRedirect(new URL('http://go/slack'), settings({ baseURL: 'http://go' })), null);
  });
});

describe('declarativeNetRequest rules', () => {
  /** What the browser does with a rule: RE2 and JS agree on these simple patterns. */
  function apply(rules: ReturnType<typeof redirectRules>, url: string): string | null {
    for (const r of rules) {
      const re = new RegExp(r.condition.regexFilter);
      if (re.test(url)) return url.replace(re, r.action.redirect.regexSubstitution.replace(/\\(\d)/g, '$$$1'));
    }
    return null;
  }

  test('one rule per stored keyword other than the server host', () => {
    const rules = redirectRules(settings());
    assert.deepEqual(
      rules.map((r) => [r.id, r.condition.regexFilter, r.action.redirect.regexSubstitution]),
      [
        [1, '^https?://go(/.*)?$', 'https://go.example.com\\1'],
        [2, '^https?://wtf(/.*)?$', 'https://go.example.com/wtf\\1'],
        [3, '^https?://gh(/.*)?$', 'https://go.example.com/gh\\1'],
      ],
    );
    for (const r of rules) assert.deepEqual(r.condition.resourceTypes, ['main_frame']);
  });

  test('rules redirect exactly the keyword hosts and keep path and query', () => {
    const rules = redirectRules(settings({ baseURL: 'http://go.test:8080' }));
    assert.equal(apply(rules, 'http://go/slack'), 'http://go.test:8080/slack');
    assert.equal(apply(rules, 'https://go/jira/ABC-1?x=1'), 'http://go.test:8080/jira/ABC-1?x=1');
    assert.equal(apply(rules, 'http://gh/joestump'), 'http://go.test:8080/gh/joestump');
    assert.equal(apply(rules, 'http://wtf'), 'http://go.test:8080/wtf');
    for (const other of [
      'http://go.test:8080/slack',
      'http://gopher/x',
      'http://go.evil.test/x',
      'https://evil.test/go/x',
      'http://ago/x',
      'http://go:81/x',
    ]) {
      assert.equal(apply(rules, other), null, other);
    }
  });

  test('names that are not host-shaped get no rule; a bad server setting gets none at all', () => {
    const rules = redirectRules(settings({ keywords: ['.*', 'a b', 'x|y', 'ok-1', 'go.example.com'] }));
    assert.deepEqual(
      rules.map((r) => r.condition.regexFilter),
      ['^https?://ok-1(/.*)?$'],
    );
    assert.deepEqual(redirectRules(settings({ baseURL: 'not a url' })), []);
    assert.deepEqual(redirectRules(settings({ baseURL: 'javascript:alert(1)' })), []);
  });

  test('installed rules tell a restarted worker which hosts they cover', () => {
    const rules = redirectRules(settings({ keywords: ['go', 'my-tool', 'a.b'] }));
    assert.deepEqual([...hostsCoveredBy(rules)].sort(), ['a.b', 'go', 'my-tool']);
    assert.deepEqual([...hostsCoveredBy([{ condition: { regexFilter: 'something else' } }, {}])], []);
  });
});

describe('omnibox', () => {
  test('Enter opens the server with the typed text as one encoded path', () => {
    const s = settings({ baseURL: 'https://go.example.com/' });
    assert.equal(omniboxTarget(s, 'ji'), 'https://go.example.com/ji');
    assert.equal(omniboxTarget(s, '  jira/ABC-123 '), 'https://go.example.com/jira/ABC-123');
    assert.equal(omniboxTarget(s, 'a b#c?d'), 'https://go.example.com/a%20b%23c%3Fd');
    assert.equal(omniboxTarget(s, 'x\uDC00'), 'https://go.example.com/x%EF%BF%BD');
    assert.equal(omniboxTarget(s, 'https://evil.test/x'), 'https://go.example.com/https://evil.test/x');
  });

  test('whatever is typed, the target stays on the server origin', () => {
    const s = settings({ baseURL: 'http://go.test:8080' });
    const typed = fc.oneof(
      fc.string(),
      fc.string({ unit: 'binary' }),
      // raw UTF-16 code units, lone surrogates included
      fc.array(fc.integer({ min: 0, max: 0xffff })).map((units) => String.fromCharCode(...units)),
      fc.webUrl(),
      fc.constantFrom('//evil.test', '@evil.test', '\\\\evil.test', '..', '../../x'),
    );
    fc.assert(
      fc.property(typed, (text) => {
        const u = new URL(omniboxTarget(s, text));
        return u.origin === 'http://go.test:8080' && u.search === '' && u.hash === '';
      }),
      { numRuns: 2000 },
    );
  });

  test('suggestions: at most five, slug as content, escaped description', () => {
    const body = {
      suggestions: [
        { slug: 'jira', title: 'Jira <board> & "tickets"' },
        { slug: 'jenkins', title: '' },
        { slug: '', title: 'no slug' },
        { title: 'missing slug' },
        null,
        { slug: 'a' },
        { slug: 'b', title: 'B' },
        { slug: 'c', title: 'C' },
        { slug: 'd', title: 'D' },
      ],
    };
    const list = omniboxSuggestions(body, settings({ shortKeyword: 'wtf' }));
    assert.equal(list.length, MAX_OMNIBOX_SUGGESTIONS);
    assert.deepEqual(list[0], { content: 'jira', description: 'wtf/jira — Jira &lt;board&gt; &amp; &quot;tickets&quot;' });
    assert.deepEqual(list[1], { content: 'jenkins', description: 'wtf/jenkins' });
    assert.deepEqual(
      list.map((s) => s.content),
      ['jira', 'jenkins', 'a', 'b', 'c'],
    );
    for (const bad of [undefined, null, 'x', { suggestions: 'x' }, {}]) assert.deepEqual(omniboxSuggestions(bad, settings()), []);
    assert.equal(xmlEscape(`<'&">`), '&lt;&apos;&amp;&quot;&gt;');
  });

  test('a keystroke burst runs only the last call, and cancel drops it', async () => {
    const runs: string[] = [];
    const d = createDebouncer(20); // raised to the 150 ms floor
    for (const text of ['j', 'ji', 'jir', 'jira']) d.schedule(() => runs.push(text));
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(runs.length, 0, 'nothing runs before the delay');
    await new Promise((r) => setTimeout(r, 150));
    assert.deepEqual(runs, ['jira']);
    d.schedule(() => runs.push('late'));
    assert.equal(d.pending, true);
    d.cancel();
    await new Promise((r) => setTimeout(r, 250));
    assert.deepEqual(runs, ['jira']);
  });
});

describe('popup rules', () => {
  test('tags are normalised and de-duplicated', () => {
    assert.equal(normalizeTag('  Dev Ops! '), 'dev-ops');
    assert.equal(normalizeTag('--a__b--'), 'a-b');
    assert.equal(normalizeTag('C++/Rust'), 'c-rust');
    assert.equal(normalizeTag('!!!'), '');
    let tags = addTag([], 'Engineering');
    tags = addTag(tags, 'engineering');
    tags = addTag(tags, ' ');
    tags = addTag(tags, 'On Call');
    assert.deepEqual(tags, ['engineering', 'on-call']);
  });

  test('keyword shortcuts come from templates that frame the tab URL', () => {
    const templates = [
      { keyword: 'gh', url_template: 'https://github.com/{slug}' },
      { keyword: 'jira', url_template: 'https://jira.example.com/browse/{slug}' },
      { keyword: 'doc', url_template: 'https://docs.example.com/{slug}/index.html?lang=en' },
      { keyword: 'any', url_template: '{slug}' },
      { keyword: 'bad' },
      'junk',
    ];
    assert.deepEqual(templateShortcuts(templates, 'https://github.com/joestump/joe-links?tab=readme#top'), [
      { keyword: 'gh', slug: 'joestump/joe-links' },
    ]);
    assert.deepEqual(templateShortcuts(templates, 'https://jira.example.com/browse/ABC-123#comment'), [
      { keyword: 'jira', slug: 'ABC-123' },
    ]);
    assert.deepEqual(templateShortcuts(templates, 'https://docs.example.com/setup/index.html?lang=de'), [
      { keyword: 'doc', slug: 'setup' },
    ]);
    assert.deepEqual(templateShortcuts(templates, 'https://docs.example.com/setup/other.html'), []);
    assert.deepEqual(templateShortcuts(templates, 'https://github.com/'), [], 'an empty remainder is no match');
    assert.deepEqual(templateShortcuts(templates, 'https://github.com/?q=x'), []);
    assert.deepEqual(templateShortcuts('not an array', 'https://github.com/x'), []);
  });

  test('the slug is prefilled from the first shortcut only when it is a valid slug', () => {
    assert.equal(
      prefillSlug([
        { keyword: 'jira', slug: 'ABC-123' },
        { keyword: 'x', slug: 'other' },
      ]),
      'abc-123',
    );
    assert.equal(prefillSlug([{ keyword: 'gh', slug: 'joestump/joe-links' }]), 'joestump/joe-links', 'a name of several segments');
    assert.equal(prefillSlug([{ keyword: 'gh', slug: 'joestump//joe-links' }]), '', 'an empty segment');
    assert.equal(prefillSlug([{ keyword: 'gh', slug: 'a/b/c/d/e/f/g/h/i' }]), '', 'more than eight segments');
    assert.equal(prefillSlug([{ keyword: 'gh', slug: `a/${'b'.repeat(127)}` }]), '', 'longer than 128 characters');
    assert.equal(prefillSlug([{ keyword: 'gh', slug: '-edge' }]), '');
    assert.equal(prefillSlug([]), '');
  });

  test('rows link to the server only', () => {
    const s = settings({ shortKeyword: 'go' });
    assert.deepEqual(shortcutRows([{ keyword: 'gh', slug: 'joestump/joe-links' }], s), [
      { label: 'gh/joestump/joe-links', copyURL: 'https://go.example.com/gh/joestump/joe-links' },
    ]);
    assert.deepEqual(existingLinkRows({ links: [{ id: 'a/b?c', slug: 'jira' }, { slug: 'no-id' }, null] }, s), [
      { label: 'go/jira', editURL: 'https://go.example.com/dashboard/links/a%2Fb%3Fc/edit', copyURL: 'https://go.example.com/jira' },
    ]);
    assert.deepEqual(existingLinkRows({ error: 'x' }, s), []);
  });

  test('the create body carries optional fields only when they are filled in', () => {
    const form = { url: ' https://example.com/x ', slug: ' docs ', visibility: '', title: ' ', description: '', tags: [] as string[] };
    assert.deepEqual(createLinkBody(form), { ok: true, body: { url: 'https://example.com/x', slug: 'docs', visibility: 'public' } });
    assert.deepEqual(createLinkBody({ ...form, visibility: 'secure', title: 'Docs', description: 'All of them', tags: ['a', 'b'] }), {
      ok: true,
      body: {
        url: 'https://example.com/x',
        slug: 'docs',
        visibility: 'secure',
        title: 'Docs',
        description: 'All of them',
        tags: ['a', 'b'],
      },
    });
    assert.deepEqual(createLinkBody({ ...form, slug: '  ' }), { ok: false, error: 'URL and slug are required.' });
    assert.deepEqual(createLinkBody({ ...form, url: '' }), { ok: false, error: 'URL and slug are required.' });
  });

  test('a failed create shows the server message, else the status', () => {
    assert.equal(createErrorMessage(409, { error: 'slug is already taken', code: 'SLUG_CONFLICT' }), 'slug is already taken');
    assert.equal(createErrorMessage(400, { message: 'bad thing' }), 'bad thing');
    assert.equal(createErrorMessage(502, undefined), 'Error 502');
    assert.equal(createErrorMessage(500, { error: '' }), 'Error 500');
  });

  test('suggestion rows: one per non-empty field, tags normalised for use', () => {
    assert.deepEqual(suggestionRows({ slug: 'team-docs', title: '', description: 'The docs', tags: ['Engineering', 'On Call', '', 4] }), [
      { field: 'slug', text: 'team-docs', value: 'team-docs' },
      { field: 'description', text: 'The docs', value: 'The docs' },
      { field: 'tags', text: 'Engineering, On Call', value: ['engineering', 'on-call'] },
    ]);
    assert.deepEqual(suggestionRows({ slug: '', title: '', description: '', tags: [] }), []);
    assert.deepEqual(suggestionRows(null), []);
    assert.deepEqual(suggestionRows('<b>x</b>'), []);
  });
});
