import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { User } from '../../src/store/types.js';
import { animationsSettled, chromiumSkip, htmxReady, launchBrowser, Problems, screenshot, signInLocal } from '../helpers/browser.js';
import { createLink } from '../helpers/links.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The link list's cards on a phone (docs/web-ui.md#link-tables), tapped as a person taps them:
 * the open menu of a card sits above the cards after it, so its Delete takes the tap meant
 * for it; Escape and a tap outside close it with the focus back on its ⋮ button.
 */

const SLUGS = ['alpha', 'bravo', 'charlie', 'delta', 'echo'];

describe('link cards on a phone', { skip: chromiumSkip('phone cards') }, () => {
  let s: TestServer;
  let browser: Browser;
  let alice: User;

  before(async () => {
    s = await startTestServer({ env: { JOE_SHORT_KEYWORD: 'go' } });
    alice = await s.store.users.create({ email: 'alice@example.com', displayName: 'Alice Smith' });
    for (const slug of SLUGS) {
      await createLink(
        s.store,
        { slug, url: `https://${slug}.example.com/some/longer/path/to/${slug}`, title: `The ${slug} page` },
        alice.id,
      );
    }
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await s?.stop();
  });

  async function phoneDashboard(
    theme: 'joe-light' | 'joe-dark' = 'joe-light',
  ): Promise<{ page: Page; problems: Problems; close(): Promise<void> }> {
    const context = await browser.newContext({ viewport: { width: 375, height: 812 }, hasTouch: true });
    await context.addCookies([{ name: 'theme', value: theme, url: s.url }]);
    const problems = new Problems(context);
    const page = await context.newPage();
    await signInLocal(page, s, alice);
    await htmxReady(page);
    return { page, problems, close: () => context.close() };
  }

  const focusedLabel = (page: Page) =>
    page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.tagName);

  test('the open menu of the first card takes the tap on its Delete', { timeout: 60_000 }, async () => {
    const { page, problems, close } = await phoneDashboard();
    const first = page.locator('tr[data-link-row]', { hasText: 'go/alpha' });
    await first.locator('summary[aria-label="Actions for go/alpha"]').click();
    const del = first.getByRole('link', { name: 'Delete' });
    await del.waitFor({ state: 'visible' });
    await animationsSettled(page);
    await screenshot(page, 'phone-card-menu-open');
    // Every choice of the menu is what a finger lands on, across its width: nothing of the next
    // card (its ⋮ sits just below the first card's ⋮) lies over it.
    const covered = await first.locator('details[open] li a').evaluateAll((items) =>
      items.flatMap((a) => {
        const r = a.getBoundingClientRect();
        return [0.1, 0.5, 0.9]
          .filter((f) => {
            const hit = document.elementFromPoint(r.left + r.width * f, r.top + r.height / 2);
            return !hit || !a.contains(hit);
          })
          .map((f) => `${a.textContent?.trim()} at ${f * 100}%`);
      }),
    );
    assert.deepEqual(covered, [], 'menu choices covered by something else');
    // Tapped at its right end, beside where the next card's ⋮ is.
    const box = (await del.boundingBox())!;
    await page.touchscreen.tap(box.x + box.width * 0.9, box.y + box.height / 2);
    // The Delete of go/alpha took it: its card hides and its Undo is offered.
    const undo = page.locator('#toast-area').getByRole('button', { name: 'Undo deleting go/alpha' });
    await undo.waitFor();
    await first.waitFor({ state: 'hidden' });
    assert.equal(
      await page
        .locator('#toast-area')
        .getByRole('button', { name: /Undo deleting go\/bravo/ })
        .count(),
      0,
    );
    await undo.click();
    await first.waitFor({ state: 'visible' });
    assert.equal(await page.locator('details[data-menu][open]').count(), 0, 'the menu closed with the choice');
    problems.assertNone();
    await close();
  });

  test('Escape and a tap outside close the menu, the focus back on its button', { timeout: 60_000 }, async () => {
    const { page, problems, close } = await phoneDashboard('joe-dark');
    const first = page.locator('tr[data-link-row]', { hasText: 'go/alpha' });
    const button = first.locator('summary[aria-label="Actions for go/alpha"]');
    const menu = first.locator('details[data-menu]');

    await button.click();
    await first.getByRole('link', { name: 'Edit' }).waitFor({ state: 'visible' });
    await page.keyboard.press('Escape');
    assert.equal(await menu.evaluate((d) => (d as HTMLDetailsElement).open), false, 'Escape closes the menu');
    assert.equal(await focusedLabel(page), 'Actions for go/alpha', 'Escape leaves the focus on ⋮');

    await button.click();
    await first.getByRole('link', { name: 'Edit' }).waitFor({ state: 'visible' });
    const heading = (await page.locator('main h1').first().boundingBox())!;
    await page.touchscreen.tap(heading.x + 4, heading.y + heading.height / 2);
    assert.equal(await menu.evaluate((d) => (d as HTMLDetailsElement).open), false, 'a tap outside closes the menu');
    assert.equal(await focusedLabel(page), 'Actions for go/alpha', 'a tap on nothing leaves the focus on ⋮');
    assert.ok(page.url().endsWith('/dashboard'), 'the tap outside opened nothing');

    // Edit from the menu: the dialog opens, and once closed the focus is back on ⋮.
    await button.click();
    await first.getByRole('link', { name: 'Edit' }).click();
    await page.locator('#modal dialog[open]').waitFor();
    await page.keyboard.press('Escape');
    await page.locator('#modal dialog').waitFor({ state: 'detached' });
    assert.equal(await focusedLabel(page), 'Actions for go/alpha', 'closing the dialog leaves the focus on ⋮');
    problems.assertNone();
    await close();
  });
});
