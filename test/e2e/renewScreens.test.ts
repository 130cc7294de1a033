import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import type { User } from '../../src/store/types.js';
import {
  assertAccessible,
  chromiumSkip,
  htmxReady,
  launchBrowser,
  Problems,
  screenshot,
  signInLocal,
  sidewaysOverflow,
} from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createLink, updateLink } from '../helpers/links.js';

/**
 * The page of an expired link in both themes, at 1280 and 375 px
 * (docs/lifecycle.md#renewal, docs/web-ui.md#rendering-conventions): the relative expiry with
 * the exact local time on hover, no sideways scroll, no serious axe finding, no console error
 * or CSP violation, and Renew brings the link back in place. Screenshots go to test-results/.
 */

const THEMES = ['joe-light', 'joe-dark'] as const;
const WIDTHS = [1280, 375] as const;

describe('renewing an expired link from its page, in both themes and on a phone', { skip: chromiumSkip('renew screens') }, () => {
  let s: TestServer;
  let browser: Browser;
  let alice: User;
  const ids = new Map<string, string>();

  before(async () => {
    s = await startTestServer({ env: { JOE_SHORT_KEYWORD: 'go' } });
    alice = await s.store.users.create({ email: 'alice@example.com', displayName: 'Alice Smith' });
    const soon = Math.ceil((Date.now() + 1_500) / 1000) * 1000;
    for (const theme of THEMES)
      for (const width of WIDTHS) {
        const slug = `offer-${theme.slice(4)}-${width}`;
        const link = await createLink(s.store, { slug, url: `https://offer.example.com/${slug}`, title: 'Spring offer' }, alice.id);
        await updateLink(s.store, link.id, { expiresAt: soon });
        ids.set(slug, link.id);
      }
    browser = await launchBrowser();
    while (Date.now() <= soon + 100) await new Promise((r) => setTimeout(r, 100));
  });

  after(async () => {
    await browser?.close();
    await s?.stop();
  });

  for (const theme of THEMES) {
    for (const width of WIDTHS) {
      test(`${theme} at ${width}px`, { timeout: 120_000 }, async () => {
        const slug = `offer-${theme.slice(4)}-${width}`;
        const id = ids.get(slug)!;
        const context = await browser.newContext({ viewport: { width, height: 900 }, timezoneId: 'Asia/Tokyo', locale: 'en-US' });
        await context.addCookies([{ name: 'theme', value: theme, url: s.url }]);
        const problems = new Problems(context);
        const page = await context.newPage();
        await signInLocal(page, s, alice);
        await page.goto(`${s.url}/dashboard/links/${id}`);
        await htmxReady(page);
        assert.equal(await page.getAttribute('html', 'data-theme'), theme);

        const header = page.locator('#link-detail header');
        await header.getByText('expired', { exact: true }).waitFor();
        const when = page.locator('#link-detail time[data-local="relative"]');
        assert.equal(await when.textContent(), 'less than a minute ago');
        const title = (await when.getAttribute('title')) ?? '';
        assert.match(title, /GMT\+9/, `the hover text is the viewer's local time: ${title}`);

        const overflow = await sidewaysOverflow(page);
        assert.ok(overflow <= 0, `scrolls sideways by ${overflow}px`);
        await assertAccessible(page, `expired detail (${theme}, ${width}px)`);
        await screenshot(page, `renew-expired-${theme}-${width}`);

        problems.assertNone();
        await header.getByRole('button', { name: 'Renew' }).click();
        await page
          .locator('#toast-area')
          .getByText(/^Renewed go\/[a-z0-9-]+\. It no longer expires\.$/)
          .waitFor();
        await header.getByText('expired', { exact: true }).waitFor({ state: 'detached' });
        assert.equal(await header.getByRole('button', { name: 'Renew' }).count(), 0);
        assert.equal(await page.locator('#link-detail time[data-local="relative"]').count(), 0, 'no expiry line once renewed');
        assert.equal(page.url(), `${s.url}/dashboard/links/${id}`, 'the page stays where it was');
        await assertAccessible(page, `renewed detail (${theme}, ${width}px)`);
        await screenshot(page, `renew-renewed-${theme}-${width}`);
        problems.assertNone();

        assert.equal((await s.store.links.get(id))!.expiresAt, null);
        const go = await fetch(`${s.url}/${slug}`, { redirect: 'manual' });
        assert.equal(go.status, 302, 'the link resolves again');
        await context.close();
      });
    }
  }
});
