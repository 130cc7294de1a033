import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { asUser } from '../../src/links/index.js';
import type { User } from '../../src/store/types.js';
import { chromiumSkip, htmxReady, launchBrowser, Problems, screenshot, signInLocal } from '../helpers/browser.js';
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
});
