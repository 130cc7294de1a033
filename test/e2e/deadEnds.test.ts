import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import type { User } from '../../src/store/types.js';
import { chromiumSkip, htmxReady, launchBrowser, Problems, signInLocal } from '../helpers/browser.js';
import { createLink } from '../helpers/links.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Error pages with a way on (docs/web-ui.md#error-pages), followed as a person follows them.
 */

describe('error pages lead somewhere', { skip: chromiumSkip('dead ends') }, () => {
  let s: TestServer;
  let browser: Browser;
  let admin: User;
  let bob: User;
  let vaultId = '';

  before(async () => {
    s = await startTestServer({ env: { JOE_SHORT_KEYWORD: 'go' } });
    admin = await s.store.users.create({ email: 'admin@example.com', displayName: 'Ada Admin', role: 'admin' });
    bob = await s.store.users.create({ email: 'bob@example.com', displayName: 'Bob Jones' });
    const alice = await s.store.users.create({ email: 'alice@example.com', displayName: 'Alice Smith' });
    vaultId = (await createLink(s.store, { slug: 'vault', url: 'https://vault.example.com/', visibility: 'secure' }, alice.id)).id;
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await s?.stop();
  });

  test('a missing admin page leads back to Admin', { timeout: 60_000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 375, height: 812 } });
    const problems = new Problems(context);
    problems.allow((path, status) => path === '/admin/nothing-here' && status === 404);
    const page = await context.newPage();
    await signInLocal(page, s, admin);
    await page.goto(`${s.url}/admin/nothing-here`);
    await htmxReady(page);
    assert.equal(await page.locator('main h1').textContent(), 'Page not found');
    assert.equal(await page.getByText('Nobody has made').count(), 0);
    await page.getByRole('link', { name: 'Back to Admin' }).click();
    await page.waitForURL(`${s.url}/admin`);
    problems.assertNone();
    await context.close();
  });

  test('an address that is no address is the 400 page, with the way home', { timeout: 60_000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const problems = new Problems(context);
    problems.allow((path, status) => path === '/%zz' && status === 400);
    const page = await context.newPage();
    const r = await page.goto(`${s.url}/%zz`);
    assert.equal(r?.status(), 400);
    assert.equal(await page.locator('main h1').textContent(), 'Bad request');
    assert.ok(!(await page.locator('main').textContent())!.includes('%zz'), 'the address is not repeated');
    await page.getByRole('link', { name: 'Go home' }).click();
    await page.waitForURL(`${s.url}/`);
    problems.assertNone();
    await context.close();
  });

  test("a secure link's page tells someone it is not shared with whom to ask", { timeout: 60_000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 375, height: 812 } });
    const problems = new Problems(context);
    problems.allow((path, status) => path === `/dashboard/links/${vaultId}` && status === 403);
    const page = await context.newPage();
    await signInLocal(page, s, bob);
    await page.goto(`${s.url}/dashboard/links/${vaultId}`);
    await htmxReady(page);
    await page.getByText('To ask for access, contact its owner, Alice Smith.').waitFor();
    assert.ok(!(await page.locator('main').textContent())!.includes('vault.example.com'));
    await page.getByRole('link', { name: 'Go to dashboard' }).click();
    await page.waitForURL(`${s.url}/dashboard`);
    problems.assertNone();
    await context.close();
  });
});
