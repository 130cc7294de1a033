import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium, type BrowserContext, type CDPSession, type Page, type Worker } from 'playwright-core';
import { CHROMIUM, chromiumSkip } from '../helpers/browser.js';
import { eventually, startTestServer, type TestServer } from '../helpers/server.js';
import { startRecordingProxy, startRecordingServer, type RecordingProxy, type RecordingServer, type SeenRequest } from './support.js';
import { createLink } from '../helpers/links.js';

/**
 * The unpacked extension loaded into Debian's Chromium against a real
 * joe-links server. A recording proxy sits in front of the server (the
 * extension is configured with the proxy's address) so the test sees every
 * request the extension and the browser made, with its headers; a second
 * small server plays the destination sites links point to.
 *
 * Headless Chromium has no address bar to type into. What typing produces is
 * driven instead: a navigation to `http://go/<slug>` (what the address bar
 * opens for a known intranet-style host), a search-engine results URL for
 * `go/<slug>` (what it opens otherwise), and the omnibox keyword events
 * dispatched inside the extension's service worker, which run the very
 * listeners the address bar would call. The popup is opened with
 * `chrome.action.openPopup()` and driven over the DevTools protocol.
 */

// Functions passed to `sw.evaluate` run inside the extension's service worker, where `chrome` exists.
declare const chrome: any;

const EXTENSION = resolve('integrations/extension');
// An extension needs the full browser, never the headless shell pages are tested in.
const skip = chromiumSkip('browser extension');

/** Evaluates script in an extension popup, which Playwright does not expose as a page. */
class PopupDriver {
  private next = 0;
  private readonly waiting = new Map<number, (m: { result?: unknown; error?: { message: string } }) => void>();

  private constructor(
    private readonly browser: CDPSession,
    private readonly sessionId: string,
  ) {
    browser.on('Target.receivedMessageFromTarget', (e: { sessionId: string; message: string }) => {
      if (e.sessionId !== this.sessionId) return;
      const m = JSON.parse(e.message) as { id?: number; result?: unknown; error?: { message: string } };
      if (m.id !== undefined) this.waiting.get(m.id)?.(m);
    });
  }

  /** Opens the toolbar popup for the active tab, as a click on the toolbar button would. */
  static async open(browser: CDPSession, sw: Worker): Promise<PopupDriver> {
    const before = new Set(((await browser.send('Target.getTargets')).targetInfos as Array<{ targetId: string }>).map((t) => t.targetId));
    const opened = await sw.evaluate(() =>
      chrome.action.openPopup().then(
        () => 'ok',
        (e: Error) => e.message,
      ),
    );
    assert.equal(opened, 'ok', 'chrome.action.openPopup()');
    let targetId = '';
    await eventually(async () => {
      const infos = (await browser.send('Target.getTargets')).targetInfos as Array<{ targetId: string; url: string }>;
      targetId = infos.find((t) => t.url.endsWith('/popup.html') && !before.has(t.targetId))?.targetId ?? '';
      return targetId !== '';
    });
    const { sessionId } = (await browser.send('Target.attachToTarget', { targetId, flatten: false })) as { sessionId: string };
    const popup = new PopupDriver(browser, sessionId);
    await eventually(async () => (await popup.eval('document.body?.dataset.ready === "true"')) === true, 10_000);
    return popup;
  }

