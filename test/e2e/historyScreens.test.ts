import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { asSystem, asUser } from '../../src/links/index.js';
import type { User } from '../../src/store/types.js';
import { checkScreen, chromiumSkip, htmxReady, launchBrowser, Problems, screenshot, signInLocal } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Link history in Chromium (docs/history.md#web-pages): the link page with its timeline and
 * the admin audit, both themes at 1280 and 375 px, axe without serious findings, nothing
 * scrolling sideways, no console error under the CSP; then Restore clicked once, Show older
 * clicked once.
 */

const THEMES = ['joe-light', 'joe-dark'] as const;
const WIDTHS = [1280, 375] as const;
const LONG_URL = `https://docs.example.com/${'a-rather-long-path-segment/'.repeat(6)}page.html?utm_source=${'q'.repeat(50)}`;

describe('link history screens', { skip: chromiumSkip('history screens') }, () => {
  let s: TestServer;
  let browser: Browser;
  let alice: User;
  let admin: User;
  let handbookId = '';

  before(async () => {
    s = await startTestServer({ env: { JOE_SHORT_KEYWORD: 'go', JOE_JOB_TICK: '1h' } });
    alice = await s.store.users.create({ email: 'alice@example.com', displayName: 'Alice Smith' });
    const bob = await s.store.users.create({ email: 'bob@example.com', displayName: 'Bob Jones' });
    admin = await s.store.users.create({ email: 'admin@example.com', displayName: 'Ada Admin', role: 'admin' });
    const a = asUser(alice, 'web');
    const link = await s.links.create(a, {
      slug: 'handbook',
      url: 'https://wiki.example.com/handbook',
      title: 'Handbook',
      tags: ['docs'],
    });
    handbookId = link.id;
    await s.links.update(a, link.id, {
      url: LONG_URL,
      title: 'Team handbook',
      description: 'Everything about how we work, from onboarding to the on-call rota.',
      tags: ['docs', 'onboarding', 'a-very-long-tag-name-for-wrapping'],
      visibility: 'secure',
      expiresAt: Date.now() + 90 * 86_400_000,
    });
    await s.links.addOwner(a, link.id, bob.email);
    await s.links.addShare(a, link.id, admin.email);
    await s.links.update(asSystem('cli', bob), link.id, { aliases: ['hb', 'team-handbook'] });
    await s.links.archive(a, link.id);
    await s.links.unarchive(a, link.id);
    await s.links.update(asSystem('cli'), link.id, { healthChecksDisabled: true });
    // Enough events for a second page on the link, and a deleted link in the audit.
    for (let i = 1; i <= 45; i++) await s.links.update(a, link.id, { title: `Team handbook, revision ${i}` });
    const gone = await s.links.create(a, { slug: 'a-very-long-slug-name-that-was-deleted-later-on', url: 'https://gone.example.com/' });
    await s.links.delete(a, gone.id);
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await s?.stop();
  });

  const check = (page: Page, problems: Problems, name: string, theme: string, width: number) =>
    checkScreen(page, problems, `history-${name}-${theme}-${width}`, { name, theme, width });

  for (const theme of THEMES) {
    for (const width of WIDTHS) {
      test(`${theme} at ${width}px`, { timeout: 180_000 }, async () => {
        const context = await browser.newContext({ viewport: { width, height: 900 } });
        await context.addCookies([{ name: 'theme', value: theme, url: s.url }]);
        const problems = new Problems(context);
        const page = await context.newPage();
        await signInLocal(page, s, admin);
        await page.goto(`${s.url}/dashboard/links/${handbookId}`);
        await page.locator('#history-section').waitFor();
        await check(page, problems, 'link', theme, width);
        await page.goto(`${s.url}/admin/audit`);
        await check(page, problems, 'audit', theme, width);
        await page.goto(`${s.url}/admin/audit?kind=deleted`);
        await check(page, problems, 'audit-deleted', theme, width);
        await context.close();
      });
    }
  }

  test('Show older appends the next page; Restore puts a version back and says so', { timeout: 120_000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const problems = new Problems(context);
    const page = await context.newPage();
    await signInLocal(page, s, alice);
    await page.goto(`${s.url}/dashboard/links/${handbookId}`);
    await htmxReady(page);
    const events = page.locator('#history-list > li.history-item');
    assert.equal(await events.count(), 20);
    // Each click appends the next page in place of the control, until the oldest event.
    while ((await page.locator('#history-more').count()) > 0) {
      const before = await events.count();
      await page.getByRole('link', { name: 'Show older' }).click();
      await page.waitForFunction((n) => document.querySelectorAll('#history-list > li.history-item').length > n, before);
    }
    await page.locator('#history-list > li.history-item[data-kind="created"]').waitFor();
    const total = await events.count();
    assert.ok(total > 40, `the older pages were appended (${total} events)`);
    assert.equal(await page.locator('#history-more').count(), 0);

    const created = page.locator('#history-list > li.history-item[data-kind="created"]');
    await created.getByRole('button', { name: /^Restore the version of / }).click();
    await page
      .locator('#toast-area')
      .getByText(/^Restored the version of .+\.$/)
      .waitFor();
    const newest = page.locator('#history-list > li.history-item').first();
    assert.equal(await newest.getAttribute('data-kind'), 'restored');
    await newest.getByText('current version').waitFor();
    assert.equal(await page.locator('#link-detail a[href="https://wiki.example.com/handbook"]').count(), 1);
    assert.equal((await s.store.links.get(handbookId))!.title, 'Handbook');
    await screenshot(page, 'history-restored');
    problems.assertNone();
    await context.close();
  });
});
