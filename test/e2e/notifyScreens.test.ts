import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { asSystem, asUser } from '../../src/links/index.js';
import type { User } from '../../src/store/types.js';
import { outboxDispatcher } from '../../src/workers/jobs.js';
import { checkScreen, chromiumSkip, htmxReady, launchBrowser, Problems, screenshot, signInLocal } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The notification and webhook pages in Chromium (docs/web-ui.md#notifications,
 * docs/web-ui.md#webhooks): both themes at 1280 and 375 px, axe without
 * serious findings, nothing scrolling sideways, no console error under the
 * CSP; then marking read with HTMX updates the row and the bell.
 */

const THEMES = ['joe-light', 'joe-dark'] as const;
const WIDTHS = [1280, 375] as const;
const quiet = { info() {}, warn() {}, error() {}, debug() {}, fatal() {}, trace() {}, child: () => quiet, level: 'silent' };

describe('notification and webhook pages', { skip: chromiumSkip('notify screens') }, () => {
  let s: TestServer;
  let browser: Browser;
  let alice: User;
  let admin: User;
  let hookId = '';

  before(async () => {
    s = await startTestServer({ env: { JOE_SHORT_KEYWORD: 'go', JOE_JOB_TICK: '1h' } });
    alice = await s.store.users.create({ email: 'alice@example.com', displayName: 'Alice Smith' });
    admin = await s.store.users.create({ email: 'admin@example.com', displayName: 'Ada Admin', role: 'admin' });
    const hook = await s.store.webhooks.create({
      url: 'https://hooks.example.com/joe-links/incoming',
      events: ['*'],
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    });
    hookId = hook.id;
    const handbook = await s.links.create(asUser(alice), { slug: 'handbook', url: 'https://wiki.example.com/handbook', title: 'Handbook' });
    await s.links.update(asUser(admin), handbook.id, { title: 'Team handbook', description: 'Everything about how we work' });
    await s.links.addOwner(asUser(admin), handbook.id, admin.email);
    await s.links.create(asSystem('cli'), {
      slug: 'a-very-long-slug-name-that-keeps-going-for-a-while',
      url: 'https://x.example.com/',
      ownerId: alice.id,
    });
    const vault = await s.links.create(asUser(admin), { slug: 'vault', url: 'https://vault.example.com/', visibility: 'secure' });
    await s.links.addShare(asUser(admin), vault.id, alice.email);
    const [first] = (await s.store.notifications.page(alice.id, { limit: 1 })).items;
    await s.store.notifications.markRead(alice.id, [first!.id]);
    // Deliveries to the (unreachable, private-refused) endpoint leave a log to look at.
    await outboxDispatcher({ config: s.config, store: s.store, sqlite: null, metrics: s.metrics, log: quiet as never }).drain();
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await s?.stop();
  });

  const check = (page: Page, problems: Problems, name: string, theme: string, width: number) =>
    checkScreen(page, problems, `notify-${name}-${theme}-${width}`, { name, theme, width });

  for (const theme of THEMES) {
    for (const width of WIDTHS) {
      test(`${theme} at ${width}px`, { timeout: 180_000 }, async () => {
        for (const [user, pages] of [
          [
            alice,
            [
              ['notifications', '/notifications'],
              ['settings', '/dashboard/settings/notifications'],
            ],
          ],
          [
            admin,
            [
              ['webhooks', '/admin/webhooks'],
              ['deliveries', `/admin/webhooks/${hookId}`],
            ],
          ],
        ] as const) {
          const context = await browser.newContext({ viewport: { width, height: 900 } });
          await context.addCookies([{ name: 'theme', value: theme, url: s.url }]);
          const problems = new Problems(context);
          const page = await context.newPage();
          await signInLocal(page, s, user);
          for (const [name, path] of pages) {
            await page.goto(`${s.url}${path}`);
            await check(page, problems, name, theme, width);
          }
          await context.close();
        }
      });
    }
  }

  test('marking read with HTMX updates the row and the bell; mark all clears the count', { timeout: 120_000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const problems = new Problems(context);
    const page = await context.newPage();
    await signInLocal(page, s, alice);
    await page.goto(`${s.url}/notifications`);
    await htmxReady(page);
    const bell = page.locator('#notification-bell');
    const unread = Number((await bell.getAttribute('aria-label'))!.match(/(\d+) unread/)![1]);
    assert.ok(unread >= 2);
    await page.getByRole('button', { name: 'Mark read' }).first().click();
    await page.waitForFunction(
      (n) => document.querySelector('#notification-bell')?.getAttribute('aria-label') === `Notifications, ${n} unread`,
      unread - 1,
    );
    assert.equal(await page.locator('#notifications-unread').textContent(), `${unread - 1} unread`);
    await page.getByRole('button', { name: 'Mark all read' }).click();
    await page.waitForFunction(() => document.querySelector('#notification-bell')?.getAttribute('aria-label') === 'Notifications');
    assert.equal(await page.getByRole('button', { name: 'Mark read' }).count(), 0);
    await screenshot(page, 'notify-all-read');
    problems.assertNone();
    await context.close();
  });
});
