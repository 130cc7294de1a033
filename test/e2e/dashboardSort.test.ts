import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { User } from '../../src/store/types.js';
import { checkScreen, chromiumSkip, htmxReady, launchBrowser, Problems, signInLocal, useTheme } from '../helpers/browser.js';
import { createLink } from '../helpers/links.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * "My links" recently used first (docs/web-ui.md#landing-and-dashboard): the admin's list of every
 * link opens with the links clicked last on top; anyone can switch between Name and Recently used,
 * and the address keeps the choice.
 */

describe('the dashboard sorted by last use', { skip: chromiumSkip('dashboard sort') }, () => {
  let s: TestServer;
  let browser: Browser;
  let alice: User;
  let admin: User;

  before(async () => {
    s = await startTestServer({ env: { JOE_SHORT_KEYWORD: 'go' } });
    alice = await s.store.users.create({ email: 'alice@example.com', displayName: 'Alice Smith' });
    admin = await s.store.users.create({ email: 'admin@example.com', displayName: 'Ada Admin', role: 'admin' });
    const ids: Record<string, string> = {};
    for (const slug of ['alpha', 'bravo', 'charlie', 'delta'])
      ids[slug] = (await createLink(s.store, { slug, url: `https://${slug}.example.com/`, title: `The ${slug} page` }, alice.id)).id;
    const now = Date.now();
    const click = (slug: string, ago: number) => ({
      id: randomUUID(),
      link_id: ids[slug]!,
      user_id: null,
      ip_hash: 'h',
      user_agent: null,
      referrer: null,
      clicked_at: now - ago,
    });
    await s.store.clicks.insertBatch([click('charlie', 60_000), click('alpha', 3_600_000), click('delta', 86_400_000)]);
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await s?.stop();
  });

  const order = (page: Page) =>
    page
      .locator('#link-list tr[data-link-row]')
      .evaluateAll((rows) => rows.map((r) => r.querySelector('.slug-name .link-brand')?.textContent ?? r.id));
  const pressed = (page: Page, name: string) =>
    page.getByRole('navigation', { name: 'Sort links by' }).getByRole('button', { name }).getAttribute('aria-pressed');

  for (const [theme, width] of [
    ['joe-light', 1280],
    ['joe-dark', 375],
  ] as const) {
    test(`an admin's list opens recently used first; Name sorts by name and the address keeps it (${theme}, ${width}px)`, async () => {
      const context = await browser.newContext({ viewport: { width, height: 900 }, hasTouch: width < 640 });
      await useTheme(context, s.url, theme);
      const problems = new Problems(context);
      const page = await context.newPage();
      await signInLocal(page, s, admin);
      await htmxReady(page);
      assert.deepEqual(await order(page), ['charlie', 'alpha', 'delta', 'bravo'], 'last clicked first, never clicked last');
      assert.equal(await pressed(page, 'Recently used'), 'true');
      await checkScreen(page, problems, `dashboard-sort-${theme}-${width}`, { name: 'dashboard sorted', theme, width });
      const name = page.getByRole('navigation', { name: 'Sort links by' }).getByRole('button', { name: 'Name' });
      await (width < 640 ? name.tap() : name.click());
      await page.waitForURL(`${s.url}/dashboard?sort=name`);
      await page.waitForFunction(() => document.querySelector('#link-list [aria-pressed="true"]')?.textContent === 'Name');
      assert.deepEqual(await order(page), ['alpha', 'bravo', 'charlie', 'delta']);
      await page.reload();
      await htmxReady(page);
      assert.deepEqual(await order(page), ['alpha', 'bravo', 'charlie', 'delta']);
      assert.equal(await pressed(page, 'Name'), 'true');
      problems.assertNone();
      await context.close();
    });
  }

  test('everyone else’s list opens by name and can be sorted recently used first', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const problems = new Problems(context);
    const page = await context.newPage();
    await signInLocal(page, s, alice);
    await htmxReady(page);
    assert.deepEqual(await order(page), ['alpha', 'bravo', 'charlie', 'delta']);
    assert.equal(await pressed(page, 'Name'), 'true');
    await page.getByRole('navigation', { name: 'Sort links by' }).getByRole('button', { name: 'Recently used' }).click();
    await page.waitForURL(`${s.url}/dashboard?sort=recent`);
    await page.waitForFunction(() => document.querySelector('#link-list [aria-pressed="true"]')?.textContent === 'Recently used');
    assert.deepEqual(await order(page), ['charlie', 'alpha', 'delta', 'bravo']);
    problems.assertNone();
    await context.close();
  });
});
