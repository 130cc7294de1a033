import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { User } from '../../src/store/types.js';
import { checkScreen, chromiumSkip, htmxReady, launchBrowser, Problems, screenshot, signInLocal, useTheme } from '../helpers/browser.js';
import { createLink } from '../helpers/links.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { destination, type TestDestination } from '../net/destinations.js';

/**
 * The admin's link-health report (docs/web-ui.md#admin-screens) as an admin uses it: every column
 * in view at 1280 px, cards of even lines at 375 px, and on each row Recheck (the checker's probe,
 * now) and Edit, tapped as a person taps them.
 */

const THEMES = ['joe-light', 'joe-dark'] as const;
const HOUR = 3_600_000;

describe('the link-health report in a browser', { skip: chromiumSkip('link health') }, () => {
  let s: TestServer;
  let browser: Browser;
  let admin: User;
  let dest: TestDestination;
  /** Paths the destination answers 200 for; everything else fails with 503. */
  const healthy = new Set<string>();

  before(async () => {
    dest = await destination((req, res) => {
      res.statusCode = healthy.has(req.url ?? '') ? 200 : 503;
      res.end();
    });
    s = await startTestServer({
      env: { JOE_SHORT_KEYWORD: 'go', JOE_HEALTH_CHECKS_ENABLED: 'true', JOE_HEALTH_CHECK_ALLOW_PRIVATE: 'true' },
    });
    admin = await s.store.users.create({ email: 'admin@example.com', displayName: 'Ada Admin', role: 'admin' });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await s?.stop();
    await dest?.close();
  });

  /** A link of `failures` failed checks a minute ago (so a recheck need not wait), with a long destination. */
  async function brokenLink(slug: string, failures = 3): Promise<string> {
    const url = `${dest.origin}/${slug}/a/rather/long/path/that/goes/on/for/quite/a/while?with=query&and=more#fragment`;
    const l = await createLink(s.store, { slug, url, title: `The ${slug} page` }, admin.id);
    for (let i = 0; i < failures; i++)
      await s.store.health.record(
        l.id,
        { kind: 'failure', status: null, error: 'connect ECONNREFUSED 10.0.0.1:443 after a very long wait for an answer' },
        HOUR,
        Date.now() - 60_000,
      );
    return l.id;
  }

  async function open(theme: (typeof THEMES)[number], width: number) {
    const context = await browser.newContext({ viewport: { width, height: 900 }, hasTouch: width < 640 });
    await useTheme(context, s.url, theme);
    const problems = new Problems(context);
    const page = await context.newPage();
    await signInLocal(page, s, admin);
    await page.goto(`${s.url}/admin/link-health`);
    await htmxReady(page);
    return { page, problems, close: () => context.close() };
  }

  /** The computed font size of every cell of the first row, by its label. */
  const cellSizes = (page: Page) =>
    page
      .locator('#link-health-report tbody tr')
      .first()
      .locator('td[data-label]')
      .evaluateAll((cells) => cells.map((c) => [c.getAttribute('data-label'), getComputedStyle(c).fontSize]));

  test('every column fits at 1280 px and each row is a card of even lines at 375 px, in both themes', { timeout: 180_000 }, async () => {
    await brokenLink('quarterly-planning-board-for-the-whole-engineering-organisation', 5);
    await brokenLink('wiki');
    for (const theme of THEMES) {
      {
        const { page, problems, close } = await open(theme, 1280);
        const fit = await page.evaluate(() => {
          const table = document.querySelector('#link-health-report table')!;
          const box = table.parentElement!.getBoundingClientRect();
          const heads = Array.from(table.querySelectorAll('thead th')).map((th) => {
            const r = th.getBoundingClientRect();
            return { text: th.textContent!.trim(), inside: r.left >= box.left - 1 && r.right <= box.right + 1 && r.width > 0 };
          });
          return { heads, scrolls: table.parentElement!.scrollWidth > table.parentElement!.clientWidth + 1 };
        });
        assert.equal(fit.scrolls, false, 'the report does not scroll sideways at 1280 px');
        assert.deepEqual(
          fit.heads.filter((h) => !h.inside).map((h) => h.text),
          [],
          'every column header, Failures included, is in view at 1280 px',
        );
        assert.ok(await page.getByRole('columnheader', { name: 'Failures' }).isVisible());
        await checkScreen(page, problems, `admin-health-${theme}-1280`, { name: 'link health', theme, width: 1280 });
        await close();
      }
      {
        const { page, problems, close } = await open(theme, 375);
        const display = await page
          .locator('#link-health-report tbody tr')
          .first()
          .evaluate((tr) => getComputedStyle(tr).display);
        assert.equal(display, 'block', 'a row is a card at 375 px');
        const sizes = await cellSizes(page);
        assert.equal(sizes.length, 6);
        assert.deepEqual(
          sizes.filter(([, size]) => size !== sizes[0]![1]),
          [],
          `every line of a card is the same size (${JSON.stringify(sizes)})`,
        );
        await checkScreen(page, problems, `admin-health-${theme}-375`, { name: 'link health', theme, width: 375 });
        await close();
      }
    }
  });

  test(
    'Recheck probes the link now and the report shows what it found; Edit opens the link’s edit form',
    { timeout: 120_000 },
    async () => {
      const fixedId = await brokenLink('fixed-now');
      const stillId = await brokenLink('still-down');
      healthy.add(`/fixed-now/a/rather/long/path/that/goes/on/for/quite/a/while?with=query&and=more`);
      for (const width of [1280, 375]) {
        const { page, problems, close } = await open('joe-light', width);
        if (width === 1280) {
          const hits = dest.hits.length;
          const still = page.locator(`#health-${stillId}`);
          const before = await still.locator('td[data-label="Last checked"] time').getAttribute('datetime');
          await still.getByRole('button', { name: 'Recheck go/still-down' }).click();
          await page.getByText('go/still-down still fails: HTTP 503.').waitFor();
          assert.ok(dest.hits.length > hits, 'the destination was asked again');
          const after = await page.locator(`#health-${stillId} td[data-label="Last checked"] time`).getAttribute('datetime');
          assert.notEqual(after, before, 'the row shows the new check');
          assert.equal(await page.locator(`#health-${stillId} td[data-label="Failures"]`).innerText(), '4');
          const focusedId = () => page.evaluate(() => document.activeElement?.id ?? '');
          assert.equal(await focusedId(), `recheck-${stillId}`, 'the redrawn row’s Recheck keeps the focus');

          // From the keyboard: the row goes away, and the focus stays in the report.
          await page.locator(`#health-${fixedId}`).getByRole('button', { name: 'Recheck go/fixed-now' }).focus();
          await page.keyboard.press('Enter');
          await page.getByText('go/fixed-now answered HTTP 200: it is no longer broken.').waitFor();
          await page.locator(`#health-${fixedId}`).waitFor({ state: 'detached' });
          await page.waitForFunction(() => document.activeElement?.id === 'link-health-report');
          assert.equal((await s.store.health.row(fixedId))?.consecutiveFailures, 0);
          await screenshot(page, 'admin-health-rechecked-1280');
          problems.assertNone();
        } else {
          // On a phone the card's Edit is tapped and the edit form of that link opens.
          await page.locator(`#health-${stillId}`).getByRole('link', { name: 'Edit go/still-down' }).tap();
          await page.waitForURL(`${s.url}/dashboard/links/${stillId}/edit`);
          assert.equal(await page.locator('input[data-slug-source]').inputValue(), 'still-down');
          problems.assertNone();
        }
        await close();
      }
    },
  );

  test('without JavaScript, Recheck posts and comes back to the report with what it found', { timeout: 60_000 }, async () => {
    const id = await brokenLink('plain-form');
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const token = await s.store.loginTokens.create(admin.id);
    await page.goto(`${s.url}/auth/local?token=${token}`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.goto(`${s.url}/admin/link-health`);
    await page.locator(`#health-${id}`).getByRole('button', { name: 'Recheck go/plain-form' }).click();
    await page.waitForURL(`${s.url}/admin/link-health`);
    assert.match(await page.locator('#toast-area').innerText(), /go\/plain-form still fails: HTTP 503\./);
    await context.close();
  });
});
