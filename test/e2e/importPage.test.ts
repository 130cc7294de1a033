import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
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
import { IMPORT_FIXTURES } from '../helpers/paths.js';

/**
 * The import page in Chromium, in both themes, at desktop width and on a
 * phone: choose a golink export, preview it (the table fills, nothing is
 * written), import it from the preview with the progress bar, download the
 * report. Nothing scrolls sideways, axe finds nothing serious, no console
 * error under the CSP. Screenshots go to test-results/.
 */

const THEMES = ['joe-light', 'joe-dark'] as const;
const WIDTHS = [1280, 375] as const;
const GOLINK = new URL('golink.jsonl', IMPORT_FIXTURES).pathname;

describe('the import page in a browser', { skip: chromiumSkip('import page') }, () => {
  let s: TestServer;
  let browser: Browser;
  let ann: User;

  before(async () => {
    s = await startTestServer();
    ann = await s.store.users.create({ email: 'ann@example.com', displayName: 'Ann Lee', role: 'admin' });
    await s.store.users.create({ email: 'bob@example.com', displayName: 'Bob Jones' });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await s?.stop();
  });

  async function check(page: Page, problems: Problems, name: string, width: number): Promise<void> {
    const overflow = await sidewaysOverflow(page);
    assert.ok(overflow <= 0, `${name} at ${width}px scrolls sideways by ${overflow}px`);
    await assertAccessible(page, name);
    await screenshot(page, name);
    problems.assertNone();
  }

  for (const theme of THEMES) {
    for (const width of WIDTHS) {
      test(`${theme} at ${width}px: preview, import, report`, { timeout: 120_000 }, async () => {
        await s.store.db.kysely.deleteFrom('links').execute();
        const context = await browser.newContext({ viewport: { width, height: 900 }, acceptDownloads: true });
        await context.addCookies([{ name: 'theme', value: theme, url: s.url }]);
        const problems = new Problems(context);
        const page = await context.newPage();
        await signInLocal(page, s, ann);
        await page.locator('main').getByRole('link', { name: 'Import' }).click();
        await page.waitForURL(`${s.url}/dashboard/links/import`);
        await htmxReady(page);
        await check(page, problems, `import-${theme}-${width}`, width);

        await page.getByLabel('File', { exact: true }).setInputFiles(GOLINK);
        await page.getByRole('button', { name: 'Preview' }).click();
        await page.getByText('Preview done: nothing was written.').waitFor();
        assert.equal(await page.locator('[data-import-rows] tr').count(), 10);
        assert.equal(await page.locator('[data-count="refused"]').textContent(), '0');
        assert.equal(await s.store.links.count(), 0, 'the preview wrote nothing');
        await check(page, problems, `import-preview-${theme}-${width}`, width);

        await page.getByRole('button', { name: 'Import these links' }).click();
        await page.getByText('Import done.').waitFor();
        assert.equal(await page.locator('progress').getAttribute('value'), '100');
        assert.equal(await page.locator('[data-count="created"]').textContent(), '10');
        assert.equal(await s.store.links.count(), 10);
        await check(page, problems, `import-done-${theme}-${width}`, width);

        const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Report (CSV)' }).click()]);
        const saved = join(await import('node:os').then((os) => os.tmpdir()), `import-report-${theme}-${width}.csv`);
        await download.saveAs(saved);
        const csv = readFileSync(saved, 'utf8').split('\r\n');
        assert.equal(csv[0], 'line,slug,written,action,reason,changes,notes,source_clicks');
        assert.equal(csv[5], '5,me,,created,,,,');
        problems.assertNone();
        await context.close();
      });
    }
  }

  test('picking a tool by its plain name and uploading that tool’s file lands on its report', { timeout: 120_000 }, async () => {
    await s.store.db.kysely.deleteFrom('links').execute();
    const context = await browser.newContext();
    const problems = new Problems(context);
    const page = await context.newPage();
    await signInLocal(page, s, ann);
    await page.goto(`${s.url}/dashboard/links/import`);
    await htmxReady(page);
    await page.getByLabel('Exported from').selectOption({ label: 'Shlink (web client CSV export, or the REST API short-URL list JSON)' });
    await page.getByLabel('File', { exact: true }).setInputFiles(new URL('shlink.csv', IMPORT_FIXTURES).pathname);
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByText('Preview done: nothing was written.').waitFor();
    assert.equal(await page.locator('[data-import-title]').textContent(), 'Preview: Shlink (web client CSV export)');
    // slack, Q3-Plan, slack on a second domain (a collision), and a row without a destination.
    assert.equal(await page.locator('[data-import-rows] tr').count(), 4);
    assert.equal(await page.locator('[data-count="created"]').textContent(), '2');
    assert.equal(await page.locator('[data-count="refused"]').textContent(), '2');
    assert.equal(await s.store.links.count(), 0, 'the preview wrote nothing');
    await page.getByRole('button', { name: 'Import these links' }).click();
    await page.getByText('Import done.').waitFor();
    assert.equal(await page.locator('[data-count="created"]').textContent(), '2');
    assert.equal((await s.store.links.getBySlug('q3-plan'))?.url, 'https://docs.example.com/d/abc?tab=1,2');
    problems.assertNone();
    await context.close();
  });

  test('the report download turns cells a spreadsheet would run into text, as the click export does', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'joe-links-report-'));
    try {
      // Names as a file may write them; each becomes a slug of its letters, the report keeps what was written.
      const file = join(dir, 'hostile.jsonl');
      const written = ['=HYPERLINK("https://evil.example","x")', '@SUM(A1)', '+cmd', '\u200b-2+3'];
      writeFileSync(file, `${written.map((slug) => JSON.stringify({ slug, url: 'https://x.example/' })).join('\n')}\n`);
      const context = await browser.newContext({ acceptDownloads: true });
      const page = await context.newPage();
      await signInLocal(page, s, ann);
      await page.goto(`${s.url}/dashboard/links/import`);
      await page.getByLabel('File', { exact: true }).setInputFiles(file);
      await page.getByRole('button', { name: 'Preview' }).click();
      await page.getByText('Preview done: nothing was written.').waitFor();
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Report (CSV)' }).click()]);
      const saved = join(dir, 'report.csv');
      await download.saveAs(saved);
      const lines = readFileSync(saved, 'utf8').split('\r\n');
      assert.equal(
        lines[1],
        `1,hyperlink-https/evil-example-x,"'=HYPERLINK(""https://evil.example"",""x"")",created,,,"slug ""=HYPERLINK(""https://evil.example"",""x"")"" became ""hyperlink-https/evil-example-x""",`,
      );
      assert.match(lines[2]!, /^2,sum-a1,'@SUM\(A1\),created,/);
      assert.match(lines[3]!, /^3,cmd,'\+cmd,created,/);
      assert.match(lines[4]!, /^4,2-3,'\u200b-2\+3,created,/);
      await context.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
