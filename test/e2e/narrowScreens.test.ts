import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { asUser } from '../../src/links/index.js';
import type { User } from '../../src/store/types.js';
import { randomUUID } from 'node:crypto';
import { chromiumSkip, htmxReady, launchBrowser, Problems, screenshot, signInLocal, wordsSplitMidWord } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * What grows with what people type or do stays inside a 375 px screen and inside its box
 * (docs/web-ui.md#rendering-conventions): the bell's unread count, long words and URLs.
 */

describe('long counts and long text on a phone', { skip: chromiumSkip('narrow screens') }, () => {
  let s: TestServer;
  let browser: Browser;
  let alice: User;
  let admin: User;
  let handbookId = '';

  before(async () => {
    s = await startTestServer({ env: { JOE_SHORT_KEYWORD: 'go', JOE_JOB_TICK: '1h' } });
    alice = await s.store.users.create({ email: 'alice@example.com', displayName: 'Alice Smith' });
    admin = await s.store.users.create({ email: 'admin@example.com', displayName: 'Ada Admin', role: 'admin' });
    const handbook = await s.links.create(asUser(alice), { slug: 'handbook', url: 'https://wiki.example.com/handbook', title: 'Handbook' });
    handbookId = handbook.id;
    // Analytics' top links: an ordinary slug beside its figures.
    const onboarding = await s.links.create(asUser(alice), {
      slug: 'onboarding',
      url: 'https://wiki.example.com/onboarding',
      title: 'Onboarding',
    });
    const now = Date.now();
    await s.store.clicks.insertBatch(
      Array.from({ length: 1234 }, (_, i) => ({
        id: randomUUID(),
        link_id: onboarding.id,
        user_id: null,
        ip_hash: 'h',
        user_agent: null,
        referrer: null,
        clicked_at: now - (i % 5) * 3_600_000,
      })),
    );
    await s.store.webhooks.create({
      url: `https://hooks.example.com/services/T0000/B0000/${'incoming-webhook-endpoint/'.repeat(3)}XXXXXXXXXXXXXXXXXXXXXXXX`,
      events: ['*'],
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    });
    await s.store.keywords.create({
      keyword: 'confluence',
      urlTemplate: 'https://confluence.example.com/wiki/spaces/ENGINEERING/pages/search?text={slug}&space=ENG',
      description: 'Engineering wiki pages',
    });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await s?.stop();
  });

  /** Someone else changes Alice's link until she has `unread` unread notifications. */
  async function unreadUpTo(unread: number): Promise<void> {
    for (let i = 0; (await s.store.notifications.unreadCount(alice.id)) < unread; i++) {
      await s.links.update(asUser(admin), handbookId, { title: `Handbook, edition ${unread}.${i}` });
    }
  }

  for (const [unread, shown] of [
    [12, '12'],
    [100, '99+'],
  ] as const) {
    test(`${shown} unread notifications keep every page inside 375 px`, { timeout: 120_000 }, async () => {
      await unreadUpTo(unread);
      const context = await browser.newContext({ viewport: { width: 375, height: 812 } });
      const problems = new Problems(context);
      const page = await context.newPage();
      await signInLocal(page, s, alice);
      for (const path of ['/dashboard', '/notifications', '/dashboard/tags']) {
        await page.goto(`${s.url}${path}`);
        await htmxReady(page);
        const bell = page.locator('#notification-bell-mobile');
        assert.equal((await bell.locator('.badge').textContent())?.trim(), shown, `${path}: the bell counts ${shown}`);
        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(width <= 375, `${path} with ${shown} unread is ${width}px wide`);
        const badge = (await bell.locator('.badge').boundingBox())!;
        assert.ok(badge.x + badge.width <= 375, `${path}: the count ends at ${badge.x + badge.width}px`);
      }
      await screenshot(page, `bell-${unread}-unread-375`);
      problems.assertNone();
      await context.close();
    });
  }

  /**
   * Elements whose content spills out of their own box or past the edge of the page's main
   * area: a button's text beside it, a cell's URL under its neighbour.
   */
  const spills = (page: Page) =>
    page.evaluate(() => {
      const main = document.querySelector('main')!.getBoundingClientRect();
      const out: string[] = [];
      for (const el of Array.from(document.querySelectorAll('main *'))) {
        if (el.closest('svg, pre') || el.getClientRects().length === 0) continue;
        const r = el.getBoundingClientRect();
        const what = `${el.tagName.toLowerCase()}.${el.className} "${(el.textContent ?? '').trim().slice(0, 30)}"`;
        if (r.right > main.right + 1 || r.left < main.left - 1) out.push(`${what} past the page`);
        else if (['visible', 'clip'].includes(getComputedStyle(el).overflowX) && el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0)
          out.push(`${what} spills out of its box (${el.scrollWidth} in ${el.clientWidth})`);
      }
      return out;
    });

  /**
   * Words of the page that break across lines. A table lets a cell whose text may break anywhere
   * shrink until it does, so the page-wide check (which allows a break in a word wider than its
   * box) misses it: these words are short enough for any box.
   */
  const brokenWords = (page: Page, words: readonly string[]) =>
    page.evaluate((words) => {
      const out: string[] = [];
      const walker = document.createTreeWalker(document.querySelector('main')!, NodeFilter.SHOW_TEXT);
      const range = document.createRange();
      // A word may be split over text nodes by <wbr>: read the text of each element whole.
      const seen = new Set<Element>();
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const el = node.parentElement!;
        if (seen.has(el) || el.getClientRects().length === 0) continue;
        seen.add(el);
        for (const word of words) {
          for (const text of Array.from(el.childNodes).filter((n): n is Text => n instanceof Text)) {
            const at = text.data.indexOf(word);
            if (at === -1) continue;
            range.setStart(text, at);
            range.setEnd(text, at + word.length);
            const tops = new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top)));
            if (tops.size > 1) out.push(`"${word}" in ${el.tagName.toLowerCase()}`);
          }
        }
      }
      return out;
    }, words);

  for (const width of [375, 1280]) {
    test(`long words, URLs and slugs stay whole and inside their boxes at ${width} px`, { timeout: 120_000 }, async () => {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      const problems = new Problems(context);
      problems.allow((path, status) => path.startsWith('/a-link-nobody-made') && status === 404);
      const page = await context.newPage();
      await signInLocal(page, s, admin);
      await s.links.addOwner(asUser(alice), handbookId, admin.email).catch(() => undefined);
      for (const [name, path, words] of [
        ['analytics', '/dashboard/analytics?scope=all', ['onboarding']],
        ['webhooks', '/admin/webhooks', ['services', 'T0000', 'B0000']],
        ['keywords', '/admin/keywords', ['confluence', 'ENGINEERING', 'spaces', 'search']],
        ['new-link help', '/dashboard/links/new', ['$ticket', 'browse', 'ABC-123']],
        ['not found', `/a-link-nobody-made-${'with-a-long-name-'.repeat(3)}andmoremore`, ['nobody', 'andmoremore']],
      ] as const) {
        await page.goto(`${s.url}${path}`);
        await htmxReady(page);
        await screenshot(page, `long-text-${name.replace(' ', '-')}-${width}`);
        assert.deepEqual(await wordsSplitMidWord(page), [], `${name} at ${width}px breaks words that would fit on a line`);
        assert.deepEqual(await spills(page), [], `${name} at ${width}px`);
        assert.deepEqual(await brokenWords(page, words), [], `${name} at ${width}px breaks words inside`);
      }
      problems.assertNone();
      await context.close();
    });
  }
});
