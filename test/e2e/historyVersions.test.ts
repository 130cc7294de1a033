import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { asUser } from '../../src/links/index.js';
import type { User } from '../../src/store/types.js';
import { assertAccessible, chromiumSkip, htmxReady, launchBrowser, Problems, screenshot, signInLocal } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Deciding which version to restore on a phone (docs/history.md#web-pages): an old value and
 * its new one each on a line of their own, URLs broken between their parts, and versions saved
 * in the same minute named apart on their Restore buttons and in the toast.
 */

describe('history versions on a phone', { skip: chromiumSkip('history versions') }, () => {
  let s: TestServer;
  let browser: Browser;
  let alice: User;
  let linkId = '';

  before(async () => {
    s = await startTestServer({ env: { JOE_SHORT_KEYWORD: 'go', JOE_JOB_TICK: '1h' } });
    alice = await s.store.users.create({ email: 'alice@example.com', displayName: 'Alice Smith' });
    const a = asUser(alice, 'web');
    const link = await s.links.create(a, { slug: 'runbook', url: 'https://wiki.example.com/operations/runbook', title: 'Runbook' });
    linkId = link.id;
    // Three versions within a few seconds: the same minute, told apart by seconds and by what changed.
    await s.links.update(a, link.id, { url: 'https://handbook.example.com/engineering/operations/incident-response/runbook' });
    await new Promise((r) => setTimeout(r, 1_100));
    await s.links.update(a, link.id, { title: 'Incident runbook' });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await s?.stop();
  });

  test('each version has a name of its own, and Restore says which one came back', { timeout: 60_000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 375, height: 812 } });
    const problems = new Problems(context);
    const page = await context.newPage();
    await signInLocal(page, s, alice);
    await page.goto(`${s.url}/dashboard/links/${linkId}`);
    await htmxReady(page);
    const names = await page
      .locator('#history-list')
      .getByRole('button', { name: /^Restore the version of / })
      .evaluateAll((bs) => bs.map((b) => b.getAttribute('aria-label')!));
    assert.equal(names.length, 2, 'the two earlier versions can be restored');
    assert.equal(new Set(names).size, names.length, `versions named apart: ${names.join(' | ')}`);
    for (const name of names) assert.match(name, /\d{1,2}:\d{2}:\d{2} [AP]M UTC \(.+\)$/, 'to the second, with what changed');
    assert.ok(names.some((n) => n.endsWith('(edited destination)')));
    assert.ok(names.some((n) => n.endsWith('(created)')));

    // The destination's old and new value each start a line; a URL breaks between its parts.
    const change = page.locator('#history-list dd', { has: page.locator('[data-change="to"]') }).first();
    const [from, to] = await Promise.all([
      change.locator('[data-change="from"]').boundingBox(),
      change.locator('[data-change="to"]').boundingBox(),
    ]);
    assert.ok(from && to && to.y >= from.y + from.height - 1, 'the new value starts below the old one');
    const splitWords = await change.evaluate((dd) => {
      const out: string[] = [];
      const range = document.createRange();
      for (const text of Array.from(dd.querySelectorAll('span')).flatMap((el) =>
        Array.from(el.childNodes).filter((n): n is Text => n instanceof Text),
      )) {
        for (const m of text.data.matchAll(/[a-z]{4,}/g)) {
          range.setStart(text, m.index);
          range.setEnd(text, m.index + m[0].length);
          if (new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top))).size > 1) out.push(m[0]);
        }
      }
      return out;
    });
    assert.deepEqual(splitWords, [], 'no word of a URL is broken across lines');
    // The link's own destination above breaks between its parts too.
    const destinationSplit = await page.locator('#link-detail a[target="_blank"][href^="https://handbook"]').evaluate((a) => {
      const out: string[] = [];
      const range = document.createRange();
      const walker = document.createTreeWalker(a, NodeFilter.SHOW_TEXT);
      for (let t = walker.nextNode() as Text | null; t; t = walker.nextNode() as Text | null) {
        for (const m of t.data.matchAll(/[a-z]{4,}/g)) {
          range.setStart(t, m.index);
          range.setEnd(t, m.index + m[0].length);
          if (new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top))).size > 1) out.push(m[0]);
        }
      }
      return out;
    });
    assert.deepEqual(destinationSplit, [], 'no word of the destination is broken across lines');
    await screenshot(page, 'history-versions-375');
    await assertAccessible(page, 'history versions (375px)');

    const created = names.find((n) => n.endsWith('(created)'))!;
    await page.getByRole('button', { name: created, exact: true }).click();
    const toast = page.locator('#toast-area').getByText(`Restored the version of ${created.slice('Restore the version of '.length)}.`);
    await toast.waitFor();
    problems.assertNone();
    await context.close();
  });
});
