import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import type { User } from '../../src/store/types.js';
import { chromiumSkip, htmxReady, launchBrowser, Problems, screenshot, signInLocal } from '../helpers/browser.js';
import { createLink } from '../helpers/links.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The fill-in page's form (docs/links.md#fill-in-page) lands on the destination in a real
 * browser, under the CSP's `form-action 'self'`: the destination is another origin (a real
 * server on another port), where a redirect answering the form's own submission is stopped.
 */

describe('the fill-in form in a browser', { skip: chromiumSkip('fill-in form') }, () => {
  let s: TestServer;
  let browser: Browser;
  let destination: Server;
  let destinationOrigin = '';
  const arrived: string[] = [];
  let alice: User;

  before(async () => {
    destination = createServer((req, res) => {
      arrived.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>Ticket</title><h1>Ticket page</h1>');
    });
    await new Promise<void>((resolve) => destination.listen(0, '127.0.0.1', resolve));
    destinationOrigin = `http://127.0.0.1:${(destination.address() as AddressInfo).port}`;
    s = await startTestServer({ env: { JOE_SHORT_KEYWORD: 'go' } });
    alice = await s.store.users.create({ email: 'alice@example.com', displayName: 'Alice Smith' });
    await createLink(s.store, { slug: 'jira', url: `${destinationOrigin}/browse/$ticket`, title: 'Jira' }, alice.id);
    await createLink(s.store, { slug: 'gh', url: `${destinationOrigin}/$org/$repo?tab=$action`, title: 'GitHub' }, alice.id);
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await s?.stop();
    await new Promise((resolve) => destination?.close(resolve));
  });

  test('typing a ticket and pressing Go opens the destination with it', { timeout: 60_000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 375, height: 800 } });
    const problems = new Problems(context, { origin: s.url });
    const page = await context.newPage();
    await signInLocal(page, s, alice);
    await page.goto(`${s.url}/jira`);
    await htmxReady(page);
    await page.getByRole('textbox', { name: 'ticket', exact: true }).fill('ABC-123');
    await page.getByRole('button', { name: 'Go' }).click();
    await page.waitForURL(`${destinationOrigin}/browse/ABC-123`, { timeout: 10_000 });
    assert.equal(await page.locator('h1').textContent(), 'Ticket page');
    assert.deepEqual(arrived.splice(0), ['/browse/ABC-123']);
    await screenshot(page, 'fill-in-arrived');
    problems.assertNone();
    await context.close();
  });

  test('Enter in the last of several fields submits them all, a variable named `action` included', { timeout: 60_000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const problems = new Problems(context, { origin: s.url });
    const page = await context.newPage();
    // An anonymous visitor may open a public template too.
    await page.goto(`${s.url}/gh/joe`);
    await htmxReady(page);
    assert.equal(await page.getByRole('textbox', { name: 'org', exact: true }).inputValue(), 'joe', 'the value in the path is pre-filled');
    await page.getByRole('textbox', { name: 'repo', exact: true }).fill('links');
    await page.getByRole('textbox', { name: 'action', exact: true }).fill('issues');
    await page.getByRole('textbox', { name: 'action', exact: true }).press('Enter');
    await page.waitForURL(`${destinationOrigin}/joe/links?tab=issues`, { timeout: 10_000 });
    assert.deepEqual(arrived.splice(0), ['/joe/links?tab=issues']);
    problems.assertNone();
    await context.close();
  });

  test('without JavaScript the form lands there too, through a page that moves on', { timeout: 60_000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 375, height: 800 }, javaScriptEnabled: false });
    const problems = new Problems(context, { origin: s.url });
    const page = await context.newPage();
    await page.goto(`${s.url}/jira`);
    await page.getByRole('textbox', { name: 'ticket', exact: true }).fill('XYZ-9');
    await page.getByRole('button', { name: 'Go' }).click();
    await page.waitForURL(`${destinationOrigin}/browse/XYZ-9`, { timeout: 10_000 });
    assert.equal(await page.locator('h1').textContent(), 'Ticket page');
    assert.deepEqual(arrived.splice(0), ['/browse/XYZ-9']);
    problems.assertNone();
    await context.close();
  });
});