  private send(method: string, params: Record<string, unknown>): Promise<{ result?: unknown; error?: { message: string } }> {
    const id = ++this.next;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, (m) => {
        this.waiting.delete(id);
        resolve(m);
      });
      this.browser
        .send('Target.sendMessageToTarget', { sessionId: this.sessionId, message: JSON.stringify({ id, method, params }) })
        .catch(reject);
    });
  }

  async eval<T = unknown>(expression: string): Promise<T> {
    const m = await this.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true });
    if (m.error) throw new Error(m.error.message);
    const r = m.result as { result: { value: T }; exceptionDetails?: { exception?: { description?: string } } };
    if (r.exceptionDetails) throw new Error(r.exceptionDetails.exception?.description ?? 'popup script failed');
    return r.result.value;
  }

  text(selector: string): Promise<string> {
    return this.eval(`document.querySelector(${JSON.stringify(selector)})?.textContent?.trim() ?? null`);
  }

  value(selector: string): Promise<string> {
    return this.eval(`document.querySelector(${JSON.stringify(selector)}).value`);
  }

  visible(selector: string): Promise<boolean> {
    return this.eval(
      `(() => { const el = document.querySelector(${JSON.stringify(selector)}); return !!el && !el.closest('[hidden]') && el.getClientRects().length > 0; })()`,
    );
  }

  /** A real mouse click in the middle of the element. */
  async click(selector: string): Promise<void> {
    const box = await this.eval<{ x: number; y: number } | null>(
      `(() => { const el = document.querySelector(${JSON.stringify(selector)}); if (!el) return null; el.scrollIntoView({ block: 'center' }); const r = el.getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; })()`,
    );
    assert.ok(box, `${selector} is in the popup`);
    for (const type of ['mousePressed', 'mouseReleased']) {
      await this.send('Input.dispatchMouseEvent', { type, x: box.x, y: box.y, button: 'left', clickCount: 1 });
    }
  }

  /** Types into the focused element as a keyboard would (input events, no keydown). */
  async type(text: string): Promise<void> {
    await this.send('Input.insertText', { text });
  }

  async press(key: 'Enter' | 'Backspace' | 'Tab'): Promise<void> {
    const code = { Enter: 13, Backspace: 8, Tab: 9 }[key];
    await this.send('Input.dispatchKeyEvent', { type: 'rawKeyDown', key, code: key, windowsVirtualKeyCode: code });
    await this.send('Input.dispatchKeyEvent', { type: 'keyUp', key, code: key, windowsVirtualKeyCode: code });
  }

  async close(): Promise<void> {
    await this.eval('window.close()').catch(() => {});
  }
}

