import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { assertAccessible, chromiumSkip, launchBrowser, Problems, screenshot } from '../helpers/browser.js';
import { startStateServer, type StateServer } from '../http/stateLinkFixtures.js';

/**
 * The /_/state demo's refusal in both themes: shortening past the server's limit shows the
 * error under the form, readable (axe finds no serious contrast problem) in light and dark.
 */

describe('state demo refusal', { skip: chromiumSkip('state demo screens') }, () => {
  let s: StateServer;
  let browser: Browser;

  before(async () => {
    // One new link a window: the second shorten is refused with 429.
    s = await startStateServer({ JOE_STATE_LINKS_MAX_CREATES: '1' });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await s?.stop();
  });

  for (const theme of ['joe-light', 'joe-dark'] as const) {
    test(`the refusal reads in ${theme}`, { timeout: 60_000 }, async () => {
      const context = await browser.newContext({ viewport: { width: 375, height: 812 } });
      await context.addCookies([{ name: 'theme', value: theme, url: s.origin }]);
      const problems = new Problems(context);
      problems.allow((path, status) => path.startsWith('/api/') && status === 429);
      // The refused request is also reported by the browser on the console.
      problems.allowConsole(/status of 429/);
      const page = await context.newPage();
      await page.goto(`${s.origin}/_/state`);
      await page.locator('[data-state-demo][data-state-ready="true"]').waitFor();
      for (const note of [`first ${theme}`, `second ${theme}`]) {
        await page.locator('[data-state-note]').fill(note);
        // Waiting from before the click: the answer may come before a wait set up after it.
        await Promise.all([
          page.waitForResponse((r) => r.request().method() === 'POST'),
          page.getByRole('button', { name: 'Shorten link' }).click(),
        ]);
      }
      const error = page.locator('[data-state-error]');
      await error.waitFor({ state: 'visible' });
      assert.match((await error.textContent()) ?? '', /^Could not shorten: /);
      assert.equal(await page.getAttribute('html', 'data-theme'), theme);
      await screenshot(page, `state-demo-refused-${theme}`);
      await assertAccessible(page, `state demo refusal (${theme})`);
      problems.assertNone();
      await context.close();
    });
  }
});
