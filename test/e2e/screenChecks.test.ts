import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { assertAccessible, chromiumSkip, launchBrowser } from '../helpers/browser.js';

/**
 * The accessibility check every screen test leans on (test/helpers/browser.ts) fails on the
 * problems it exists to catch, also when axe is already in the page from an earlier check.
 */

describe('the accessibility check', { skip: chromiumSkip('accessibility check') }, () => {
  let browser: Browser;
  let page: Page;

  before(async () => {
    browser = await launchBrowser();
    page = await browser.newPage();
  });

  after(async () => {
    await browser?.close();
  });

  const shell = (body: string) =>
    `<!doctype html><html lang="en"><head><title>t</title></head><body><main><h1>Page</h1>${body}</main></body></html>`;

  test('passes a clean page', async () => {
    await page.setContent(shell('<p>Readable text</p><label>Name <input name="n"></label>'));
    await assertAccessible(page, 'clean page');
  });

  test('fails on text without enough contrast, naming the rule and the element', async () => {
    await page.setContent(shell('<p id="faint" style="color:#ccc;background:#fff">Faint text</p>'));
    await assert.rejects(assertAccessible(page, 'faint page'), (e: Error) => {
      assert.match(e.message, /accessibility violations on faint page/);
      assert.match(e.message, /color-contrast \(serious\)/);
      assert.match(e.message, /#faint/);
      return true;
    });
  });

  test('fails on a field without a name after an earlier check in the same document', async () => {
    await page.setContent(shell('<p>Fine</p>'));
    await assertAccessible(page, 'before');
    await page.evaluate(() => document.querySelector('main')!.insertAdjacentHTML('beforeend', '<input id="nameless">'));
    await assert.rejects(assertAccessible(page, 'after'), /label \(critical\)[\s\S]*#nameless/);
  });
});
