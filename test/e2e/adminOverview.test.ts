import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import type { User } from '../../src/store/types.js';
import { checkScreen, chromiumSkip, htmxReady, launchBrowser, Problems, signInLocal, useTheme } from '../helpers/browser.js';
import { createLink } from '../helpers/links.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The admin overview (docs/web-ui.md#admin-screens) says what needs attention: how many links are
 * broken and the worst of them, and which webhook endpoints fail, each a way to the page that
 * deals with it.
 */

describe('the admin overview in a browser', { skip: chromiumSkip('admin overview') }, () => {
  let s: TestServer;
  let browser: Browser;
  let admin: User;
  let hookId = '';

  before(async () => {
    s = await startTestServer({ env: { JOE_SHORT_KEYWORD: 'go' } });
    admin = await s.store.users.create({ email: 'admin@example.com', displayName: 'Ada Admin', role: 'admin' });
    for (const [slug, failures] of [
      ['wiki', 3],
      ['jira', 7],
      ['fine', 1],
    ] as const) {
      const l = await createLink(s.store, { slug, url: `https://${slug}.example.com/` }, admin.id);
      for (let i = 0; i < failures; i++) await s.store.health.record(l.id, { kind: 'failure', status: 502, error: null }, 3_600_000);
    }
    const hook = await s.store.webhooks.create({ url: 'https://hooks.example.com/joe', events: ['*'], secret: 'whsec_x' });
    await s.store.webhooks.create({ url: 'https://quiet.example.com/joe', events: ['*'], secret: 'whsec_y' });
    hookId = hook.id;
    for (let n = 0; n < 2; n++) {
      await s.store.transaction(async (tx) => {
        const [id] = await s.store.outbox.enqueue(
          [
            {
              channel: 'webhook',
              webhookId: hook.id,
              messageId: randomUUID(),
              eventType: 'link.updated',
              payload: '{}',
              dueAt: Date.now(),
            },
          ],
          tx,
        );
        await s.store.outbox.settle(
          id!,
          { attempt: 1, at: Date.now(), durationMs: 12, statusCode: 500, error: null },
          { status: 'failed', at: Date.now() },
          tx,
        );
      });
    }
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await s?.stop();
  });

  for (const theme of ['joe-light', 'joe-dark'] as const) {
    for (const width of [1280, 375]) {
      test(`broken links and failing webhooks, each leading to its page (${theme}, ${width}px)`, { timeout: 60_000 }, async () => {
        const context = await browser.newContext({ viewport: { width, height: 900 }, hasTouch: width < 640 });
        await useTheme(context, s.url, theme);
        const problems = new Problems(context);
        const page = await context.newPage();
        await signInLocal(page, s, admin);
        await page.goto(`${s.url}/admin`);
        await htmxReady(page);

        const broken = page.getByRole('region', { name: 'Broken links' });
        assert.match(await broken.innerText(), /2 broken links/);
        assert.deepEqual(await broken.locator('li a').allInnerTexts(), ['go/jira', 'go/wiki'], 'the worst first');
        assert.match(await broken.locator('li').first().innerText(), /7 failures/);
        const hooks = page.getByRole('region', { name: 'Failing webhooks' });
        assert.match(await hooks.innerText(), /1 failing webhook\b/);
        assert.match(await hooks.innerText(), /2 failed deliveries in 7 days · last: HTTP 500/);
        assert.doesNotMatch(await hooks.innerText(), /quiet\.example\.com/);
        await checkScreen(page, problems, `admin-overview-${theme}-${width}`, { name: 'admin overview', theme, width });

        const tap = (l: ReturnType<typeof page.getByRole>) => (width < 640 ? l.tap() : l.click());
        await tap(broken.getByRole('link', { name: 'Link Health →' }));
        await page.waitForURL(`${s.url}/admin/link-health`);
        await page.goBack();
        await tap(hooks.getByRole('link', { name: 'https://hooks.example.com/joe' }));
        await page.waitForURL(`${s.url}/admin/webhooks/${hookId}`);
        await page.goBack();
        await tap(hooks.getByRole('link', { name: 'Webhooks →' }));
        await page.waitForURL(`${s.url}/admin/webhooks`);
        problems.assertNone();
        await context.close();
      });
    }
  }
});
