import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { authorizationFor, callServer } from '../../integrations/extension/lib/api.js';
import { discoverKeywords } from '../../integrations/extension/lib/keywords.js';
import { fetchOmniboxSuggestions } from '../../integrations/extension/lib/omnibox.js';
import type { Settings } from '../../integrations/extension/lib/settings.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { sendJson, startRecordingServer, type RecordingServer } from './support.js';
import { createLink } from '../helpers/links.js';

/**
 * The extension's requests, made with the platform `fetch` against real HTTP
 * servers: a joe-links server, and small scripted servers for the failures a
 * joe-links server does not produce on demand.
 */

const KEY = 'jl_extension-test-key';

describe('the token goes to the configured server origin only', () => {
  const s = { baseURL: 'https://go.example.com', apiKey: KEY };

  test('same origin gets the header; every other origin does not', () => {
    assert.equal(authorizationFor('https://go.example.com/api/v1/links', s), `Bearer ${KEY}`);
    assert.equal(authorizationFor('https://GO.example.com:443/x', s), `Bearer ${KEY}`, 'the same origin spelled differently');
    for (const target of [
      'http://go.example.com/api/v1/links', // scheme
      'https://go.example.com:8443/api/v1/links', // port
      'https://go.example.com.evil.test/api/v1/links', // suffix
      'https://evil.test/go.example.com/api/v1/links', // path
      'https://go.example.com@evil.test/api/v1/links', // userinfo trick
      'https://evil.test\\@go.example.com/', // backslash trick
      'https://user:pw@go.example.com/api/v1/links', // credentials in the URL
      'https://go.example.com./api/v1/links', // trailing dot is another origin to the browser
      'https://xn--go-example-com.test/',
      '//go.example.com/api/v1/links', // relative: no origin
      '/api/v1/links',
      'javascript:fetch("https://go.example.com")',
      'data:text/plain,go.example.com',
      '',
    ]) {
      assert.equal(authorizationFor(target, s), null, target);
    }
  });

  test('no key, or no usable server setting, means no header anywhere', () => {
    assert.equal(authorizationFor('https://go.example.com/x', { ...s, apiKey: '' }), null);
    for (const baseURL of ['', 'go.example.com', 'javascript:alert(1)', 'file:///etc', 'data:,x']) {
      assert.equal(authorizationFor('https://go.example.com/x', { baseURL, apiKey: KEY }), null, baseURL);
    }
  });

  test('random URLs: a header exactly when the origin is the server origin', () => {
    fc.assert(
      fc.property(
        fc.webUrl({ withQueryParameters: true, withFragments: true, authoritySettings: { withUserInfo: true, withPort: true } }),
        fc.webUrl(),
        (target, base) => {
          const baseOrigin = new URL(base).origin;
          const t = new URL(target);
          const expected = t.origin === baseOrigin && t.username === '' && t.password === '';
          return (authorizationFor(target, { baseURL: baseOrigin, apiKey: KEY }) !== null) === expected;
        },
      ),
      { numRuns: 3000 },
    );
  });

  test('callServer only builds URLs on the server: protocol-relative paths are refused', async () => {
    const settings = { baseURL: 'http://127.0.0.1:9', apiKey: KEY };
    await assert.rejects(callServer(settings, '//evil.test/x', { timeoutMs: 1000 }), /single \//);
    await assert.rejects(callServer(settings, 'evil.test/x', { timeoutMs: 1000 }), /single \//);
  });

  describe('a server that redirects elsewhere', () => {
    let elsewhere: RecordingServer;
    let server: RecordingServer;
    before(async () => {
      elsewhere = await startRecordingServer((_req, res) => sendJson(res, 200, ['gh']));
      server = await startRecordingServer((req, res) => {
        res.writeHead(307, { location: `${elsewhere.origin}${req.url}` });
        res.end();
      });
    });
    after(async () => {
      await server.close();
      await elsewhere.close();
    });

    test('with a key the call fails rather than follow, so the token never reaches the other origin', async () => {
      elsewhere.seen.length = 0;
      await assert.rejects(callServer({ baseURL: server.origin, apiKey: KEY }, '/api/v1/keywords', { timeoutMs: 3000 }));
      assert.equal(server.seen.at(-1)?.headers.authorization, `Bearer ${KEY}`);
      assert.deepEqual(elsewhere.seen, [], 'nothing reached the other origin');
      const r = await discoverKeywords({ baseURL: server.origin, apiKey: KEY, keywords: ['go'], shortKeyword: '' });
      assert.deepEqual(r, { ok: false, error: 'Could not reach server.' });
      assert.deepEqual(elsewhere.seen, []);
    });

    test('without a key the public call follows the redirect, carrying no credentials', async () => {
      elsewhere.seen.length = 0;
      const r = await callServer({ baseURL: server.origin, apiKey: '' }, '/api/v1/keywords', { timeoutMs: 3000 });
      assert.deepEqual([r.status, r.body], [200, ['gh']]);
      assert.equal(elsewhere.seen.length, 1);
      assert.equal(elsewhere.seen[0]?.headers.authorization, undefined);
      assert.equal(elsewhere.seen[0]?.headers.cookie, undefined);
    });
  });
});

describe('keyword discovery and omnibox suggestions against a joe-links server', () => {
  let s: TestServer;
  let token: string;
  before(async () => {
    s = await startTestServer({ env: { JOE_SHORT_KEYWORD: 'go' } });
    const user = await s.store.users.create({ email: 'ext-calls@x.io' });
    token = (await s.store.tokens.create(user.id, 'extension')).plaintext;
    await s.store.keywords.create({ keyword: 'wtf', urlTemplate: 'https://google.com/search?q={slug}' });
    await s.store.keywords.create({ keyword: 'gh', urlTemplate: 'https://github.com/{slug}' });
    await createLink(s.store, { slug: 'jira', url: 'https://jira.example.com', title: 'Jira <board>' }, user.id);
    await createLink(s.store, { slug: 'jenkins', url: 'https://ci.example.com' }, user.id);
  });
  after(async () => s.stop());

  const settings = (over: Partial<Settings> = {}): Settings => ({
    baseURL: s.url,
    apiKey: '',
    keywords: ['go'],
    shortKeyword: '',
    ...over,
  });

  test('the stored list is the server host, the server keyword and the server keywords', async () => {
    assert.deepEqual(await discoverKeywords(settings()), { ok: true, keywords: ['127.0.0.1', 'go', 'gh', 'wtf'], shortKeyword: 'go' });
    // With a token too: the public routes ignore it.
    assert.deepEqual(await discoverKeywords(settings({ apiKey: token })), {
      ok: true,
      keywords: ['127.0.0.1', 'go', 'gh', 'wtf'],
      shortKeyword: 'go',
    });
  });

  test('omnibox suggestions come from GET /api/v1/links/suggest with the token', async () => {
    assert.deepEqual(await fetchOmniboxSuggestions(settings({ apiKey: token, shortKeyword: 'go' }), ' j '), [
      { content: 'jenkins', description: 'go/jenkins' },
      { content: 'jira', description: 'go/jira — Jira &lt;board&gt;' },
    ]);
  });

  test('a rejected token, no token or empty text yield no suggestions and no error', async () => {
    assert.deepEqual(await fetchOmniboxSuggestions(settings({ apiKey: 'jl_not-a-real-token' }), 'ji'), []);
    assert.deepEqual(await fetchOmniboxSuggestions(settings(), 'ji'), []);
    assert.deepEqual(await fetchOmniboxSuggestions(settings({ apiKey: token }), '   '), []);
  });
});

describe('keyword discovery when the server misbehaves', () => {
  let server: RecordingServer;
  /** path → [status, body]; a missing path never answers (a hung server). */
  let script: Record<string, [number, unknown] | 'hang'> = {};
  before(async () => {
    server = await startRecordingServer((req, res) => {
      const step = script[req.url.split('?')[0] ?? ''];
      if (step === 'hang') return; // the client's timeout has to end it
      if (step === undefined) return sendJson(res, 404, { error: 'not found', code: 'NOT_FOUND' });
      if (typeof step[1] === 'string') {
        res.writeHead(step[0], { 'content-type': 'text/html' });
        res.end(step[1]);
        return;
      }
      sendJson(res, step[0], step[1]);
    });
  });
  after(async () => server.close());

  const base = (over: Partial<Settings> = {}): Settings => ({
    baseURL: server.origin,
    apiKey: '',
    keywords: ['go', 'old'],
    shortKeyword: 'wtf',
    ...over,
  });

  test('keyword list failures are reported in the documented words', async () => {
    script = { '/api/v1/keywords': [500, { error: 'internal error', code: 'INTERNAL_ERROR' }] };
    assert.deepEqual(await discoverKeywords(base()), { ok: false, error: 'Server returned 500.' });
    script = { '/api/v1/keywords': [200, { keywords: ['gh'] }] };
    assert.deepEqual(await discoverKeywords(base()), { ok: false, error: 'Unexpected response from server.' });
    script = { '/api/v1/keywords': [200, '<html>captive portal</html>'] };
    assert.deepEqual(await discoverKeywords(base()), { ok: false, error: 'Unexpected response from server.' });
    const closed = await startRecordingServer(() => {});
    const deadOrigin = closed.origin;
    await closed.close();
    assert.deepEqual(await discoverKeywords(base({ baseURL: deadOrigin })), { ok: false, error: 'Could not reach server.' });
  });

  test('acceptance: /config answering 500 keeps the short keyword; 404 clears it', async () => {
    script = { '/api/v1/keywords': [200, ['gh']], '/api/v1/config': [500, { error: 'x', code: 'INTERNAL_ERROR' }] };
    assert.deepEqual(await discoverKeywords(base()), { ok: true, keywords: ['127.0.0.1', 'wtf', 'gh'], shortKeyword: 'wtf' });
    script = { '/api/v1/keywords': [200, ['gh']] }; // /config → 404: an older server
    assert.deepEqual(await discoverKeywords(base()), { ok: true, keywords: ['127.0.0.1', '127', 'gh'], shortKeyword: '' });
    script = { '/api/v1/keywords': [200, ['gh']], '/api/v1/config': [200, { short_keyword: 'Links' }] };
    assert.deepEqual(await discoverKeywords(base()), { ok: true, keywords: ['127.0.0.1', 'links', 'gh'], shortKeyword: 'Links' });
    script = { '/api/v1/keywords': [200, ['gh']], '/api/v1/config': [200, { short_keyword: 42 }] };
    assert.deepEqual(await discoverKeywords(base()), { ok: true, keywords: ['127.0.0.1', 'wtf', 'gh'], shortKeyword: 'wtf' });
  });

  test('non-keyword entries in the server list are dropped, duplicates collapsed', async () => {
    script = {
      '/api/v1/keywords': [200, ['GH', 'gh', 7, null, '.*', 'a b', '', 'wtf', 'go']],
      '/api/v1/config': [200, { short_keyword: 'go' }],
    };
    assert.deepEqual(await discoverKeywords(base()), { ok: true, keywords: ['127.0.0.1', 'go', 'gh', 'wtf'], shortKeyword: 'go' });
  });

  test('requests carry the bearer key exactly when one is set', async () => {
    script = { '/api/v1/keywords': [200, []], '/api/v1/config': [200, { short_keyword: 'go' }] };
    server.seen.length = 0;
    await discoverKeywords(base({ baseURL: server.origin }));
    await discoverKeywords(base({ baseURL: server.origin, apiKey: KEY }));
    assert.deepEqual(
      server.seen.map((r) => [r.url, r.headers.authorization ?? null, r.headers.cookie ?? null]),
      [
        ['/api/v1/keywords', null, null],
        ['/api/v1/config', null, null],
        ['/api/v1/keywords', `Bearer ${KEY}`, null],
        ['/api/v1/config', `Bearer ${KEY}`, null],
      ],
    );
  });

  test('acceptance: without a key, omnibox typing sends no suggestion request', async () => {
    script = { '/api/v1/links/suggest': [200, { suggestions: [{ slug: 'jira', title: '' }] }] };
    server.seen.length = 0;
    assert.deepEqual(await fetchOmniboxSuggestions(base({ baseURL: server.origin }), 'ji'), []);
    assert.equal(server.seen.length, 0);
    assert.deepEqual(await fetchOmniboxSuggestions(base({ baseURL: server.origin, apiKey: KEY }), 'ji ra/#?'), [
      { content: 'jira', description: 'wtf/jira' },
    ]);
    assert.deepEqual(
      server.seen.map((r) => r.url),
      ['/api/v1/links/suggest?q=ji%20ra%2F%23%3F'],
    );
  });

  test('a server that never answers times out after five seconds', { timeout: 15_000 }, async () => {
    script = { '/api/v1/keywords': 'hang' };
    const started = Date.now();
    assert.deepEqual(await discoverKeywords(base()), { ok: false, error: 'Could not reach server.' });
    const took = Date.now() - started;
    assert.ok(took >= 4_900 && took < 9_000, `took ${took} ms`);
  });
});
