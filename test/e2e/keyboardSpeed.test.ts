import assert from 'node:assert/strict';
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
  useTheme,
} from '../helpers/browser.js';
import { createLink } from '../helpers/links.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Speed for people who live in the app (docs/web-ui.md#keyboard-shortcuts,
 * docs/web-ui.md#command-palette): a search keeps its words in the address, `/` puts the cursor
 * in the search box, and Ctrl-K (⌘-K) opens a palette that finds links, offers to create the
 * name typed and lists the app's pages, driven by keys and by taps.
 */

describe('search in the address, `/` and the command palette', { skip: chromiumSkip('keyboard speed') }, () => {
  let s: TestServer;
  let browser: Browser;
  let alice: User;
  let admin: User;
  let wikiId = '';

  before(async () => {
    s = await startTestServer({ env: { JOE_SHORT_KEYWORD: 'go' } });
    alice = await s.store.users.create({ email: 'alice@example.com', displayName: 'Alice Smith' });
    admin = await s.store.users.create({ email: 'admin@example.com', displayName: 'Ada Admin', role: 'admin' });
    wikiId = (
      await createLink(s.store, { slug: 'wiki', url: 'https://wiki.example.com/', title: 'Team wiki', visibility: 'public' }, alice.id)
    ).id;
    await createLink(s.store, { slug: 'jira', url: 'https://jira.example.com/', title: 'Tickets' }, alice.id);
    await createLink(s.store, { slug: 'payroll', url: 'https://payroll.example.com/', title: 'Payroll', visibility: 'secure' }, admin.id);
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await s?.stop();
  });

  async function session(user: User | null, opts: { width?: number; theme?: 'joe-light' | 'joe-dark'; mac?: boolean } = {}) {
    const width = opts.width ?? 1280;
    const context = await browser.newContext({
      viewport: { width, height: 900 },
      hasTouch: width < 640,
      ...(opts.mac ? { userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/537.36 Chrome/130 Safari/537.36' } : {}),
    });
    await useTheme(context, s.url, opts.theme ?? 'joe-light');
    const problems = new Problems(context);
    const page = await context.newPage();
    if (user) await signInLocal(page, s, user);
    else await page.goto(`${s.url}/links`);
    await htmxReady(page);
    return { page, problems, close: () => context.close() };
  }

  const focusedId = (page: Page) => page.evaluate(() => document.activeElement?.id ?? '');

  test('a search as you type keeps ?q= in the address, and reloading shows the same results with the words in the box', async () => {
    const { page, problems, close } = await session(alice);
    await page.locator('#dashboard-search').pressSequentially('wik');
    await page.waitForURL(`${s.url}/dashboard?q=wik`);
    await page.locator('#link-list tr[data-link-row]').first().waitFor();
    assert.equal(await page.locator('#link-list tr[data-link-row]').count(), 1);
    assert.equal(await page.locator(`#link-${wikiId}`).count(), 1);
    await page.reload();
    await htmxReady(page);
    assert.equal(await page.locator('#dashboard-search').inputValue(), 'wik');
    assert.equal(await page.locator('#link-list tr[data-link-row]').count(), 1);
    assert.equal(await page.locator(`#link-${wikiId}`).count(), 1);
    // Submitting (Enter) lands on the same address, answered in place rather than by a page
    // load racing the live search.
    await page.evaluate(() => document.body.setAttribute('data-before-enter', ''));
    await page.locator('#dashboard-search').fill('jira');
    await page.locator('#dashboard-search').press('Enter');
    await page.waitForURL(`${s.url}/dashboard?q=jira`);
    assert.equal(await page.locator('#link-list tr[data-link-row]').count(), 1);
    assert.equal(await page.locator(`#link-${wikiId}`).count(), 0);
    assert.equal(await page.locator('body[data-before-enter]').count(), 1, 'Enter did not load the page again');
    problems.assertNone();
    await close();

    // The admin's list of every link does the same.
    const a = await session(admin);
    await a.page.goto(`${s.url}/admin/links`);
    await htmxReady(a.page);
    await a.page.locator('#admin-search').pressSequentially('payr');
    await a.page.waitForURL(`${s.url}/admin/links?q=payr`);
    await a.page.reload();
    await htmxReady(a.page);
    assert.equal(await a.page.locator('#admin-search').inputValue(), 'payr');
    assert.equal(await a.page.locator('#admin-link-list tr[data-link-row]').count(), 1);
    assert.equal(await a.page.locator(`#link-${wikiId}`).count(), 0);
    a.problems.assertNone();
    await a.close();
  });

  test('`/` puts the cursor in the search box, or goes to the search page from a page without one; typed text keeps its `/`', async () => {
    const { page, problems, close } = await session(alice);
    await page.locator('h1').click();
    await page.keyboard.press('/');
    assert.equal(await focusedId(page), 'dashboard-search');
    await page.keyboard.type('a/b');
    assert.equal(await page.locator('#dashboard-search').inputValue(), 'a/b', 'a `/` typed in a field is text');

    await page.goto(`${s.url}/dashboard/tags`);
    await htmxReady(page);
    await page.keyboard.press('/');
    await page.waitForURL(`${s.url}/dashboard`);
    await page.waitForFunction(() => document.activeElement?.id === 'dashboard-search');
    problems.assertNone();
    await close();

    // A visitor's search page is the public list.
    const v = await session(null);
    await v.page.goto(`${s.url}/`);
    await htmxReady(v.page);
    await v.page.keyboard.press('/');
    await v.page.waitForURL(`${s.url}/links`);
    await v.page.waitForFunction(() => document.activeElement?.id === 'browse-search');
    v.problems.assertNone();
    await v.close();
  });

  test(
    'Ctrl-K opens the palette: links by name or title, Create go/<typed>, the pages; arrows, Enter and Escape',
    { timeout: 60_000 },
    async () => {
      const { page, problems, close } = await session(alice);
      const dialog = page.getByRole('dialog', { name: 'Search and jump' });
      const box = page.getByRole('combobox', { name: 'Find a link or a page' });
      // Escape closes it and gives the focus back where it was.
      await page.locator('#dashboard-search').focus();
      await page.keyboard.press('Control+k');
      await dialog.waitFor();
      assert.equal(await focusedId(page), 'palette-input');
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      assert.equal(await focusedId(page), 'dashboard-search');

      // A title finds its link; Enter opens the link's page.
      await page.locator('h1').click();
      await page.keyboard.press('Control+k');
      await box.pressSequentially('team wi');
      const wiki = page.getByRole('option', { name: /go\/wiki — Team wiki/ });
      await wiki.waitFor();
      assert.equal(await page.getByRole('option', { name: /go\/payroll/ }).count(), 0, 'nobody else’s secure link');
      // The first option is active; Down moves, Up comes back.
      const active = () => box.getAttribute('aria-activedescendant');
      assert.equal(await active(), await wiki.getAttribute('id'));
      await page.keyboard.press('ArrowDown');
      assert.equal(
        await page
          .locator(`#${await active()}`)
          .innerText()
          .then((t) => t.includes('Create go/team-wi')),
        true,
      );
      await page.keyboard.press('ArrowUp');
      assert.equal(await active(), await wiki.getAttribute('id'));
      await screenshot(page, 'palette-links-1280');
      await page.keyboard.press('Enter');
      await page.waitForURL(`${s.url}/dashboard/links/${wikiId}`);
      await htmxReady(page);

      // A page, by its name.
      await page.keyboard.press('Control+k');
      await box.pressSequentially('tokens');
      await page.getByRole('option', { name: /API tokens/ }).waitFor();
      assert.equal(await page.getByRole('option', { name: /Admin/ }).count(), 0, 'no admin pages for someone who is not an admin');
      await page.keyboard.press('Enter');
      await page.waitForURL(`${s.url}/dashboard/settings/tokens`);
      await htmxReady(page);

      // Create go/<typed>: the new-link form with the name filled in.
      await page.keyboard.press('Control+k');
      await box.pressSequentially('standup-notes');
      const createOption = page.getByRole('option', { name: /Create go\/standup-notes/ });
      await createOption.waitFor();
      while ((await active()) !== (await createOption.getAttribute('id'))) await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Enter');
      await page.waitForURL(`${s.url}/dashboard/links/new?slug=standup-notes`);
      assert.equal(await page.locator('input[name="slug"]').inputValue(), 'standup-notes');
      problems.assertNone();
      await close();
    },
  );

  test('⌘-K on a Mac, the admin pages for an admin, and the palette passes axe in both themes', { timeout: 90_000 }, async () => {
    for (const theme of ['joe-light', 'joe-dark'] as const) {
      const { page, problems, close } = await session(admin, { theme, mac: true });
      assert.equal(await page.locator('[data-palette-keys]').innerText(), '⌘ K');
      await page.keyboard.press('Meta+k');
      const box = page.getByRole('combobox', { name: 'Find a link or a page' });
      await box.waitFor();
      await box.pressSequentially('health');
      await page.getByRole('option', { name: /Admin: link health/ }).waitFor();
      await assertAccessible(page, `palette (${theme}, 1280px)`);
      await screenshot(page, `palette-${theme}-1280`);
      await page.keyboard.press('Enter');
      await page.waitForURL(`${s.url}/admin/link-health`);
      problems.assertNone();
      await close();
    }
  });

  test(
    'on a phone the header’s search button opens the palette and a tap opens an option; the pages pass the screen checks',
    { timeout: 120_000 },
    async () => {
      for (const theme of ['joe-light', 'joe-dark'] as const) {
        const { page, problems, close } = await session(alice, { width: 375, theme });
        await checkScreen(page, problems, `dashboard-palette-button-${theme}-375`, { name: 'dashboard', theme, width: 375 });
        await page.getByRole('banner').getByRole('link', { name: 'Search and jump' }).tap();
        const box = page.getByRole('combobox', { name: 'Find a link or a page' });
        await box.waitFor();
        await box.fill('jira');
        const option = page.getByRole('option', { name: /go\/jira — Tickets/ });
        await option.waitFor();
        await assertAccessible(page, `palette (${theme}, 375px)`);
        await screenshot(page, `palette-${theme}-375`);
        const inView = await option.evaluate((el) => {
          const r = el.getBoundingClientRect();
          return r.left >= 0 && r.right <= window.innerWidth && r.height >= 24;
        });
        assert.ok(inView, 'the option is in view and big enough to tap');
        await option.tap();
        await page.waitForURL(/\/dashboard\/links\/[0-9a-f-]+$/);
        problems.assertNone();
        await close();
      }
      for (const theme of ['joe-light', 'joe-dark'] as const) {
        const { page, problems, close } = await session(alice, { width: 1280, theme });
        await checkScreen(page, problems, `dashboard-palette-button-${theme}-1280`, { name: 'dashboard', theme, width: 1280 });
        await close();
      }
    },
  );
});
