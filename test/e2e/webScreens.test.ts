import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { User } from '../../src/store/types.js';
import {
  assertAccessible,
  checkScreen,
  chromiumSkip,
  htmxReady,
  launchBrowser,
  Problems,
  screenshot,
  signInLocal,
  sidewaysOverflow,
} from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addOwner, createLink, setLifecycle, updateLink } from '../helpers/links.js';
import { freePort } from '../http/stateLinkFixtures.js';

/**
 * Every main page in both themes, at desktop width and at 375 px: axe finds
 * no serious or critical problem (text contrast included), nothing scrolls
 * sideways on a phone, no console error or CSP violation. Screenshots go to
 * test-results/ for a person to look at.
 */

const THEMES = ['joe-light', 'joe-dark'] as const;
const WIDTHS = [1280, 375] as const;

describe('main pages in both themes and on a phone', { skip: chromiumSkip('screens') }, () => {
  let s: TestServer;
  let browser: Browser;
  let alice: User;
  let admin: User;
  let detailId = '';
  let vaultId = '';
  let statusId = '';
  let payrollId = '';

  before(async () => {
    // The base URL names the server's own address, so the app-state demo at /_/state is served.
    const port = await freePort();
    s = await startTestServer({
      env: { JOE_SHORT_KEYWORD: 'go', JOE_HTTP_ADDR: `127.0.0.1:${port}`, JOE_BASE_URL: `http://127.0.0.1:${port}` },
    });
    alice = await s.store.users.create({ email: 'alice@example.com', displayName: 'Alice Smith' });
    admin = await s.store.users.create({ email: 'admin@example.com', displayName: 'Ada Admin', role: 'admin' });
    const bob = await s.store.users.create({ email: 'bob@example.com', displayName: 'Bob Jones' });
    const jira = await createLink(
      s.store,
      {
        slug: 'jira',
        url: 'https://jira.example.com/browse/$ticket',
        title: 'Jira',
        description: 'Open any ticket: go/jira/ABC-123',
        tags: ['Engineering', 'Tools'],
      },
      alice.id,
    );
    detailId = jira.id;
    await addOwner(s.store, jira.id, bob.id);
    const vault = await createLink(
      s.store,
      { slug: 'vault', url: 'https://vault.example.com/', title: 'Vault', visibility: 'secure', tags: ['Engineering'] },
      alice.id,
      { shareWith: [bob.id] },
    );
    vaultId = vault.id;
    await createLink(
      s.store,
      {
        slug: 'onboarding',
        url: 'https://wiki.example.com/onboarding',
        title: 'Onboarding guide',
        visibility: 'private',
        description: 'Start here in your first week',
      },
      alice.id,
    );
    const retro = await createLink(s.store, { slug: 'retro-2029', url: 'https://retro.example.com/2029', title: 'Retro board' }, alice.id);
    await setLifecycle(s.store, retro.id, { archived: true });
    const status = await createLink(
      s.store,
      { slug: 'status', url: 'https://status.example.com', title: 'Status page', tags: ['Tools'] },
      bob.id,
    );
    for (let i = 0; i < 3; i++) await s.store.health.record(status.id, { kind: 'failure', status: 503, error: null }, 3_600_000);
    await addOwner(s.store, status.id, alice.id);
    statusId = status.id;
    await s.store.keywords.create({ keyword: 'gh', urlTemplate: 'https://github.com/{slug}', description: 'GitHub repositories' });
    await s.store.tokens.create(alice.id, 'Laptop CLI');
    await s.store.clicks.insertBatch([
      { id: randomUUID(), link_id: vault.id, user_id: bob.id, ip_hash: 'h', user_agent: null, referrer: null, clicked_at: Date.now() },
    ]);
    // Someone else's secure link (Alice gets the 403 page) and one of Alice's that has just expired.
    const payroll = await createLink(
      s.store,
      { slug: 'payroll', url: 'https://payroll.example.com/', title: 'Payroll', visibility: 'secure' },
      admin.id,
    );
    payrollId = payroll.id;
    const soon = Math.ceil((Date.now() + 1_500) / 1000) * 1000;
    const offer = await createLink(s.store, { slug: 'spring-offer', url: 'https://offer.example.com/', title: 'Spring offer' }, alice.id);
    await updateLink(s.store, offer.id, { expiresAt: soon });
    browser = await launchBrowser();
    while (Date.now() <= soon + 100) await new Promise((r) => setTimeout(r, 100));
  });

  after(async () => {
    await browser?.close();
    await s?.stop();
  });

  const check = (page: Page, problems: Problems, name: string, theme: string, width: number) =>
    checkScreen(page, problems, `${name}-${theme}-${width}`, { name, theme, width });

  /**
   * The daily chart is scaled to its box, never scrolled: its last day (today) is in view and
   * its axis text renders at 11 px or more.
   */
  async function chartFits(page: Page, width: number): Promise<void> {
    const svg = page.locator('[data-chart] svg[data-chart-days]:visible');
    assert.equal(await svg.count(), 1, 'one drawing of the chart is shown');
    assert.equal(await svg.getAttribute('data-chart-layout'), width < 640 ? 'compact' : 'wide');
    const facts = await svg.evaluate((el) => {
      const box = el.getBoundingClientRect();
      const labels = Array.from(el.querySelectorAll('.chart-x-axis text')).map((t) => t.getBoundingClientRect());
      const last = labels[labels.length - 1]!;
      const viewBoxWidth = (el as SVGSVGElement).viewBox.baseVal.width;
      const font = Number(el.querySelector('.chart-x-axis')!.getAttribute('font-size'));
      return { right: box.right, lastRight: last.right, lastLeft: last.left, px: (font * box.width) / viewBoxWidth };
    });
    assert.ok(facts.right <= width && facts.lastRight <= width && facts.lastLeft >= 0, `today's label is in view at ${width}px`);
    assert.ok(facts.px >= 11, `axis text renders at ${facts.px.toFixed(1)} px at ${width}px`);
  }

  for (const theme of THEMES) {
    for (const width of WIDTHS) {
      test(`${theme} at ${width}px`, { timeout: 180_000 }, async () => {
        const origin = s.url;
        const anon = await browser.newContext({ viewport: { width, height: 900 } });
        await anon.addCookies([{ name: 'theme', value: theme, url: origin }]);
        const anonProblems = new Problems(anon);
        anonProblems.allow(
          (path, status) =>
            (['/no-such-link', '/spring-offer', '/retro-2029', '/_/link-missing'].includes(path) && status === 404) ||
            (path === '/%zz' && status === 400),
        );
        const ap = await anon.newPage();
        for (const [name, path] of [
          ['landing', '/'],
          ['sign-in', '/auth/login'],
          ['browse', '/links'],
          ['profile', '/u/alice-smith'],
          ['not-found', '/no-such-link'],
          ['expired', '/spring-offer'],
          ['archived-slug', '/retro-2029'],
          ['link-missing', '/_/link-missing'],
          ['state-demo', '/_/state'],
          ['bad-request', '/%zz'],
        ] as const) {
          await ap.goto(`${origin}${path}`);
          await check(ap, anonProblems, name, theme, width);
        }
        await anon.close();

        for (const [user, pages] of [
          [
            alice,
            [
              ['dashboard', '/dashboard'],
              ['detail', `/dashboard/links/${detailId}`],
              ['detail-broken', `/dashboard/links/${statusId}`],
              ['edit', `/dashboard/links/${detailId}/edit`],
              ['stats', `/dashboard/links/${vaultId}/stats`],
              ['analytics', '/dashboard/analytics'],
              ['fill-in', '/jira'],
              ['expired-owner', '/spring-offer'],
              ['archived-owner', '/retro-2029'],
              ['new-link', '/dashboard/links/new'],
              ['import', '/dashboard/links/import'],
              ['notifications', '/notifications'],
              ['notification-settings', '/dashboard/settings/notifications'],
              ['tags', '/dashboard/tags'],
              ['tag', '/dashboard/tags/engineering'],
              ['tokens', '/dashboard/settings/tokens'],
              ['forbidden', '/payroll'],
              ['forbidden-secure-page', `/dashboard/links/${payrollId}`],
            ],
          ],
          [
            admin,
            [
              ['admin', '/admin'],
              ['admin-users', '/admin/users'],
              ['admin-links', '/admin/links'],
              ['admin-keywords', '/admin/keywords'],
              ['admin-health', '/admin/link-health'],
              ['admin-webhooks', '/admin/webhooks'],
              ['admin-audit', '/admin/audit'],
              ['admin-missing', '/admin/nothing-here'],
            ],
          ],
        ] as const) {
          const context = await browser.newContext({ viewport: { width, height: 900 } });
          await context.addCookies([{ name: 'theme', value: theme, url: origin }]);
          const problems = new Problems(context);
          problems.allow(
            (path, status) =>
              ((path === '/payroll' || path.startsWith('/dashboard/links/')) && status === 403) ||
              (['/spring-offer', '/retro-2029', '/admin/nothing-here'].includes(path) && status === 404),
          );
          const page = await context.newPage();
          await signInLocal(page, s, user);
          for (const [name, path] of pages) {
            await page.goto(`${origin}${path}`);
            await check(page, problems, name, theme, width);
            if (name === 'stats') await chartFits(page, width);
          }
          if (user === alice) {
            await page.goto(`${origin}/dashboard`);
            await htmxReady(page);
            if (width < 768) {
              // On a phone the navigation lives in a drawer behind the menu button.
              await page.getByRole('button', { name: 'Open navigation' }).click();
              await page.locator('aside').getByRole('link', { name: 'Tags' }).waitFor({ state: 'visible' });
              await page.waitForTimeout(400); // the drawer slides in
              await screenshot(page, `drawer-${theme}-${width}`);
              await page.keyboard.press('Escape');
              await page.goto(`${origin}/dashboard`);
              await htmxReady(page);
            }
            await page.locator('main').getByRole('link', { name: 'New link' }).click();
            await page.locator('#modal dialog[open]').waitFor();
            await check(page, problems, 'create-modal', theme, width);
            await page.keyboard.press('Escape');
            await page.locator('#modal dialog').waitFor({ state: 'detached' });
            const onboarding = page.locator('#link-list tr', { hasText: 'onboarding' });
            // Below 1024 px a row is a card whose actions sit in its menu (docs/web-ui.md#link-tables).
            if (width < 1024) await onboarding.locator('summary[aria-label="Actions for go/onboarding"]').click();
            // Delete hides the row and offers Undo (docs/web-ui.md#deleting-with-undo); Undo keeps it.
            await onboarding.getByRole('link', { name: 'Delete' }).click();
            const undo = page.locator('#toast-area').getByRole('button', { name: 'Undo deleting go/onboarding' });
            await undo.hover(); // the undo window waits while the pointer is on the toast
            await check(page, problems, 'undo-delete', theme, width);
            await undo.click();
            await onboarding.waitFor({ state: 'visible' });
          }
          await context.close();
        }
      });
    }
  }

  test('a new token at 375 px: the banner reads in lines, the token fits and copies', { timeout: 60_000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 375, height: 800 }, permissions: ['clipboard-read', 'clipboard-write'] });
    const problems = new Problems(context);
    const page = await context.newPage();
    await signInLocal(page, s, alice);
    await page.goto(`${s.url}/dashboard/settings/tokens`);
    await htmxReady(page);
    await page.getByLabel('Name').fill('Phone shortcut');
    await page.locator('#tokens-section form button[type=submit]').click();
    const banner = page.locator('#tokens-section [role=status]');
    await banner.waitFor();
    // The sentence wraps in a few lines, not one word per line.
    const sentence = banner.locator('p').first();
    const lineHeight = await sentence.evaluate((el) => parseFloat(getComputedStyle(el).lineHeight) || 24);
    const lines = Math.round(((await sentence.boundingBox())!.height as number) / lineHeight);
    assert.ok(lines <= 4, `the banner's sentence takes ${lines} lines at 375 px`);
    // The token field and its copy button stay inside the screen.
    for (const el of [banner.getByLabel('New token'), banner.getByRole('button', { name: 'Copy token' })]) {
      const box = (await el.boundingBox())!;
      assert.ok(box.x >= 0 && box.x + box.width <= 375, `inside the screen: ${JSON.stringify(box)}`);
    }
    // Neither the page nor the token table scrolls sideways: on a phone each token is a block.
    assert.equal(await sidewaysOverflow(page), 0, 'the page fits');
    const table = page.locator('#tokens-section table');
    assert.ok(await table.evaluate((t) => t.parentElement!.scrollWidth <= t.parentElement!.clientWidth), 'the token table fits its box');
    await screenshot(page, 'token-created-375');
    await banner.getByRole('button', { name: 'Copy token' }).click();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    assert.match(copied, /^jl_/);
    assert.equal(copied, await banner.getByLabel('New token').inputValue());
    await assertAccessible(page, 'new token banner (375px)');
    await screenshot(page, 'token-created-375');
    problems.assertNone();
    await context.close();
  });

  test('Swagger UI at /api/docs/ works under its own policy', { timeout: 60_000 }, async (t) => {
    const probe = await fetch(`${s.url}/api/docs/`);
    if (probe.status !== 200) {
      t.skip(`/api/docs/ answers ${probe.status}: the API documentation is not mounted in this build`);
      process.stderr.write(`NOTICE: /api/docs/ answers ${probe.status}; the Swagger UI check is skipped\n`);
      return;
    }
    for (const width of WIDTHS) {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      const problems = new Problems(context);
      const page = await context.newPage();
      await page.goto(`${s.url}/api/docs/`);
      await page.locator('.swagger-ui .info').waitFor();
      // The page leads back to the app and names the real token settings page.
      const info = page.locator('.swagger-ui .info');
      assert.equal(await info.getByRole('link', { name: /back to joe-links/i }).getAttribute('href'), '/dashboard');
      assert.equal(await info.getByRole('link', { name: 'API tokens' }).getAttribute('href'), '/dashboard/settings/tokens');
      const overflow = await sidewaysOverflow(page);
      assert.ok(overflow <= 0, `API docs at ${width}px scrolls sideways by ${overflow}px`);
      // Our stylesheet lifts Swagger UI's method badges and links to AA; our script names its
      // dark-mode toggle (docs/api.md#openapi-and-swagger-ui). An operation opened too.
      await page.locator('.opblock-summary').first().click();
      await page.locator('.opblock.is-open').first().waitFor();
      await assertAccessible(page, `API docs (${width}px)`);
      await screenshot(page, `api-docs-${width}`);
      problems.assertNone();
      await context.close();
    }
  });
});
