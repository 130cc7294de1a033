import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import type { User } from '../../src/store/types.js';
import {
  assertAccessible,
  chromiumSkip,
  htmxReady,
  launchBrowser,
  Problems,
  screenshot,
  signInLocal,
  useTheme,
} from '../helpers/browser.js';
import { eventually, get, startTestServer, type TestServer } from '../helpers/server.js';
import { createLink, deleteLink } from '../helpers/links.js';

/**
 * Deleting a link waits for Undo (docs/web-ui.md#deleting-with-undo), in a real Chromium: the
 * row hides and a toast offers Undo; Undo brings the row back and sends nothing; when the toast
 * runs out (Playwright's clock moves time on) the DELETE is sent; leaving the page at once still
 * sends it (keepalive); a refused delete brings the row back with an error toast. The table at
 * 1280 px, the card menu at 375 px and the link's own page, in both themes, with axe and a
 * screenshot while the toast shows, and no console error or CSP violation.
 */

const THEMES = ['joe-light', 'joe-dark'] as const;

describe('deleting a link with Undo', { skip: chromiumSkip('undo delete') }, () => {
  let s: TestServer;
  let browser: Browser;
  let alice: User;
  let apiToken: string;

  before(async () => {
    s = await startTestServer({ env: { JOE_SHORT_KEYWORD: 'go' } });
    alice = await s.store.users.create({ email: 'alice@example.com', displayName: 'Alice' });
    apiToken = (await s.store.tokens.create(alice.id, 'checks')).plaintext;
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await s?.stop();
  });

  /** The link as the API sees it: 200 while it exists, 404 once deleted. */
  async function apiStatus(id: string): Promise<number> {
    return (await get(`${s.url}/api/v1/links/${id}`, { authorization: `Bearer ${apiToken}` })).status;
  }

  /** A signed-in page whose timers Playwright's clock controls, and every DELETE it sends. */
  async function session(theme: (typeof THEMES)[number], width: number) {
    const context = await browser.newContext({ viewport: { width, height: width < 640 ? 812 : 900 } });
    await useTheme(context, s.url, theme);
    const problems = new Problems(context);
    const page = await context.newPage();
    await page.clock.install();
    const deletes: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'DELETE') deletes.push(new URL(r.url()).pathname);
    });
    await signInLocal(page, s, alice);
    await htmxReady(page);
    return { context, page, problems, deletes };
  }

  const toastArea = (page: Page) => page.locator('#toast-area');
  const row = (page: Page, slug: string) => page.locator('#link-list tr[data-link-row]', { hasText: slug });
  const undoButton = (page: Page, short: string) => toastArea(page).getByRole('button', { name: `Undo deleting ${short}` });

  async function focusedName(page: Page): Promise<string | null> {
    return page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent ?? null);
  }

  /**
   * Checks the waiting state: the toast says what was deleted, its Undo button has focus, axe
   * passes. The pointer rests on the toast, which holds the undo window however long axe takes.
   */
  async function expectWaiting(page: Page, short: string, shot: string): Promise<void> {
    await toastArea(page).getByText(`Deleted ${short}`).waitFor();
    assert.equal(await focusedName(page), `Undo deleting ${short}`, 'focus moves to Undo');
    await undoButton(page, short).hover();
    await page.clock.fastForward(10_000);
    assert.ok(await undoButton(page, short).isVisible(), 'the toast stays while pointed at');
    await assertAccessible(page, `${shot} with the Undo toast`);
    await screenshot(page, shot);
  }

  for (const theme of THEMES) {
    test(`the table at 1280 px (${theme}): Undo brings the row back, sends nothing, and the link still resolves`, async () => {
      const link = await createLink(s.store, { slug: `keep-${theme}`, url: 'https://keep.example.com' }, alice.id);
      const short = `go/${link.slug}`;
      const { context, page, problems, deletes } = await session(theme, 1280);
      const trash = row(page, link.slug).getByRole('link', { name: 'Delete' });
      await trash.click();
      await row(page, link.slug).waitFor({ state: 'hidden' });
      await expectWaiting(page, short, `undo-delete-list-${theme}-1280`);

      await undoButton(page, short).click();
      await row(page, link.slug).waitFor({ state: 'visible' });
      assert.equal(await toastArea(page).getByText(`Deleted ${short}`).count(), 0, 'the toast is gone');
      assert.equal(await focusedName(page), 'Delete', 'focus is back on the Delete button');
      // Long after the undo window nothing has been sent.
      await page.clock.fastForward(20_000);
      await page.reload();
      await row(page, link.slug).waitFor();
      assert.deepEqual(deletes, []);
      assert.equal(await apiStatus(link.id), 200);
      const resolved = await get(`${s.url}/${link.slug}`);
      assert.equal(resolved.status, 302, 'the link still redirects');
      assert.equal(resolved.headers.get('location'), 'https://keep.example.com');
      problems.assertNone();
      await context.close();
    });
  }

  test('when the toast runs out the delete is sent, to the endpoint a form would post to', async () => {
    const link = await createLink(s.store, { slug: 'runs-out', url: 'https://gone.example.com' }, alice.id);
    const { context, page, problems, deletes } = await session('joe-light', 1280);
    const total = async () => Number(/of (\d+) links?/.exec(await page.locator('#link-list').innerText())?.[1]);
    const before = await total();
    await row(page, link.slug).getByRole('link', { name: 'Delete' }).click();
    await toastArea(page).getByText('Deleted go/runs-out').waitFor();
    await page.clock.fastForward(3_000);
    assert.deepEqual(deletes, [], 'nothing is sent while Undo is offered');
    await page.clock.fastForward(4_000);
    await toastArea(page).getByText('Deleted go/runs-out').waitFor({ state: 'detached' });
    await eventually(async () => (await apiStatus(link.id)) === 404);
    assert.deepEqual(deletes, [`/dashboard/links/${link.id}`]);
    await row(page, link.slug).waitFor({ state: 'detached' });
    assert.equal((await get(`${s.url}/${link.slug}`)).status, 404, 'the link no longer resolves');
    // The list refreshes itself (htmx waits on timers, which the test's clock moves).
    await eventually(async () => {
      await page.clock.fastForward(500);
      return (await total()) === before - 1;
    });
    problems.assertNone();
    await context.close();
  });

  test('a list swapped in while a delete waits keeps the row hidden, and Undo shows the new one', async () => {
    const link = await createLink(s.store, { slug: 'mid-swap', url: 'https://swap.example.com' }, alice.id);
    const { context, page, problems, deletes } = await session('joe-light', 1280);
    await row(page, link.slug).getByRole('link', { name: 'Delete' }).click();
    await row(page, link.slug).waitFor({ state: 'hidden' });
    // Search as you type swaps in a fresh list holding a fresh copy of the row.
    const before = await row(page, link.slug).elementHandle();
    await page.getByPlaceholder('Search by slug').fill('mid-swap');
    await page.waitForFunction((old) => !document.body.contains(old), before);
    await page.locator('#link-list tr[data-link-row]').first().waitFor({ state: 'attached' });
    assert.equal(await row(page, link.slug).count(), 1, 'the search lists the link');
    assert.equal(await row(page, link.slug).isVisible(), false, 'the freshly rendered row stays hidden');
    await undoButton(page, 'go/mid-swap').click();
    await row(page, link.slug).waitFor({ state: 'visible' });
    assert.deepEqual(deletes, []);
    problems.assertNone();
    await context.close();
  });

  test('the admin list sends its own delete when the toast runs out', async () => {
    const admin = await s.store.users.create({ email: 'root@example.com', displayName: 'Root', role: 'admin' });
    const link = await createLink(s.store, { slug: 'admin-drop', url: 'https://admin.example.com' }, alice.id);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const problems = new Problems(context);
    const page = await context.newPage();
    await page.clock.install();
    await signInLocal(page, s, admin);
    await page.goto(`${s.url}/admin/links`);
    await htmxReady(page);
    const adminRow = page.locator(`#link-${link.id}`);
    await adminRow.getByRole('link', { name: 'Delete' }).click();
    await adminRow.waitFor({ state: 'hidden' });
    const sent = page.waitForRequest((r) => r.method() === 'DELETE');
    await page.clock.fastForward(7_000);
    assert.equal(new URL((await sent).url()).pathname, `/admin/links/${link.id}`);
    await eventually(async () => (await apiStatus(link.id)) === 404);
    problems.assertNone();
    await context.close();
  });

  test('leaving the page at once still sends the waiting delete (keepalive)', async () => {
    const link = await createLink(s.store, { slug: 'left-behind', url: 'https://left.example.com' }, alice.id);
    const { context, page, problems } = await session('joe-light', 1280);
    await row(page, link.slug).getByRole('link', { name: 'Delete' }).click();
    await toastArea(page).getByText('Deleted go/left-behind').waitFor();
    await page.goto(`${s.url}/links`);
    await eventually(async () => (await apiStatus(link.id)) === 404);
    problems.assertNone();
    await context.close();
  });

  test('a refused delete brings the row back and says so', async () => {
    const link = await createLink(s.store, { slug: 'gone-elsewhere', url: 'https://elsewhere.example.com' }, alice.id);
    const { context, page, problems } = await session('joe-light', 1280);
    problems.allow((path, status) => path === `/dashboard/links/${link.id}` && status === 404);
    await deleteLink(s.store, link.id); // deleted elsewhere while the list is open
    await row(page, link.slug).getByRole('link', { name: 'Delete' }).click();
    await toastArea(page).getByText('Deleted go/gone-elsewhere').waitFor();
    await page.clock.fastForward(7_000);
    await toastArea(page).getByText('Could not delete go/gone-elsewhere. That link does not exist.').waitFor();
    await row(page, link.slug).waitFor({ state: 'visible' });
    problems.assertNone();
    await context.close();
  });

  for (const theme of THEMES) {
    test(`the card menu at 375 px (${theme}): Undo, then a delete that runs out`, async () => {
      const link = await createLink(s.store, { slug: `card-${theme}`, url: 'https://card.example.com' }, alice.id);
      const short = `go/${link.slug}`;
      const { context, page, problems } = await session(theme, 375);
      const card = row(page, link.slug);
      const menu = card.locator(`summary[aria-label="Actions for ${short}"]`);
      const deleteInMenu = (): Locator => card.getByRole('link', { name: 'Delete' });
      await menu.click();
      await deleteInMenu().click();
      await card.waitFor({ state: 'hidden' });
      await expectWaiting(page, short, `undo-delete-card-${theme}-375`);
      await undoButton(page, short).click();
      await card.waitFor({ state: 'visible' });
      assert.equal(await focusedName(page), `Actions for ${short}`, 'focus is back on the card menu');
      assert.equal(await apiStatus(link.id), 200);

      await menu.click();
      await deleteInMenu().click();
      await card.waitFor({ state: 'hidden' });
      await page.clock.fastForward(7_000);
      await eventually(async () => (await apiStatus(link.id)) === 404);
      problems.assertNone();
      await context.close();
    });

    for (const width of [375, 1280]) {
      test(`the link page at ${width} px (${theme}): dimmed under a note while Undo is offered, then to the dashboard`, async () => {
        const link = await createLink(s.store, { slug: `page-${theme}-${width}`, url: 'https://page.example.com' }, alice.id);
        const short = `go/${link.slug}`;
        const { context, page, problems } = await session(theme, width);
        await page.goto(`${s.url}/dashboard/links/${link.id}`);
        await htmxReady(page);
        const note = page.getByText(`${short} will be deleted in a few seconds unless you undo it.`);
        const deleteButton = page.locator('main').getByRole('link', { name: 'Delete' });
        assert.equal(await note.isVisible(), false, 'no note before a delete');

        await deleteButton.click();
        await note.waitFor({ state: 'visible' });
        await expectWaiting(page, short, `undo-delete-page-${theme}-${width}`);
        await undoButton(page, short).click();
        await note.waitFor({ state: 'hidden' });
        assert.equal(await focusedName(page), 'Delete', 'focus is back on Delete');

        await deleteButton.click();
        await note.waitFor({ state: 'visible' });
        await page.clock.fastForward(7_000);
        await page.waitForURL(`${s.url}/dashboard`);
        assert.equal(await apiStatus(link.id), 404);
        problems.assertNone();
        await context.close();
      });
    }
  }

  test('without JavaScript Delete still confirms on its own page and deletes at once', async () => {
    const link = await createLink(s.store, { slug: 'no-script', url: 'https://plain.example.com' }, alice.id);
    const context = await browser.newContext({ javaScriptEnabled: false });
    const problems = new Problems(context);
    const page = await context.newPage();
    const token = await s.store.loginTokens.create(alice.id);
    await page.goto(`${s.url}/auth/local?token=${token}`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${s.url}/dashboard`);
    await page.goto(`${s.url}/dashboard/links/${link.id}`);
    await page.locator('main').getByRole('link', { name: 'Delete' }).click();
    await page.getByRole('heading', { name: "Delete 'no-script'?" }).waitFor();
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL(`${s.url}/dashboard`);
    await page.locator('#toast-area').getByText('Deleted go/no-script.').waitFor();
    assert.equal(await apiStatus(link.id), 404);
    problems.assertNone();
    await context.close();
  });
});
