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

    // A tap on another card while the menu is open only closes the menu.
    await button.click();
    await first.getByRole('link', { name: 'Edit' }).waitFor({ state: 'visible' });
    const other = (await page
      .locator('tr[data-link-row]', { hasText: 'go/charlie' })
      .locator('p', { hasText: 'The charlie page' })
      .boundingBox())!;
    await page.touchscreen.tap(other.x + other.width / 2, other.y + other.height / 2);
    assert.equal(await menu.evaluate((d) => (d as HTMLDetailsElement).open), false);
    await page.waitForTimeout(300);
    assert.ok(page.url().endsWith('/dashboard'), 'the card under the tap did not open');

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

  /**
   * Every link, button and menu of a card is a target of its own (WCAG 2.5.8): at least 24 px
   * both ways, or spaced so a 24 px circle on it touches no other target; none sits inside
   * another link, and none lies under another target where a finger lands on it.
   */
  const targetProblems = (page: Page) =>
    page.evaluate(() => {
      const out: string[] = [];
      if (document.querySelector('a a')) out.push('a link inside a link');
      for (const card of Array.from(document.querySelectorAll('tr[data-link-row]'))) {
        card.scrollIntoView({ block: 'center' });
        const targets = Array.from(card.querySelectorAll('a[href], button, summary')).filter((el) => {
          const r = el.getBoundingClientRect();
          return r.width > 0 && r.height > 0 && !el.closest('details:not([open]) > :not(summary)');
        });
        const boxes = targets.map((el) => ({ el, r: el.getBoundingClientRect() }));
        const name = (el: Element) =>
          `${card.id} ${el.tagName.toLowerCase()} "${(el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 24)}"`;
        for (const { el, r } of boxes) {
          const cx = r.left + r.width / 2;
          const cy = r.top + r.height / 2;
          const hit = document.elementFromPoint(cx, cy);
          if (!hit || !el.contains(hit)) out.push(`${name(el)} is covered at its centre by ${hit?.tagName.toLowerCase()}`);
          if (r.width >= 24 && r.height >= 24) continue;
          // Undersized: a 24 px circle on its centre must touch no other target, nor another's circle.
          for (const other of boxes) {
            if (other.el === el || other.el.contains(el) || el.contains(other.el)) continue;
            const o = other.r;
            const dx = Math.max(o.left - cx, 0, cx - o.right);
            const dy = Math.max(o.top - cy, 0, cy - o.bottom);
            const small = o.width < 24 || o.height < 24;
            const gap = small ? Math.hypot(cx - (o.left + o.width / 2), cy - (o.top + o.height / 2)) : Math.hypot(dx, dy);
            if (gap < (small ? 24 : 12)) out.push(`${name(el)} (${Math.round(r.width)}×${Math.round(r.height)}) crowds ${name(other.el)}`);
          }
        }
      }
      return out;
    });

  test('every target of a card is big enough, on its own, and nothing is nested in a link', { timeout: 60_000 }, async () => {
    const { page, problems, close } = await phoneDashboard();
    assert.deepEqual(await targetProblems(page), [], "the dashboard's cards");
    // The slug opens the destination (a new tab); the card around it opens the link's page.
    const card = page.locator('tr[data-link-row]', { hasText: 'go/bravo' });
    const [popup] = await Promise.all([page.waitForEvent('popup'), card.locator('a.slug-name').click()]);
    await popup.close();
    assert.ok(page.url().endsWith('/dashboard'), 'the slug does not open the card');
    const id = (await card.getAttribute('id'))!.slice('link-'.length);
    const badge = (await card.locator('.badge').first().boundingBox())!;
    await page.touchscreen.tap(badge.x + badge.width + 40, badge.y + badge.height / 2);
    await page.waitForURL(`${s.url}/dashboard/links/${id}`);
    problems.assertNone();
    await close();

    // An anonymous visitor's cards on /links, which open no page.
    const context = await browser.newContext({ viewport: { width: 375, height: 812 }, hasTouch: true });
    const anon = await context.newPage();
    await anon.goto(`${s.url}/links`);
    await htmxReady(anon);
    assert.ok((await anon.locator('tr[data-link-row]').count()) > 0);
    assert.deepEqual(await targetProblems(anon), [], '/links for an anonymous visitor');
    await context.close();
  });
});