describe('the browser extension in Chromium', { skip }, () => {
  let s: TestServer;
  let proxy: RecordingProxy;
  let sites: RecordingServer;
  let context: BrowserContext;
  let sw: Worker;
  let cdp: CDPSession;
  let page: Page;
  let profile: string;
  let base: string;
  let token: string;
  let userId: string;
  const problems: string[] = [];

  /** Requests the proxy forwarded to joe-links since `mark`. */
  const serverSince = (mark: number) => proxy.seen.slice(mark);
  const paths = (rs: SeenRequest[]) => rs.map((r) => `${r.method} ${r.url}`);
  /** What was asked for, minus what a loaded page fetches on its own (styles, scripts, the favicon). */
  const asked = (rs: SeenRequest[]) => paths(rs).filter((p) => !p.startsWith('GET /static/') && p !== 'GET /favicon.ico');
  const storage = () => sw.evaluate(() => chrome.storage.local.get(null));

  /** Opens a URL the extension is expected to redirect; the original navigation is abandoned or fails. */
  async function navigateExpectingRedirect(url: string, landing: string): Promise<void> {
    await page.goto(url, { timeout: 10_000 }).catch(() => {});
    // Polled rather than awaited as a navigation: the abandoned one reports its own failure.
    await eventually(() => page.url() === landing, 10_000);
    await page.waitForLoadState();
  }

  before(async () => {
    sites = await startRecordingServer((req, res) => {
      const path = req.url.split('?')[0] ?? '/';
      const pages: Record<string, [string, string]> = {
        '/article': ['Team handbook', 'Everything about the team'],
        '/jira-home': ['Jira home', 'The tracker'],
      };
      const [title, description] = pages[path] ?? [`Site ${path}`, ''];
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><title>${title}</title><meta name="description" content="${description}"><h1 id="where">${path}</h1>`);
    });
    s = await startTestServer({ env: { JOE_SHORT_KEYWORD: 'go' } });
    proxy = await startRecordingProxy(s.url);
    base = `http://go.test:${proxy.port}`;

    const user = await s.store.users.create({ email: 'ext-browser@x.io' });
    userId = user.id;
    token = (await s.store.tokens.create(user.id, 'browser extension')).plaintext;
    await createLink(s.store, { slug: 'jira', url: `${sites.origin}/jira-home`, title: 'Jira' }, user.id);
    await createLink(s.store, { slug: 'handbook', url: `${sites.origin}/article` }, user.id);
    await s.store.keywords.create({ keyword: 'gh', urlTemplate: `${sites.origin}/gh/{slug}` });
    await s.store.keywords.create({ keyword: 'docs', urlTemplate: `${sites.origin}/{slug}` });

    profile = mkdtempSync(join(tmpdir(), 'joe-links-ext-profile-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless=new',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        // go.test is the server's name; every other name fails to resolve, so
        // nothing leaves this machine and search-engine hosts stay unreachable.
        '--host-resolver-rules=MAP go.test 127.0.0.1, MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
        `--disable-extensions-except=${EXTENSION}`,
        `--load-extension=${EXTENSION}`,
      ],
    });
    sw =
      context.serviceWorkers().find((w) => w.url().endsWith('/background.js')) ??
      (await context.waitForEvent('serviceworker', { timeout: 15_000 }));
    const browser = context.browser();
    assert.ok(browser, 'a persistent context still exposes its browser');
    cdp = await browser.newBrowserCDPSession();
    context.on('weberror', (e) => problems.push(e.error().message));
    page = await context.newPage();
  });

  after(async () => {
    await context?.close();
    await proxy?.close();
    await sites?.close();
    await s?.stop();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  test('first install opens the options page; saving a server discovers its keywords', { timeout: 60_000 }, async () => {
    await eventually(() => context.pages().some((p) => p.url().endsWith('/options.html')), 10_000);
    const options = context.pages().find((p) => p.url().endsWith('/options.html'))!;
    await options.locator('body[data-ready="true"]').waitFor();
    assert.equal(await options.getByLabel('Server URL').inputValue(), '', 'nothing configured yet');

    // A value that is not an http(s) URL is refused on the spot and stored nowhere.
    await options.getByLabel('Server URL').fill('go.test');
    await options.getByRole('button', { name: 'Save' }).click();
    await options.getByRole('alert').filter({ hasText: 'http://' }).waitFor();
    assert.equal((await storage()).baseURL, undefined);

    const mark = proxy.seen.length;
    await options.getByLabel('Server URL').fill(`${base}/dashboard?from=bookmark`);
    await options.getByRole('button', { name: 'Save' }).click();
    await options.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await options.locator('#keywords li', { hasText: 'docs' }).waitFor();
    assert.deepEqual(await options.locator('#keywords li').allTextContents(), ['go.test', 'go', 'docs', 'gh']);
    assert.equal(await options.locator('#keyword-count').textContent(), '(4)');
    assert.equal(await options.getByLabel('Server URL').inputValue(), base, 'only the origin is kept');
    assert.equal(await options.getByRole('alert').isVisible(), false);

    assert.deepEqual(await storage(), { baseURL: base, apiKey: '', keywords: ['go.test', 'go', 'docs', 'gh'], shortKeyword: 'go' });
    assert.deepEqual(paths(serverSince(mark)), ['GET /api/v1/keywords', 'GET /api/v1/config']);
    for (const r of serverSince(mark)) assert.equal(r.headers.authorization, undefined, 'no key configured, no header');

    // The redirect rules for typed keyword hosts, and the hourly refresh.
    const rules = await sw.evaluate(() => chrome.declarativeNetRequest.getDynamicRules());
    assert.deepEqual(
      rules.map((r: { condition: { regexFilter: string }; action: { redirect?: { regexSubstitution: string } } }) => [
        r.condition.regexFilter,
        r.action.redirect?.regexSubstitution,
      ]),
      [
        ['^https?://go(/.*)?$', `${base}\\1`],
        ['^https?://docs(/.*)?$', `${base}/docs\\1`],
        ['^https?://gh(/.*)?$', `${base}/gh\\1`],
      ],
    );
    assert.equal((await sw.evaluate(() => chrome.alarms.get('keyword-refresh')))?.periodInMinutes, 60);

    // "Refresh now" asks the worker, which asks the server.
    const again = proxy.seen.length;
    await options.getByRole('button', { name: 'Refresh now' }).click();
    await options.getByRole('status').filter({ hasText: 'Keywords refreshed.' }).waitFor();
    assert.deepEqual(paths(serverSince(again)), ['GET /api/v1/keywords', 'GET /api/v1/config']);
    await options.close();
  });

  test('go/<slug> typed as a URL or searched for opens the link; other navigations are untouched', { timeout: 90_000 }, async () => {
    await page.bringToFront();
    // Typed as a URL: the redirect rule sends http://go/jira to the server, which redirects to the link.
    let mark = proxy.seen.length;
    await page.goto('http://go/jira');
    assert.equal(page.url(), `${sites.origin}/jira-home`);
    assert.equal(await page.locator('#where').textContent(), '/jira-home');
    assert.deepEqual(asked(serverSince(mark)), ['GET /jira']);

    await page.goto('http://gh/joestump/joe-links?tab=readme');
    assert.equal(page.url(), `${sites.origin}/gh/joestump/joe-links`, 'keyword routed by the server');

    // Typed as a search: the results page never loads, the tab goes to the server instead.
    mark = proxy.seen.length;
    await navigateExpectingRedirect('https://www.google.com/search?q=go%2Fjira&sourceid=chrome&ie=UTF-8', `${sites.origin}/jira-home`);
    await navigateExpectingRedirect('https://www.bing.com/search?q=GH%2Fjoestump', `${sites.origin}/gh/joestump`);
    await navigateExpectingRedirect('https://duckduckgo.com/?q=docs%2Farticle&ia=web', `${sites.origin}/article`);
    assert.deepEqual(asked(serverSince(mark)), ['GET /jira', 'GET /gh/joestump', 'GET /docs/article']);

    // Fallthrough: real searches, unknown keywords, unknown hosts and real sites.
    mark = proxy.seen.length;
    const siteMark = sites.seen.length;
    for (const url of [
      'https://www.google.com/search?q=how+to+use+go%2Fdefer',
      'https://www.google.com/search?q=go%2Fno-go+decision+matrix',
      'https://www.google.com/search?q=unknown%2Ffoo',
      'http://unknown/foo',
    ]) {
      // From a blank tab, so a page left by the step before can never pass for a redirect.
      await page.goto('about:blank');
      await page.goto(url, { timeout: 10_000 }).catch(() => {});
      await page.waitForTimeout(500);
      assert.ok(!page.url().startsWith(base) && !page.url().startsWith(sites.origin), `${url} stayed put (${page.url()})`);
    }
    await page.goto(`${sites.origin}/go/jira?q=go%2Fjira`);
    await page.goto(`${sites.origin}/search?q=go%2Fjira`);
    await page.waitForTimeout(500);
    assert.equal(page.url(), `${sites.origin}/search?q=go%2Fjira`);
    assert.deepEqual(asked(serverSince(mark)), [], 'nothing reached the go-links server');
    assert.deepEqual(asked(sites.seen.slice(siteMark)), ['GET /go/jira?q=go%2Fjira', 'GET /search?q=go%2Fjira']);
  });

  test('acceptance: without a key the omnibox sends no suggestion request, and Enter opens {base}/ji', { timeout: 60_000 }, async () => {
    await page.bringToFront();
    const mark = proxy.seen.length;
    const suggested = await sw.evaluate(
      () =>
        new Promise<unknown[]>((done) => {
          const got: unknown[] = [];
          chrome.omnibox.onInputChanged.dispatch('ji', (list: unknown) => got.push(list));
          setTimeout(() => done(got), 800);
        }),
    );
    assert.deepEqual(suggested, []);
    await sw.evaluate(() => chrome.omnibox.onInputEntered.dispatch('ji', 'currentTab'));
    await page.waitForURL(`${base}/ji`);
    assert.deepEqual(asked(serverSince(mark)), ['GET /ji'], 'no /api/v1/links/suggest request');
  });

  test('without a key the popup offers the options page and cannot create', { timeout: 60_000 }, async () => {
    await page.goto(`${sites.origin}/article`);
    await page.bringToFront();
    const popup = await PopupDriver.open(cdp, sw);
    try {
      assert.equal(await popup.visible('#no-key'), true);
      assert.match(await popup.text('#no-key'), /API key/);
      assert.equal(await popup.eval('document.getElementById("create").disabled'), true);
      assert.equal(await popup.text('#slug-prefix'), 'go/');
      assert.equal(await popup.value('#url'), `${sites.origin}/article`);
    } finally {
      await popup.close();
    }
  });

  test('with a key: omnibox suggestions, and Enter in each disposition', { timeout: 60_000 }, async () => {
    const options = await context.newPage();
    await options.goto(`chrome-extension://${new URL(sw.url()).host}/options.html`);
    await options.locator('body[data-ready="true"]').waitFor();
    await options.getByLabel('API key').fill(`  ${token}  `);
    await options.getByRole('button', { name: 'Save' }).click();
    await options.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await eventually(async () => (await storage()).apiKey === token);
    await options.close();

    // A burst of keystrokes makes one request, for the last text.
    let mark = proxy.seen.length;
    const suggestions = await sw.evaluate(
      () =>
        new Promise<unknown>((done) => {
          // Inline callbacks: a named one would not survive serialisation into the worker.
          chrome.omnibox.onInputChanged.dispatch('j', () => {});
          chrome.omnibox.onInputChanged.dispatch('ji', () => {});
          chrome.omnibox.onInputChanged.dispatch('jir', (list: unknown) => done(list));
          setTimeout(() => done('no suggestions within 5 s'), 5000);
        }),
    );
    assert.deepEqual(suggestions, [{ content: 'jira', description: 'go/jira — Jira' }]);
    const suggestCalls = serverSince(mark).filter((r) => r.url.startsWith('/api/v1/links/suggest'));
    assert.deepEqual(paths(suggestCalls), ['GET /api/v1/links/suggest?q=jir']);
    assert.equal(suggestCalls[0]?.headers.authorization, `Bearer ${token}`);

    // Enter cancels a pending request and opens the typed link.
    await page.bringToFront();
    mark = proxy.seen.length;
    await sw.evaluate(() => {
      chrome.omnibox.onInputChanged.dispatch('jir', () => {});
      chrome.omnibox.onInputEntered.dispatch('jira', 'currentTab');
    });
    await page.waitForURL(`${sites.origin}/jira-home`);
    await page.waitForTimeout(400);
    assert.deepEqual(asked(serverSince(mark)), ['GET /jira'], 'the debounced request was cancelled');
    assert.equal(serverSince(mark)[0]?.headers.authorization, undefined, 'navigations never carry the token');

    const opened = context.waitForEvent('page');
    await sw.evaluate(() => chrome.omnibox.onInputEntered.dispatch('gh/joestump', 'newForegroundTab'));
    const foreground = await opened;
    await foreground.waitForURL(`${sites.origin}/gh/joestump`);

    const openedBehind = context.waitForEvent('page');
    await sw.evaluate(() => chrome.omnibox.onInputEntered.dispatch('docs/article', 'newBackgroundTab'));
    const background = await openedBehind;
    await background.waitForURL(`${sites.origin}/article`);
    const activeOf = (url: string) =>
      sw.evaluate((u: string) => chrome.tabs.query({ url: u }).then((tabs: Array<{ active: boolean }>) => tabs.map((t) => t.active)), url);
    assert.deepEqual(await activeOf(`${sites.origin}/gh/joestump`), [true], 'newForegroundTab is active');
    assert.deepEqual(await activeOf(`${sites.origin}/article`), [false], 'newBackgroundTab is not');
    await foreground.close();
    await background.close();
  });

  test('the popup creates a link for the current tab', { timeout: 90_000 }, async () => {
    await page.goto(`${sites.origin}/article`);
    await page.bringToFront();
    const mark = proxy.seen.length;
    // Acceptance (docs/agents.md#browser-extension): the suggestion endpoint answers 503, as a server without a
    // language model does (docs/agents.md#llm-suggestions); everything else is the real server.
    proxy.override = (req) =>
      req.method === 'POST' && req.url === '/api/v1/links/suggest'
        ? [503, { error: 'LLM suggestions are not configured', code: 'LLM_NOT_CONFIGURED' }]
        : null;
    let popup = await PopupDriver.open(cdp, sw);
    try {
      assert.equal(await popup.text('#slug-prefix'), 'go/');
      assert.equal(await popup.value('#url'), `${sites.origin}/article`);
      assert.equal(await popup.value('#title'), 'Team handbook');
      assert.equal(await popup.eval('document.activeElement?.id'), 'slug');
      assert.equal(await popup.visible('#no-key'), false);

      // The link that already points here, and the keyword template that frames this URL.
      assert.deepEqual(await popup.eval('[...document.querySelectorAll("#existing-rows code")].map((c) => c.textContent)'), [
        'go/handbook',
      ]);
      assert.deepEqual(await popup.eval('[...document.querySelectorAll("#shortcut-rows code")].map((c) => c.textContent)'), [
        'docs/article',
      ]);
      assert.equal(await popup.value('#slug'), 'article', 'prefilled from the shortcut');

      // The suggestion request went out with the page's own title and description.
      await eventually(() => proxy.seen.slice(mark).some((r) => r.url === '/api/v1/links/suggest'));
      const suggest = proxy.seen.slice(mark).find((r) => r.url === '/api/v1/links/suggest')!;
      assert.deepEqual(JSON.parse(suggest.body), {
        url: `${sites.origin}/article`,
        title: 'Team handbook',
        description: 'Everything about the team',
      });
      const fromPopup = proxy.seen.slice(mark);
      assert.deepEqual(paths(fromPopup).sort(), [
        `GET /api/v1/keywords/templates`,
        `GET /api/v1/links?url=${encodeURIComponent(`${sites.origin}/article`)}`,
        'POST /api/v1/links/suggest',
      ]);
      for (const r of fromPopup) assert.equal(r.headers.authorization, `Bearer ${token}`, r.url);
      // 503: no strip, no error.
      await page.waitForTimeout(300);
      assert.equal(await popup.visible('#suggestions'), false);
      assert.equal(await popup.text('#result'), '');

      // Fill in the form the way a user would.
      await popup.click('#slug');
      await popup.eval('document.getElementById("slug").select()');
      await popup.type('team-handbook');
      await popup.click('#tag-input');
      await popup.type('Engineering');
      await popup.press('Enter');
      await popup.type('On Call,ops');
      await popup.press('Backspace');
      await popup.press('Backspace');
      await popup.press('Backspace');
      await popup.press('Backspace'); // on the empty field: removes "on-call"
      await popup.type('Docs');
      await popup.eval('document.getElementById("visibility").focus()'); // blur adds "docs"
      assert.deepEqual(await popup.eval('[...document.querySelectorAll("#tag-pills li")].map((li) => li.firstChild.textContent)'), [
        'engineering',
        'docs',
      ]);
      await popup.eval('document.getElementById("visibility").value = "private"');
      await popup.click('#create');
      await eventually(async () => (await popup.text('#result')) !== '', 10_000);
      assert.match(await popup.text('#result p'), /^Link created( — copied to clipboard!)?$/);
      assert.equal(await popup.text('#result code'), 'go/team-handbook');
      assert.equal(await popup.value('#slug'), '', 'slug cleared');
      assert.deepEqual(await popup.eval('document.querySelectorAll("#tag-pills li").length'), 0, 'tags cleared');
      assert.equal(await popup.value('#visibility'), 'public', 'visibility reset');

      const row = await s.store.db.kysely.selectFrom('links').select('id').where('slug', '=', 'team-handbook').executeTakeFirst();
      assert.ok(row, 'the link exists');
      const view = await s.store.links.view(row.id);
      assert.equal(view?.url, `${sites.origin}/article`);
      assert.equal(view?.visibility, 'private');
      assert.equal(view?.title, 'Team handbook');
      assert.deepEqual(view?.tags.map((t) => t.slug).sort(), ['docs', 'engineering']);
      assert.deepEqual(
        view?.owners.map((o) => [o.userId, o.isPrimary]),
        [[userId, true]],
      );

      // The server's refusal is shown as the server worded it.
      await popup.click('#slug');
      await popup.type('team-handbook');
      await popup.click('#create');
      await eventually(async () => /taken|exists/i.test(await popup.text('#result')), 10_000);
      // Local validation needs no round trip.
      await popup.eval('document.getElementById("slug").value = ""');
      await popup.click('#create');
      await eventually(async () => (await popup.text('#result')) === 'URL and slug are required.');
    } finally {
      proxy.override = null;
      await popup.close();
    }

    // A server that offers suggestions gets a strip; its text is shown as text, never as markup.
    proxy.override = (req) =>
      req.method === 'POST' && req.url === '/api/v1/links/suggest'
        ? [
            200,
            {
              slug: 'team-docs',
              title: '<img src=x onerror="document.title=1">Handbook',
              description: 'All about us',
              tags: ['Engineering', 'On Call'],
            },
          ]
        : null;
    try {
      popup = await PopupDriver.open(cdp, sw);
      await eventually(() => popup.visible('#suggestions'), 10_000);
      assert.deepEqual(await popup.eval('[...document.querySelectorAll("#suggestion-rows .suggested")].map((e) => e.textContent)'), [
        'team-docs',
        '<img src=x onerror="document.title=1">Handbook',
        'All about us',
        'Engineering, On Call',
      ]);
      assert.equal(await popup.eval('document.querySelectorAll("img").length'), 0, 'no element was created from server text');
      await popup.click('#suggestion-rows li:nth-child(1) button');
      assert.equal(await popup.value('#slug'), 'team-docs');
      await popup.click('#suggestion-rows li:nth-child(3) button');
      assert.equal(await popup.value('#description'), 'All about us');
      assert.equal(await popup.eval('document.getElementById("more").open'), true, '"More details" opened');
      await popup.click('#suggestion-rows li:nth-child(4) button');
      assert.deepEqual(await popup.eval('[...document.querySelectorAll("#tag-pills li")].map((li) => li.firstChild.textContent)'), [
        'engineering',
        'on-call',
      ]);
      await popup.click('#dismiss-suggestions');
      assert.equal(await popup.visible('#suggestions'), false);
    } finally {
      proxy.override = null;
      await popup.close();
    }
  });

  test('the token only ever went to the configured server, and only on API calls', () => {
    for (const r of sites.seen) assert.equal(r.headers.authorization, undefined, `destination site got ${r.url} with a token`);
    for (const r of proxy.seen) {
      if (r.headers.authorization !== undefined) {
        assert.match(r.url, /^\/api\/v1\//, `${r.method} ${r.url}`);
        assert.equal(r.headers.authorization, `Bearer ${token}`);
      }
      assert.equal(r.headers.cookie, undefined, `${r.method} ${r.url} carried a cookie`);
    }
    assert.deepEqual(problems, []);
  });
});
