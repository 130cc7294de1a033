import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { REDIRECT_URL, startOidcProvider, type TestProvider } from '../auth/support/oidcProvider.js';
import { assertAccessible, chromiumSkip, htmxReady, launchBrowser, Problems } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Browser sign-in through a real OpenID Provider (oidc-provider, in
 * process). The provider redirects back to the fixed callback name
 * `joe-links.test`; Chromium's host resolver maps that name to the test
 * server, so the whole session runs at http://joe-links.test.
 */

describe('OIDC sign-in in a browser', { skip: chromiumSkip('OIDC sign-in') }, () => {
  let provider: TestProvider;
  let s: TestServer;
  let browser: Browser;
  const origin = new URL(REDIRECT_URL).origin;

  before(async () => {
    provider = await startOidcProvider();
    provider.accounts.set('olga-sub', { email: 'olga@x.io', email_verified: true, name: 'Olga Petrova' });
    s = await startTestServer({ env: provider.env({ JOE_BASE_URL: origin }) });
    const port = new URL(s.url).port;
    browser = await launchBrowser([`--host-resolver-rules=MAP joe-links.test 127.0.0.1:${port}`, '--disable-features=HttpsUpgrades']);
  });

  after(async () => {
    await browser?.close();
    await s?.stop();
    await provider?.stop();
  });

  test(
    'from the landing page through the provider to the dashboard, and back to the page first asked for',
    { timeout: 90_000 },
    async () => {
      const context = await browser.newContext();
      const problems = new Problems(context, { origin });
      const page = await context.newPage();
      await page.goto(`${origin}/`);
      await page.getByRole('link', { name: 'Sign in to get started' }).click();
      await page.waitForURL((u) => u.origin === provider.issuer);
      await page.locator('input[name="login"]').fill('olga-sub');
      await page.locator('input[name="password"]').fill('anything');
      await page.locator('button[type="submit"]').click();
      await page.waitForURL(`${origin}/dashboard`);
      await htmxReady(page);
      await page.getByRole('heading', { name: 'My Links' }).waitFor();
      assert.ok(await page.locator('aside').getByText('Olga Petrova').isVisible());
      const user = await s.store.users.findByEmail('olga@x.io');
      assert.equal(user?.displayNameSlug, 'olga-petrova');
      await assertAccessible(page, 'dashboard after OIDC sign-in');

      // Signing out lands on the landing page; asking for a page signs in again and returns there.
      await page.locator('.user-menu > summary').click();
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL(`${origin}/`);
      await page.goto(`${origin}/dashboard/tags`);
      await page.waitForURL((u) => u.origin === provider.issuer || u.href === `${origin}/dashboard/tags`);
      if (new URL(page.url()).origin === provider.issuer) {
        await page.locator('input[name="login"]').fill('olga-sub');
        await page.locator('input[name="password"]').fill('anything');
        await page.locator('button[type="submit"]').click();
      }
      await page.waitForURL(`${origin}/dashboard/tags`);
      await page.getByRole('heading', { name: 'Tags', exact: true }).waitFor();
      problems.assertNone();
      await context.close();
    },
  );
});
