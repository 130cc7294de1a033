import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { AxeResults, Result } from 'axe-core';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { User } from '../../src/store/types.js';
import { ROOT } from './paths.js';
import type { TestServer } from './server.js';

/**
 * Browser tests drive Debian's Chromium through playwright-core. Suites skip
 * with a printed notice when it is not installed:
 *
 *   describe('…', { skip: chromiumSkip('dashboard') }, () => { … })
 *
 * Pages are driven in Chromium's headless shell (Debian's
 * chromium-headless-shell) when it is installed: the same Blink and V8 without
 * the full browser around them, which drew the suite's screens with about a
 * third less CPU. A test that needs the full browser (an extension, flags of
 * its own) gets /usr/bin/chromium.
 */

export const CHROMIUM = '/usr/bin/chromium';
export const HEADLESS_SHELL = '/usr/bin/chromium-headless-shell';
/** The binary pages are tested in. */
export const PAGE_BROWSER = existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : CHROMIUM;
export const RESULTS_DIR = join(process.cwd(), 'test-results');

export function chromiumSkip(suite: string): string | false {
  if (existsSync(CHROMIUM)) return false;
  process.stderr.write(`NOTICE: ${CHROMIUM} is missing; the ${suite} browser tests are skipped\n`);
  return `${CHROMIUM} not found`;
}

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Set by the test runner (scripts/test.mjs): the address of the one Chromium it started for the whole run. */
const SHARED_BROWSER = 'JOE_TEST_BROWSER_WS';

/**
 * A browser for one test file. Under the test runner, a connection to the one
 * Chromium it started for the run (each file still works in contexts of its
 * own, and `close()` drops only those); otherwise a Chromium of the file's
 * own, the full browser when the file passes flags of its own.
 */
export async function launchBrowser(extraArgs: string[] = []): Promise<Browser> {
  const shared = process.env[SHARED_BROWSER];
  if (shared && extraArgs.length === 0) return chromium.connect(shared);
  return chromium.launch({ executablePath: extraArgs.length > 0 ? CHROMIUM : PAGE_BROWSER, args: [...CHROMIUM_ARGS, ...extraArgs] });
}

/** Starts the Chromium a test run shares; the runner passes its address to each file in `JOE_TEST_BROWSER_WS`. */
export async function launchSharedBrowser(): Promise<{ env: Record<string, string>; close(): Promise<void> }> {
  const server = await chromium.launchServer({ executablePath: PAGE_BROWSER, args: CHROMIUM_ARGS });
  return { env: { [SHARED_BROWSER]: server.wsEndpoint() }, close: () => server.close() };
}

/**
 * Collects what should never happen on a page: uncaught errors, console
 * errors (CSP violations are reported there), and failed responses other
 * than the ones a test expects.
 */
export class Problems {
  readonly list: string[] = [];
  private readonly allowed: Array<(url: string, status: number) => boolean> = [];
  private readonly allowedConsole: RegExp[] = [];

  /** `origin`: only watch pages and responses of this origin (an identity provider's pages are not ours). */
  constructor(context: BrowserContext, opts: { origin?: string } = {}) {
    const ours = (url: string) => opts.origin === undefined || url.startsWith(opts.origin);
    context.on('weberror', (e) => {
      if (ours(e.page()?.url() ?? '')) this.list.push(`page error: ${e.error().message}`);
    });
    context.on('console', (m) => {
      // A failed load is reported (or allowed) below with its URL.
      if (m.type() !== 'error' || m.text().startsWith('Failed to load resource') || !ours(m.page()?.url() ?? '')) return;
      if (this.allowedConsole.some((re) => re.test(m.text()))) return;
      this.list.push(`console: ${m.text()}`);
    });
    context.on('response', (r) => {
      if (!ours(r.url())) return;
      const url = new URL(r.url());
      // Browsers ask for a favicon on their own; the app has none.
      if (r.status() < 400 || url.pathname === '/favicon.ico') return;
      if (this.allowed.some((ok) => ok(url.pathname, r.status()))) return;
      this.list.push(`${r.status()} ${r.request().method()} ${url.pathname}`);
    });
  }

  /** Lets a test expect a failing response (a 404 page it navigates to on purpose). */
  allow(ok: (path: string, status: number) => boolean): void {
    this.allowed.push(ok);
  }

  /** Lets a test expect a console error (HTMX logs the error responses a test provokes). */
  allowConsole(re: RegExp): void {
    this.allowedConsole.push(re);
  }

  assertNone(): void {
    assert.deepEqual(this.list, [], 'no page errors, console errors, CSP violations or unexpected failed requests');
  }
}

