import assert from 'node:assert/strict';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import type { User } from '../../src/store/types.js';
import { assertAccessible, chromiumSkip, htmxReady, launchBrowser, Problems, screenshot, signInLocal } from '../helpers/browser.js';
import { createLink } from '../helpers/links.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Small things read on the pages, in Chromium: an anonymous visitor's list without click
 * columns of dashes, a template's destination shown as text (nothing to tap that opens a
 * literal `$ticket`), the health line of a server that runs no checks, the import preview's
 * note pointing at the table where it is.
 */

describe('small things on the pages, in a browser', { skip: chromiumSkip('small things') }, () => {
  let s: TestServer;
  let browser: Browser;
  let alice: User;
  let jiraId = '';

  before(async () => {
    // The test server runs no health checks (JOE_HEALTH_CHECKS_ENABLED=false).
    s = await startTestServer({ env: { JOE_SHORT_KEYWORD: 'go' } });
    alice = await s.store.users.create({ email: 'alice@example.com', displayName: 'Alice Smith' });
    jiraId = (await createLink(s.store, { slug: 'jira', url: 'https://jira.example.com/browse/$ticket', title: 'Jira' }, alice.id)).id;
    await createLink(s.store, { slug: 'wiki', url: 'https://wiki.example.com/home', title: 'Wiki' }, alice.id);
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await s?.stop();
  });

  for (const width of [375, 1280]) {
    test(`an anonymous visitor's list has no click columns at ${width} px`, { timeout: 60_000 }, async () => {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      const problems = new Problems(context);
      const page = await context.newPage();
      await page.goto(`${s.url}/links`);
      await htmxReady(page);
      const list = page.locator('[data-link-list]');
      // What is drawn: the head and the rows (the caption says to screen readers why no figures are listed).
      const visible = (
        await list.locator('thead, tbody').evaluateAll((els) => els.map((e) => (e as HTMLElement).innerText).join(' '))
      ).replace(/\s+/g, ' ');
      assert.match(visible, /wiki/);
      assert.doesNotMatch(visible, /Clicks|clicks|Last clicked|never|—/);
      // The template is text; the fixed destination a link to open.
      assert.equal(await list.locator('a[href*="jira.example.com"]').count(), 0);
      assert.equal(await list.locator('a[href="https://wiki.example.com/home"]').count(), 1);
      await screenshot(page, `anonymous-list-${width}`);
      await assertAccessible(page, `anonymous list (${width}px)`);
      problems.assertNone();
      await context.close();
    });
  }

  test("a template's page shows its destination as text and says the checks are off", { timeout: 60_000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 375, height: 900 } });
    const problems = new Problems(context);
    const page = await context.newPage();
    await signInLocal(page, s, alice);
    await page.goto(`${s.url}/dashboard/links/${jiraId}`);
    await htmxReady(page);
    const destination = page.locator('[data-destination-text]');
    assert.equal((await destination.innerText()).replace(/\s+/g, ''), 'https://jira.example.com/browse/$ticket');
    assert.equal(await page.locator('main a[href*="$ticket"]').count(), 0, 'nothing to tap opens the placeholder');
    await page.goto(`${s.url}/dashboard`);
    await htmxReady(page);
    const wiki = page.locator('tr[data-link-row]', { hasText: 'go/wiki' });
    await wiki.locator('summary').click();
    await wiki.getByRole('link', { name: 'Details' }).click();
    await page.getByText('Destination not checked: health checks are turned off on this server.').waitFor();
    assert.equal(await page.getByText('not checked yet').count(), 0);
    problems.assertNone();
    await context.close();
  });

  test("the import preview's note points at the table, which is below it", { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'joe-import-'));
    const file = join(dir, 'links.csv');
    writeFileSync(file, 'slug,url,title\nfresh,https://fresh.example.com/,Fresh\nBad Slug!,https://bad.example.com/,Bad\n');
    const context = await browser.newContext({ viewport: { width: 375, height: 900 } });
    const problems = new Problems(context);
    const page = await context.newPage();
    await signInLocal(page, s, alice);
    await page.goto(`${s.url}/dashboard/links/import`);
    await htmxReady(page);
    await page.getByLabel('File', { exact: true }).setInputFiles(file);
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByText('Preview done: nothing was written.').waitFor();
    const note = page.getByText('Runs the same file for real; the rows this preview refused stay refused.');
    await note.waitFor();
    const [noteBox, tableBox] = [await note.boundingBox(), await page.locator('[data-import-rows]').boundingBox()];
    assert.ok(noteBox && tableBox && tableBox.y > noteBox.y, 'the table is below the note');
    assert.equal(await page.getByText(/refused above/).count(), 0);
    problems.assertNone();
    await context.close();
  });
});
