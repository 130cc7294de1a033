import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { chromiumSkip, launchBrowser } from '../helpers/browser.js';
import { startStateServer, type StateServer } from '../http/stateLinkFixtures.js';

/**
 * The /_/state demo in Debian's Chromium: change the state, shorten it, open
 * the short link in a fresh page and find the same state restored.
 */

const skip = chromiumSkip('state demo');

describe('state demo in a browser', { skip }, () => {
  let s: StateServer;
  let browser: Browser;

  before(async () => {
    s = await startStateServer();
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await s?.stop();
  });

  test('a shortened state comes back when the short link is opened', { timeout: 60_000 }, async () => {
    const problems: string[] = [];
    const context = await browser.newContext();
    context.on('weberror', (e) => problems.push(e.error().message));
    const page = await context.newPage();
    context.on('console', (m) => {
      // A failed load is reported below with its URL.
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(m.text());
    });
    context.on('response', (r) => {
      // The browser asks for a favicon on its own; the app has none to serve.
      if (r.status() >= 400 && new URL(r.url()).pathname !== '/favicon.ico') problems.push(`${r.status()} ${r.url()}`);
    });

    await page.goto(`${s.origin}/_/state`);
    await page.locator('[data-state-demo][data-state-ready="true"]').waitFor();
    const note = 'Groceries: eggs, milk — and “quoted” text ✓';
    await page.locator('[data-state-note]').fill(note);
    for (let i = 0; i < 3; i++) await page.getByRole('button', { name: 'Increase counter' }).click();
    await page.getByRole('button', { name: 'Decrease counter' }).click();
    assert.equal(await page.locator('[data-state-count]').textContent(), '2');

    await page.getByRole('button', { name: 'Shorten link' }).click();
    const link = page.locator('[data-state-link]');
    await link.waitFor({ state: 'visible' });
    const shortUrl = (await link.textContent()) ?? '';
    assert.match(shortUrl, new RegExp(`^${s.origin.replace(/[.]/g, '\\.')}/s/[0-9A-Za-z]{10}$`));
    assert.equal(await link.getAttribute('href'), shortUrl);
    assert.match(new URL(page.url()).hash, /^#state=v1\.[A-Za-z0-9_-]+$/, 'the long form is kept in the address bar');

    const fresh = await context.newPage();
    await fresh.goto(shortUrl);
    await fresh.locator('[data-state-demo][data-state-ready="true"]').waitFor();
    assert.equal(new URL(fresh.url()).pathname, '/_/state');
    assert.match(new URL(fresh.url()).hash, /^#state=v1\./);
    assert.equal(await fresh.locator('[data-state-note]').inputValue(), note);
    assert.equal(await fresh.locator('[data-state-count]').textContent(), '2');
    assert.equal(await fresh.locator('[data-state-error]').isVisible(), false);

    // Following the link opened it: it no longer expires.
    const id = shortUrl.slice(shortUrl.lastIndexOf('/') + 1);
    assert.equal((await s.store.stateLinks.findLive(id))?.expiresAt, null);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('a missing link lands on the styled "gone" page', { timeout: 30_000 }, async () => {
    const page = await browser.newPage();
    const response = await page.goto(`${s.origin}/s/ZZZZZZZZZZ`);
    assert.equal(new URL(page.url()).pathname, '/_/link-missing');
    assert.equal(response?.status(), 404);
    await page.getByRole('heading', { name: 'This link is gone' }).waitFor();
    await page.close();
  });
});