/** Signs `user` in through a local-mode one-time link, as a person would, and lands on the dashboard. */
export async function signInLocal(page: Page, s: TestServer, user: User): Promise<void> {
  const token = await s.store.loginTokens.create(user.id);
  await page.goto(`${s.url}/auth/local?token=${token}`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${s.url}/dashboard`);
}

/** Waits until HTMX has loaded and processed the page, so hx-* controls are live. */
export async function htmxReady(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const w = window as unknown as { htmx?: { config?: { allowEval?: boolean } } };
    return w.htmx !== undefined && document.readyState === 'complete' && w.htmx.config?.allowEval === false;
  });
}

/**
 * Waits until the short CSS animations and transitions running on the page (a modal fading
 * in, a drawer sliding) have run their course: what is drawn then is what stays. Longer ones
 * (a toast's countdown) and paused or endless ones are the page's state, not a change of it.
 */
export async function animationsSettled(page: Page): Promise<void> {
  // Bounded: an animation of a page being left (after a back navigation) may never report done.
  await page.evaluate(() =>
    Promise.race([
      Promise.all(
        document
          .getAnimations()
          .filter((a) => {
            const timing = a.effect?.getComputedTiming();
            return a.playState === 'running' && typeof timing?.endTime === 'number' && timing.endTime <= 1_000;
          })
          .map((a) => a.finished.catch(() => undefined)),
      ),
      new Promise((settle) => setTimeout(settle, 1_000)),
    ]),
  );
}

/** axe-core's browser build, read once per test process. */
let axeSource: string | undefined;
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/**
 * Runs axe on the page; serious and critical violations fail the test with their targets.
 * axe is injected once per document and asked for violations only: its passes, with every
 * node they matched, are not read here and took as long again to collect and copy out.
 */
export async function assertAccessible(page: Page, label: string): Promise<void> {
  // Colours half way through a fade (a modal opening) are not the page's colours.
  await animationsSettled(page);
  if (!(await page.evaluate(() => 'axe' in window))) {
    axeSource ??= readFileSync(createRequire(join(ROOT, 'package.json')).resolve('axe-core/axe.min.js'), 'utf8');
    await page.evaluate(axeSource);
  }
  const violations = await page.evaluate(
    (tags) =>
      (window as unknown as { axe: { run(ctx: Document, o: object): Promise<AxeResults> } }).axe
        .run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] })
        .then((r) => r.violations),
    AXE_TAGS,
  );
  const bad = violations.filter((v: Result) => v.impact === 'serious' || v.impact === 'critical');
  const report = bad.map(
    (v) =>
      `${v.id} (${v.impact}): ${v.help}\n  ${v.nodes.map((n) => `${n.target.join(' ')} — ${n.failureSummary?.split('\n').join(' ')}`).join('\n  ')}`,
  );
  assert.deepEqual(report, [], `accessibility violations on ${label}`);
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(RESULTS_DIR, { recursive: true });
  await page.screenshot({ path: join(RESULTS_DIR, `${name}.png`), fullPage: true });
}

/** The page scrolls sideways by this many pixels (0 when it fits). */
export async function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}

/**
 * Words of the page's main content that wrap across lines although they
 * would fit on one line of their box: a slug or a word may only be broken
 * inside when it is wider than its box (docs/web-ui.md#rendering-conventions).
 * A word here is a run of characters between spaces and hyphens, where
 * browsers break lines anyway. Code blocks are exempt.
 */
export async function wordsSplitMidWord(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    const root = document.querySelector('main') ?? document.body;
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const range = document.createRange();
    for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
      const el = node.parentElement;
      if (!el || el.closest('pre, code, svg') || el.getClientRects().length === 0) continue;
      // The width of the line box the node's words wrap in, measured once a word of it wraps.
      let room: number | undefined;
      for (const m of node.data.matchAll(/[^\s-]{2,}/g)) {
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const rects = Array.from(range.getClientRects()).filter((r) => r.width > 0);
        if (new Set(rects.map((r) => Math.round(r.top))).size <= 1) continue;
        // Written inline, not as a named helper: the test runner's transform would name it
        // through a global the page lacks.
        room ??= (() => {
          // The nearest ancestor that is not inline; text beside elements in a row of a flex
          // or grid box gets what they leave.
          let box: Element | null = el;
          while (box && ['inline', 'contents'].includes(getComputedStyle(box).display)) box = box.parentElement;
          if (!box) return Infinity;
          const style = getComputedStyle(box);
          let width = box.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
          if (box === el && /flex|grid/.test(style.display) && !style.flexDirection.startsWith('column')) {
            const gap = parseFloat(style.columnGap) || 0;
            for (const child of Array.from(box.children)) width -= child.getBoundingClientRect().width + gap;
          }
          return width;
        })();
        const width = rects.reduce((sum, r) => sum + r.width, 0);
        if (width <= room) found.push(`"${m[0]}" in ${el.tagName.toLowerCase()}.${el.className}`);
      }
    }
    return found;
  });
}

/**
 * What every page passes at every width (docs/web-ui.md#rendering-conventions): the theme
 * applied, no sideways scroll of the page nor of any box inside it (code blocks excepted),
 * axe without serious findings, no console errors; a screenshot is written to look at.
 */
export async function checkScreen(
  page: Page,
  problems: Problems,
  shot: string,
  at: { name: string; theme: string; width: number },
): Promise<void> {
  const { name, theme, width } = at;
  await htmxReady(page);
  assert.equal(await page.getAttribute('html', 'data-theme'), theme, `${name}: theme applied`);
  // Written before the checks, so a failing screen can be looked at.
  await screenshot(page, shot);
  const overflow = await sidewaysOverflow(page);
  assert.ok(overflow <= 0, `${name} at ${width}px scrolls sideways by ${overflow}px`);
  const scrolled = await page.evaluate(() =>
    Array.from(document.querySelectorAll('main *'))
      .filter(
        (e) => !e.closest('pre, code') && e.scrollWidth > e.clientWidth + 1 && ['auto', 'scroll'].includes(getComputedStyle(e).overflowX),
      )
      .map((e) => `${e.tagName.toLowerCase()}#${e.id}.${e.className} (${e.scrollWidth} in ${e.clientWidth})`),
  );
  assert.deepEqual(scrolled, [], `${name} at ${width}px hides content behind a sideways scroll`);
  assert.deepEqual(await wordsSplitMidWord(page), [], `${name} at ${width}px breaks words that would fit on a line`);
  await assertAccessible(page, `${name} (${theme}, ${width}px)`);
  problems.assertNone();
}

/** Sets the theme the way the toggle would persist it, before the first page load. */
export async function useTheme(context: BrowserContext, origin: string, theme: 'joe-light' | 'joe-dark'): Promise<void> {
  await context.addCookies([{ name: 'theme', value: theme, url: origin }]);
}
