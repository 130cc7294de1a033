import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { Link, User } from '../../src/store/types.js';
import { addClicks, DAY, HOUR, UA } from '../store/analyticsFixtures.js';
import {
  assertAccessible,
  chromiumSkip,
  htmxReady,
  launchBrowser,
  Problems,
  screenshot,
  signInLocal,
  useTheme,
  sidewaysOverflow,
} from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createLink } from '../helpers/links.js';

/**
 * The analytics pages in a real Chromium: click times rewritten to the
 * viewer's zone by static/js/localtime.js (checked in Asia/Kolkata, UTC+5:30,
 * where the chosen click falls on the next calendar day), the UTC text kept
 * without JavaScript, the 30/90 toggle swapping the chart over HTMX and
 * fragments localised after swaps, axe on every view, and screenshots of the
 * stats and analytics pages in both themes (test-results/).
 */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const utcDayStart = (ms: number) => Math.floor(ms / DAY) * DAY;

describe('analytics pages in a browser', { skip: chromiumSkip('analytics') }, () => {
  let s: TestServer;
  let browser: Browser;
  let alice: User;
  let admin: User;
  let docs: Link;
  let offset = 0;
  /** 20:00 UTC yesterday: 01:30 today in Kolkata, so the local date differs from the UTC one. */
  const clickAt = utcDayStart(Date.now()) - 4 * HOUR;
  const iso = new Date(clickAt).toISOString().replace(/\.000Z$/, 'Z');

  before(async () => {
    s = await startTestServer({ env: { JOE_SHORT_KEYWORD: 'go' }, start: { now: () => Date.now() + offset } });
    await s.scheduler.stop();
    alice = await s.store.users.create({ email: 'alice@x.io', displayName: 'Alice Smith' });
    admin = await s.store.users.create({ email: 'root@x.io', displayName: 'Ada Admin', role: 'admin' });
    const bob = await s.store.users.create({ email: 'bob@x.io', displayName: 'Bob Jones' });
    offset = -20 * DAY;
    docs = await createLink(s.store, { slug: 'docs', url: 'https://docs.example.com', title: 'Docs' }, alice.id);
    const vault = await createLink(s.store, { slug: 'vault', url: 'https://vault.example.com', visibility: 'secure' }, alice.id, {
      shareWith: [bob.id],
    });
    await createLink(s.store, { slug: 'old-wiki', url: 'https://old-wiki.example.com' }, alice.id);
    offset = 0;
    const now = Date.now();
    const uas = [UA.firefoxWindows, UA.chromeMac, UA.safariIphone, UA.edgeWindows, UA.curl];
    const refs = ['https://news.ycombinator.com/item', 'https://chat.example.com/', null, 'https://wiki.example.com/page', null];
    await addClicks(s.store, docs.id, [
      { at: clickAt, referrer: 'https://mail.example.com/', userId: bob.id, ua: UA.firefoxWindows },
      ...Array.from({ length: 240 }, (_, i) => ({
        at: now - Math.floor(((i * 37) % 80) * DAY + (i % 24) * HOUR),
        referrer: refs[i % refs.length]!,
        ua: uas[i % uas.length]!,
        userId: i % 4 === 0 ? bob.id : null,
      })),
    ]);
    await addClicks(
      s.store,
      vault.id,
      Array.from({ length: 12 }, (_, i) => ({ at: now - i * 9 * HOUR, userId: bob.id, referrer: 'https://intranet.example.com/' })),
    );
    await s.store.clickRollups.rollUp();
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await s?.stop();
  });

  async function session(
    user: User,
    opts: { theme?: 'joe-light' | 'joe-dark'; timezoneId?: string; width?: number; javaScriptEnabled?: boolean } = {},
  ) {
    const context = await browser.newContext({
      locale: 'en-US',
      timezoneId: opts.timezoneId ?? 'UTC',
      colorScheme: 'light',
      viewport: { width: opts.width ?? 1280, height: 900 },
      javaScriptEnabled: opts.javaScriptEnabled ?? true,
    });
    await useTheme(context, s.url, opts.theme ?? 'joe-light');
    const problems = new Problems(context);
    const page = await context.newPage();
    if (opts.javaScriptEnabled === false) {
      // Sign-in needs no script: the form posts.
      const token = await s.store.loginTokens.create(user.id);
      await page.goto(`${s.url}/auth/local?token=${token}`);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${s.url}/dashboard`);
    } else {
      await signInLocal(page, s, user);
      await htmxReady(page);
    }
    return { context, page, problems };
  }

  const statsUrl = () => `${s.url}/dashboard/links/${docs.id}/stats`;
  const clickTime = (page: Page) => page.locator(`#recent-clicks time[datetime="${iso}"]`);

  test(
    'click times read in the viewer’s zone (Asia/Kolkata), UTC kept in the title, and as UTC text without JavaScript',
    { timeout: 120_000 },
    async () => {
      const utcText = (() => {
        const d = new Date(clickAt);
        return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()} 8:00 PM UTC`;
      })();
      const local = new Date(clickAt + 5.5 * HOUR);
      const localDate = `${MONTHS[local.getUTCMonth()]} ${local.getUTCDate()}, ${local.getUTCFullYear()}`;

      const { context, page, problems } = await session(alice, { timezoneId: 'Asia/Kolkata' });
      await page.goto(statsUrl());
      await htmxReady(page);
      const el = clickTime(page);
      await page.waitForFunction(
        (sel) => document.querySelector(sel)?.hasAttribute('data-localized') === true,
        `#recent-clicks time[datetime="${iso}"]`,
      );
      const text = (await el.textContent())!.trim();
      assert.notEqual(text, utcText, 'rewritten');
      assert.ok(text.startsWith(localDate), `local calendar date (${localDate}), got ${text}`);
      assert.match(text, /\b1:30\sAM\b/, `01:30 in Kolkata, got ${text}`);
      assert.match(text, /GMT\+5:30/, `zone named, got ${text}`);
      assert.doesNotMatch(text, /UTC/);
      assert.equal(await el.getAttribute('datetime'), iso, 'the datetime attribute is untouched');
      const title = (await el.getAttribute('title'))!;
      assert.match(title, /8:00\sPM UTC$/, `UTC kept in the title, got ${title}`);
      assert.ok(title.startsWith(utcText.slice(0, utcText.indexOf(',') + 6)), `UTC date in the title, got ${title}`);
      // Every time element on the page was rewritten, none left in UTC.
      const left = await page.$$eval('time[datetime]', (els) => els.filter((e) => !e.hasAttribute('data-localized')).length);
      assert.equal(left, 0);
      await assertAccessible(page, 'stats page (Kolkata)');
      problems.assertNone();
      await context.close();

      const noJs = await session(alice, { timezoneId: 'Asia/Kolkata', javaScriptEnabled: false });
      await noJs.page.goto(statsUrl());
      assert.equal((await clickTime(noJs.page).textContent())!.trim(), utcText, 'the UTC text stays without JavaScript');
      assert.equal(await clickTime(noJs.page).getAttribute('title'), iso);
      // The toggle is a plain link without JavaScript.
      await noJs.page.getByRole('button', { name: '90 days' }).click();
      await noJs.page.waitForURL(`${statsUrl()}?days=90`);
      assert.equal(await noJs.page.locator('#stats-window svg[data-chart-layout="wide"] g[data-day]').count(), 90);
      noJs.problems.assertNone();
      await noJs.context.close();
    },
  );

  test(
    'the 30/90 toggle swaps the chart and breakdowns over HTMX and pushes the URL; swapped fragments are localised',
    { timeout: 120_000 },
    async () => {
      const { context, page, problems } = await session(alice, { timezoneId: 'America/New_York' });
      await page.goto(statsUrl());
      await htmxReady(page);
      assert.equal(await page.locator('#stats-window').getAttribute('data-days'), '30');
      assert.equal(await page.locator('#stats-window svg[data-chart-layout="wide"] g[data-day]').count(), 30);
      assert.equal(await page.locator('#stats-window svg[data-chart-layout="wide"][role="img"] title').count(), 30, 'a tooltip per day');
      const label = (await page.locator('#stats-window svg[data-chart-layout="wide"][role="img"]').getAttribute('aria-label'))!;
      assert.match(label, /^Daily clicks over the last 30 days/);

      let chartRequests = 0;
      page.on('request', (r) => {
        if (r.url().includes('/stats/chart?days=')) chartRequests++;
      });
      await page.getByRole('button', { name: '90 days' }).click();
      await page.locator('#stats-window[data-days="90"]').waitFor();
      assert.equal(chartRequests, 1, 'one HTMX request, no page load');
      assert.equal(page.url(), `${statsUrl()}?days=90`);
      assert.equal(await page.locator('#stats-window svg[data-chart-layout="wide"] g[data-day]').count(), 90);
      assert.equal(await page.getByRole('button', { name: '90 days' }).getAttribute('aria-pressed'), 'true');
      assert.ok(await page.locator('#recent-clicks').isVisible(), 'the rest of the page stays');
      await assertAccessible(page, 'stats page, 90 days');

      await page.getByRole('button', { name: '30 days' }).click();
      await page.locator('#stats-window[data-days="30"]').waitFor();
      assert.equal(await page.locator('#stats-window svg[data-chart-layout="wide"] g[data-day]').count(), 30);
      assert.equal(page.url(), `${statsUrl()}?days=30`);

      // The analytics dashboard's period toggle swaps panels holding <time> elements: they are localised after the swap.
      await page.goto(`${s.url}/dashboard/analytics`);
      await htmxReady(page);
      await page.locator('#never-clicked time[data-localized]').first().waitFor();
      await page.getByRole('button', { name: 'Month' }).click();
      await page.locator('#analytics-panels[data-period="month"]').waitFor();
      await page.waitForFunction(() => {
        const els = document.querySelectorAll('#analytics-panels time[datetime]');
        return els.length > 0 && Array.from(els).every((e) => e.hasAttribute('data-localized'));
      });
      assert.equal(page.url(), `${s.url}/dashboard/analytics?period=month`);
      assert.doesNotMatch((await page.locator('#never-clicked time').first().textContent())!, /UTC/);
      await assertAccessible(page, 'analytics dashboard, month');
      problems.assertNone();
      await context.close();
    },
  );

  for (const theme of ['joe-light', 'joe-dark'] as const) {
    test(`stats and analytics pages in ${theme}: axe, no sideways scroll at 375 px, screenshots`, { timeout: 180_000 }, async () => {
      for (const width of [1280, 375]) {
        for (const [who, user] of [
          ['owner', alice],
          ['admin', admin],
        ] as const) {
          const { context, page, problems } = await session(user, { theme, width, timezoneId: 'Europe/Berlin' });
          const pages: Array<[string, string]> =
            who === 'owner'
              ? [
                  ['analytics-stats', `/dashboard/links/${docs.id}/stats?days=90`],
                  ['analytics-dashboard', '/dashboard/analytics'],
                ]
              : [['analytics-dashboard-all', '/dashboard/analytics?scope=all&period=month']];
          for (const [name, path] of pages) {
            await page.goto(`${s.url}${path}`);
            await htmxReady(page);
            assert.equal(await page.getAttribute('html', 'data-theme'), theme);
            const overflow = await sidewaysOverflow(page);
            assert.ok(overflow <= 0, `${name} at ${width}px scrolls sideways by ${overflow}px`);
            await assertAccessible(page, `${name} (${theme}, ${width}px)`);
            if (name === 'analytics-stats') {
              // Bars take the theme's link colour, which differs between the themes and from the page background.
              const [bar, bg] = await page.evaluate(() => [
                getComputedStyle(document.querySelector('#stats-window g[data-kind="bar"] rect.link-brand')!).color,
                getComputedStyle(document.body).backgroundColor,
              ]);
              assert.notEqual(bar, bg);
              assert.equal(bar, theme === 'joe-light' ? 'rgb(126, 34, 206)' : 'rgb(216, 180, 254)');
            }
            await screenshot(page, `${name}-${theme}-${width}`);
          }
          problems.assertNone();
          await context.close();
        }
      }
    });
  }
});
