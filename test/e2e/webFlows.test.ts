import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { User } from '../../src/store/types.js';
import { assertAccessible, chromiumSkip, htmxReady, launchBrowser, Problems, signInLocal } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createLink, updateLink } from '../helpers/links.js';

/**
 * The main journeys in a real Chromium against the real server: sign in with
 * a one-time link, create a link in the modal, follow it, edit it, make it
 * secure and share it, delete it (and undo that first), switch themes,
 * and an admin's inline edit. Every journey runs axe and fails on serious or
 * critical findings, and on any console error (CSP violations included).
 */

describe('web UI in a browser', { skip: chromiumSkip('web UI') }, () => {
  let s: TestServer;
  let browser: Browser;
  let alice: User;
  let bob: User;
  let carol: User;
  let admin: User;

  before(async () => {
    s = await startTestServer({ env: { JOE_SHORT_KEYWORD: 'go' } });
    alice = await s.store.users.create({ email: 'alice@x.io', displayName: 'Alice' });
    bob = await s.store.users.create({ email: 'bob@x.io', displayName: 'Bob' });
    carol = await s.store.users.create({ email: 'carol@x.io', displayName: 'Carol' });
    admin = await s.store.users.create({ email: 'root@x.io', displayName: 'Root', role: 'admin' });
    await createLink(s.store, { slug: 'handbook', url: 'https://handbook.example.com', tags: ['engineering'] }, alice.id);
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await s?.stop();
  });

  async function session(
    user: User,
    opts: { colorScheme?: 'light' | 'dark' } = {},
  ): Promise<{ context: BrowserContext; page: Page; problems: Problems }> {
    const context = await browser.newContext({ colorScheme: opts.colorScheme ?? 'light', viewport: { width: 1280, height: 900 } });
    const problems = new Problems(context);
    const page = await context.newPage();
    await signInLocal(page, s, user);
    await htmxReady(page);
    return { context, page, problems };
  }

  const dialog = (page: Page) => page.locator('#modal dialog[open]');

  test('create in the modal, follow, edit, secure and share, then delete with Undo offered', { timeout: 120_000 }, async () => {
    const { context, page, problems } = await session(alice);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: s.url });
    await assertAccessible(page, 'dashboard');

    // Create: the modal opens with the slug field focused.
    const newButton = page.locator('main').getByRole('link', { name: 'New link' });
    await newButton.click();
    await dialog(page).waitFor();
    assert.equal(await dialog(page).getByRole('heading').first().textContent(), 'Create a new link');
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('name')), 'slug');
    // The field lower-cases as you type; the check offers the slug meant, one click away.
    await page.keyboard.type('Team Wiki!');
    assert.equal(await dialog(page).locator('#link-slug').inputValue(), 'team wiki!', 'lower-cased as typed');
    await page.locator('#slug-check').getByText('A short name uses lowercase letters, digits and hyphens', { exact: false }).waitFor();
    await page.locator('#slug-check').getByRole('button', { name: 'Use team-wiki' }).click();
    assert.equal(await dialog(page).locator('#link-slug').inputValue(), 'team-wiki');
    await page.locator('#slug-check').getByText('Available!').waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'link-slug', 'back in the field');
    await dialog(page).getByLabel('Destination URL').fill('https://wiki.example.com/$page');
    await page.locator('[data-var-hint]').getByText('go/team-wiki/page').waitFor();
    await dialog(page).getByLabel('Title').fill('Team wiki');
    await dialog(page).getByLabel('Tags').pressSequentially('eng');
    await page.locator('[data-tag-suggestion]', { hasText: 'engineering' }).click();
    assert.equal(await dialog(page).getByLabel('Tags').inputValue(), 'engineering, ');
    await assertAccessible(page, 'create modal');
    await dialog(page).getByRole('button', { name: 'Create link' }).click();
    await page.locator('#toast-area').getByText('Created go/team-wiki.').waitFor();
    await page.locator('#modal dialog').waitFor({ state: 'detached' });
    const row = page.locator('#link-list tr', { hasText: 'team-wiki' });
    await row.waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.textContent?.trim()), 'New link', 'focus returns to the opener');
    // The new row is marked, and the short link is one click from the clipboard.
    await page.locator('#link-list tr.row-new', { hasText: 'team-wiki' }).waitFor();
    const created = page.locator('#toast-area [data-toast]', { hasText: 'Created go/team-wiki.' });
    await created.getByRole('button', { name: 'Copy link' }).click();
    await created.getByRole('button', { name: 'Copied!' }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), `${s.url}/team-wiki`);
    const link = (await s.store.links.getBySlug('team-wiki'))!;
    assert.deepEqual(
      (await s.store.links.view(link.id))!.tags.map((t) => t.name),
      ['engineering'],
    );

    // Follow it: the variable lands in the destination.
    const followed = await context.request.get(`${s.url}/team-wiki/Home`, { maxRedirects: 0 });
    assert.equal(followed.status(), 302);
    assert.equal(followed.headers().location, 'https://wiki.example.com/Home');

    // Edit from the row: the modal is pre-filled; saving refreshes the list.
    await row.getByRole('link', { name: 'Edit' }).click();
    await dialog(page).waitFor();
    assert.equal(await dialog(page).getByLabel('Title').inputValue(), 'Team wiki');
    await dialog(page).locator('[data-var-hint]').getByText('go/team-wiki/page').waitFor(); // the real slug, not a placeholder
    await assertAccessible(page, 'edit modal');
    await dialog(page).getByLabel('Title').fill('Team wiki (new)');
    await dialog(page).getByLabel('Description').fill('Everything we know');
    await dialog(page).getByRole('button', { name: 'Save changes' }).click();
    await page.locator('#toast-area').getByText('Saved go/team-wiki.').waitFor();
    await page.locator('#link-list tr', { hasText: 'Team wiki (new)' }).waitFor(); // the title under the slug
    assert.equal((await s.store.links.get(link.id))!.title, 'Team wiki (new)');

    // Detail page: keyword-prefixed short link, copy, QR.
    await row.getByRole('link', { name: 'Details' }).click();
    await page.waitForURL(`${s.url}/dashboard/links/${link.id}`);
    await htmxReady(page);
    assert.equal((await page.locator('main p.font-mono').first().textContent())?.trim(), 'go/team-wiki');
    await page.getByRole('button', { name: 'Copy go-link' }).click();
    await page.locator('#toast-area').getByText('Link copied!').waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), `${s.url}/team-wiki`);
    assert.equal(
      await page
        .getByRole('img', { name: /QR code for/ })
        .locator('svg')
        .count(),
      1,
    );
    assert.equal(await page.locator('#shares-panel').count(), 0, 'no share panel on a public link');

    // Make it secure from the detail page; the page refreshes itself and the share panel appears.
    await page.locator('main').getByRole('link', { name: 'Edit' }).click();
    await dialog(page).waitFor();
    await dialog(page).getByLabel('Visibility').selectOption('secure');
    await dialog(page).getByRole('button', { name: 'Save changes' }).click();
    await page.locator('#shares-panel').waitFor();
    await page.locator('#shares-panel').getByLabel('Share with').fill('nobody@x.test');
    await page.locator('#shares-panel').getByRole('button', { name: 'Share' }).click();
    await page.locator('#shares-panel').getByText('Nobody with that email has signed in yet.', { exact: false }).waitFor();
    await page.locator('#shares-panel').getByLabel('Share with').fill('bob@x.io');
    await page.locator('#shares-panel').getByRole('button', { name: 'Share' }).click();
    await page.locator('#shares-panel').getByText('bob@x.io').waitFor();
    await page.locator('#toast-area').getByText('Shared with Bob.').waitFor();
    // Sharing again is no error: a calm note beside Bob, who is listed right there.
    await page.locator('#shares-panel').getByLabel('Share with').fill('bob@x.io');
    await page.locator('#shares-panel').getByRole('button', { name: 'Share' }).click();
    await page.locator('#shares-panel li.member-noticed', { hasText: 'bob@x.io' }).getByText('Bob already has access.').waitFor();
    assert.equal(await page.locator('#shares-panel [role="alert"]').count(), 0, 'no error for a duplicate');
    await assertAccessible(page, 'link detail');

    // Bob may follow it; Carol is refused; nobody signed in is sent to sign in.
    const bobSession = await session(bob);
    const asBob = await bobSession.context.request.get(`${s.url}/team-wiki/Start`, { maxRedirects: 0 });
    assert.equal(asBob.status(), 302);
    assert.equal(asBob.headers().location, 'https://wiki.example.com/Start');
    await bobSession.context.close();
    const carolSession = await session(carol);
    carolSession.problems.allow((path, status) => path === '/team-wiki/Start' && status === 403);
    const refused = await carolSession.page.goto(`${s.url}/team-wiki/Start`);
    assert.equal(refused?.status(), 403);
    await carolSession.page.getByRole('heading', { name: 'Access denied' }).waitFor();
    await assertAccessible(carolSession.page, '403 page');
    carolSession.problems.assertNone();
    await carolSession.context.close();

    // Delete waits for Undo (docs/web-ui.md#deleting-with-undo): Undo changes nothing, the
    // toast running out deletes.
    await page.goto(`${s.url}/dashboard`);
    await htmxReady(page);
    const teamWiki = page.locator('#link-list tr', { hasText: 'team-wiki' });
    await teamWiki.getByRole('link', { name: 'Delete' }).click();
    await teamWiki.waitFor({ state: 'hidden' });
    await page.locator('#toast-area').getByRole('button', { name: 'Undo deleting go/team-wiki' }).click();
    await teamWiki.waitFor({ state: 'visible' });
    assert.ok(await s.store.links.get(link.id), 'Undo sends nothing');
    await teamWiki.getByRole('link', { name: 'Delete' }).click();
    await page.locator('#toast-area').getByText('Deleted go/team-wiki').waitFor();
    await teamWiki.waitFor({ state: 'detached', timeout: 15_000 });
    assert.equal(await s.store.links.get(link.id), null);
    problems.assertNone();
    await context.close();
  });

  test('a template made in the modal with a default destination: go/drive opens it, go/drive/x fills in', { timeout: 60_000 }, async () => {
    const { context, page, problems } = await session(alice);
    // Destinations on this server, so the browser really follows each redirect to a page.
    const search = `${s.url}/dashboard?q=$q`;
    await page.locator('main').getByRole('link', { name: 'New link' }).click();
    await dialog(page).waitFor();
    await dialog(page).locator('#link-slug').fill('drive');
    // First beside a URL without placeholders: refused beside its field, nothing saved.
    await dialog(page).getByLabel('Destination URL').fill(`${s.url}/dashboard?q=roadmap`);
    await dialog(page).getByLabel('Destination when nothing is filled in').fill('/dashboard');
    await dialog(page).getByRole('button', { name: 'Create link' }).click();
    await dialog(page)
      .locator('#link-default-url-error')
      .getByText('default_url is only for a url with $placeholders', { exact: false })
      .waitFor();
    assert.equal(await s.store.links.getBySlug('drive'), null);
    await dialog(page).getByLabel('Destination URL').fill(search);
    assert.equal(await dialog(page).getByLabel('Destination when nothing is filled in').inputValue(), '/dashboard', 'kept');
    await assertAccessible(page, 'create modal with a default destination');
    await dialog(page).getByRole('button', { name: 'Create link' }).click();
    await page.locator('#toast-area').getByText('Created go/drive.').waitFor();
    const link = (await s.store.links.getBySlug('drive'))!;
    assert.equal(link.defaultUrl, '/dashboard');

    await page.goto(`${s.url}/drive`);
    assert.equal(page.url(), `${s.url}/dashboard`, 'no value: the default destination');
    await page.goto(`${s.url}/drive/roadmap`);
    assert.equal(page.url(), `${s.url}/dashboard?q=roadmap`, 'a value: the template filled');

    await page.goto(`${s.url}/dashboard/links/${link.id}`);
    await htmxReady(page);
    const shown = page.locator('[data-default-url]');
    await shown.getByText('Destination when nothing is filled in (go/drive):').waitFor();
    await shown.getByText('/dashboard', { exact: true }).waitFor();
    await page.goto(`${s.url}/dashboard/links/${link.id}/edit`);
    await htmxReady(page);
    assert.equal(await page.getByLabel('Destination when nothing is filled in').inputValue(), '/dashboard', 'pre-filled');
    await page.getByLabel('Destination when nothing is filled in').fill('');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.waitForURL(`${s.url}/dashboard/links/${link.id}`);
    assert.equal((await s.store.links.get(link.id))!.defaultUrl, null, 'an empty field clears it');
    problems.assertNone();
    await context.close();
  });

  test('modals keep keyboard focus inside and close on Esc or the backdrop', { timeout: 60_000 }, async () => {
    const { context, page, problems } = await session(alice);
    await page.locator('main').getByRole('link', { name: 'New link' }).click();
    await dialog(page).waitFor();
    for (let i = 0; i < 25; i++) {
      await page.keyboard.press(i % 3 === 0 ? 'Shift+Tab' : 'Tab');
      assert.ok(await page.evaluate(() => !!document.activeElement?.closest('dialog[open]')), `focus stays in the dialog (step ${i})`);
    }
    await page.mouse.click(5, 5); // the backdrop
    await page.locator('#modal dialog').waitFor({ state: 'detached' });
    problems.assertNone();
    await context.close();
  });

  test('the detail page deletes after its Undo window; a stale row explains itself with an error toast', { timeout: 60_000 }, async () => {
    const doomed = await createLink(s.store, { slug: 'detail-doomed', url: 'https://d.example' }, alice.id);
    const gone = await createLink(s.store, { slug: 'already-gone', url: 'https://g.example' }, alice.id);
    const { context, page, problems } = await session(alice);
    problems.allow((path, status) => path === `/dashboard/links/${gone.id}/edit` && status === 404);
    problems.allowConsole(new RegExp(`Response Status Error Code 404 from /dashboard/links/${gone.id}/edit`));
    await s.store.links.delete(gone.id); // deleted elsewhere while this page is open
    await page.locator('tr', { hasText: 'already-gone' }).getByRole('link', { name: 'Edit' }).click();
    await page.locator('#toast-area').getByText('That link does not exist.').waitFor();
    assert.equal(await page.locator('#modal dialog').count(), 0);

    await page.goto(`${s.url}/dashboard/links/${doomed.id}`);
    await htmxReady(page);
    await page.locator('main').getByRole('link', { name: 'Delete' }).click();
    await page.getByText('go/detail-doomed will be deleted in a few seconds unless you undo it.').waitFor();
    await page.waitForURL(`${s.url}/dashboard`, { timeout: 15_000 });
    assert.equal(await s.store.links.get(doomed.id), null);
    problems.assertNone();
    await context.close();
  });

  test('search as you type: the dashboard and the public browser put the query in the address', { timeout: 60_000 }, async () => {
    await createLink(s.store, { slug: 'payroll', url: 'https://pay.example.com', description: 'Monthly payroll runs' }, alice.id);
    await createLink(s.store, { slug: 'pager', url: 'https://pager.example.com' }, alice.id);
    const { context, page, problems } = await session(alice);
    // While the search is in flight its spinner shows and the list dims (loading indicator).
    let release: () => void = () => {};
    const held = new Promise<void>((r) => (release = r));
    await page.route('**/dashboard?q=*', async (route) => {
      await held;
      await route.continue();
    });
    await page.getByRole('searchbox', { name: 'Search links' }).pressSequentially('payroll');
    await page.locator('#dashboard-search-spinner').waitFor({ state: 'visible' });
    assert.ok(await page.locator('#link-list.htmx-request').count(), 'the list is marked busy');
    release();
    await page.locator('#link-list tr', { hasText: 'pager' }).waitFor({ state: 'detached' });
    await page.locator('#dashboard-search-spinner').waitFor({ state: 'hidden' });
    await page.unroute('**/dashboard?q=*');
    assert.ok(await page.locator('#link-list tr', { hasText: 'payroll' }).isVisible());
    assert.equal(
      new URL(page.url()).search,
      '?q=payroll',
      'the dashboard address carries the search (docs/web-ui.md#landing-and-dashboard)',
    );
    await page.getByRole('searchbox', { name: 'Search links' }).fill('no-such-thing');
    await page.locator('#link-list').getByText('No matching links').waitFor();

    await page.goto(`${s.url}/links`);
    await htmxReady(page);
    await page.getByRole('searchbox', { name: 'Search public links' }).pressSequentially('pager');
    await page.waitForURL(`${s.url}/links?q=pager`);
    await page.locator('#public-link-list').getByText('1 link', { exact: true }).waitFor();
    await assertAccessible(page, 'public browser with a search');
    problems.assertNone();
    await context.close();
  });

  test(
    'lifecycle: copy a row link, renew an expired row, archive and unarchive, set an expiry and the health opt-out',
    { timeout: 120_000 },
    async () => {
      // Expires two seconds from now, so it is expired by the time the dashboard shows it.
      const soon = Math.ceil((Date.now() + 2_000) / 1000) * 1000;
      const promo = await createLink(s.store, { slug: 'spring-promo', url: 'https://promo.example.com/' }, alice.id);
      await updateLink(s.store, promo.id, { expiresAt: soon });
      while (Date.now() <= soon + 100) await new Promise((r) => setTimeout(r, 100));
      const resolves = async (context: BrowserContext) =>
        (await context.request.get(`${s.url}/spring-promo`, { maxRedirects: 0 })).status();

      // Sign in by hand this time, to check the sign-in page itself.
      const context = await browser.newContext({ colorScheme: 'light', viewport: { width: 1280, height: 900 } });
      const problems = new Problems(context);
      const page = await context.newPage();
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: s.url });
      await page.goto(`${s.url}/auth/local?token=${await s.store.loginTokens.create(alice.id)}`);
      await assertAccessible(page, 'local sign-in page');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${s.url}/dashboard`);
      await htmxReady(page);

      const row = page.locator(`#link-${promo.id}`);
      await row.getByRole('button', { name: 'Copy link' }).click();
      await row.locator('[data-copy][data-tip="Copied!"]').waitFor();
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), `${s.url}/spring-promo`);
      await row.getByRole('button', { name: 'Copy link' }).waitFor({ timeout: 3_000 }); // the tooltip reverts after 1.5 s

      await row.getByText('expired', { exact: true }).waitFor();
      await assertAccessible(page, 'dashboard with an expired link');
      problems.allow((path, status) => path === '/spring-promo' && status === 404);
      assert.equal(await resolves(context), 404);
      await row.getByRole('button', { name: 'Renew' }).click();
      await page.locator('#toast-area').getByText('Renewed go/spring-promo. It no longer expires.').waitFor();
      await row.getByText('expired', { exact: true }).waitFor({ state: 'detached' });
      assert.equal(await row.getByRole('link', { name: 'Details' }).count(), 1, 'the row is re-rendered in place, actions included');
      assert.equal((await s.store.links.get(promo.id))!.expiresAt, null);
      assert.equal(await resolves(context), 302);

      // Archive and unarchive from the detail page.
      await row.getByRole('link', { name: 'Details' }).click();
      await page.waitForURL(`${s.url}/dashboard/links/${promo.id}`);
      await htmxReady(page);
      await page.locator('main').getByRole('button', { name: 'Archive' }).click();
      await page.locator('#toast-area').getByText('Archived go/spring-promo. It no longer redirects.').waitFor();
      await page.locator('#link-detail header').getByText('archived', { exact: true }).waitFor();
      await assertAccessible(page, 'archived link detail');
      assert.equal(await resolves(context), 404);
      await page.locator('main').getByRole('button', { name: 'Unarchive' }).click();
      await page.locator('#toast-area').getByText('Unarchived go/spring-promo. It redirects again.').waitFor();
      await page.locator('#link-detail header').getByText('archived', { exact: true }).waitFor({ state: 'detached' });
      assert.equal(await resolves(context), 302);

      // Expiry and the health-check opt-out through the edit form; a past expiry is refused with the input kept.
      await page.locator('main').getByRole('link', { name: 'Edit' }).click();
      await dialog(page).waitFor();
      await dialog(page).getByLabel('Expires (UTC)').fill('2099-01-02T03:04:05');
      await dialog(page).getByLabel('Skip destination health checks').check();
      await dialog(page).getByRole('button', { name: 'Save changes' }).click();
      await page.locator('#toast-area').getByText('Saved go/spring-promo.').waitFor();
      // The detail page states the expiry as a <time> (rewritten to the viewer's zone by the page script).
      await page.locator('#link-detail p', { hasText: 'Expires' }).locator('time[datetime="2099-01-02T03:04:05Z"]').waitFor();
      await page.locator('#link-detail').getByText('Health checks: opted out').waitFor();
      const saved = (await s.store.links.view(promo.id))!;
      assert.equal(saved.expiresAt, Date.parse('2099-01-02T03:04:05Z'));
      assert.equal(saved.healthChecksDisabled, true);

      await page.locator('main').getByRole('link', { name: 'Edit' }).click();
      await dialog(page).waitFor();
      assert.equal(await dialog(page).getByLabel('Expires (UTC)').inputValue(), '2099-01-02T03:04:05', 'pre-filled in UTC with seconds');
      assert.ok(await dialog(page).getByLabel('Skip destination health checks').isChecked());
      await dialog(page).getByLabel('Expires (UTC)').fill('2001-01-01T00:00:00');
      await dialog(page).getByRole('button', { name: 'Save changes' }).click();
      await dialog(page).locator('#link-expires-error').getByText('expiration must be in the future').waitFor();
      assert.equal(await dialog(page).getByLabel('Expires (UTC)').inputValue(), '2001-01-01T00:00', 'the input is kept');
      await assertAccessible(page, 'edit modal with a field error');
      await page.keyboard.press('Escape');
      await page.locator('#modal dialog').waitFor({ state: 'detached' });
      assert.equal((await s.store.links.get(promo.id))!.expiresAt, Date.parse('2099-01-02T03:04:05Z'), 'nothing saved');
      problems.assertNone();
      await context.close();
    },
  );

  test(
    'theme switch: System, Light and Dark apply at once, persist, survive rapid clicks and go back to System',
    { timeout: 60_000 },
    async () => {
      const context = await browser.newContext({ colorScheme: 'light' });
      const problems = new Problems(context);
      const page = await context.newPage();
      // Hold the theme request so the test can see the page switch before it completes.
      let release: () => void = () => {};
      const held = new Promise<void>((r) => (release = r));
      await page.route('**/dashboard/theme', async (route) => {
        await held;
        await route.continue();
      });
      await page.goto(`${s.url}/`);
      await htmxReady(page);
      assert.equal(await page.getAttribute('html', 'data-theme'), 'joe-light', 'system preference applies without a cookie');
      await assertAccessible(page, 'landing (light)');
      const menu = page.getByRole('navigation', { name: 'Main' }).locator('summary[aria-label="Theme"]');
      const choose = async (name: 'System' | 'Light' | 'Dark') => {
        await menu.click();
        await page.getByRole('group', { name: 'Theme' }).getByRole('button', { name }).click();
      };
      // Read from the markup: inside the closed menu the buttons are not in the accessibility tree.
      const VALUES = { System: 'system', Light: 'joe-light', Dark: 'joe-dark' } as const;
      const pressed = (name: keyof typeof VALUES) => page.locator(`[data-theme-choice="${VALUES[name]}"]`).getAttribute('aria-pressed');
      assert.equal(await pressed('System'), 'true', 'no cookie: System is the choice');
      assert.ok(await menu.locator('.theme-icon-moon').isVisible());
      const persistedDark = page.waitForResponse('**/dashboard/theme');
      await choose('Dark');
      assert.equal(await page.getAttribute('html', 'data-theme'), 'joe-dark', 'dark before the request completes');
      assert.equal(await pressed('Dark'), 'true');
      assert.equal(await pressed('System'), 'false');
      assert.ok(await menu.locator('.theme-icon-sun').isVisible(), 'sun icon while dark');
      release();
      await persistedDark;
      await page.unroute('**/dashboard/theme');
      await page.reload();
      assert.equal(await page.getAttribute('html', 'data-theme'), 'joe-dark', 'persisted across reload');
      assert.equal(await pressed('Dark'), 'true', 'the server marks the saved choice');
      await assertAccessible(page, 'landing (dark)');

      const posts: string[] = [];
      page.on('request', (r) => {
        if (r.url().endsWith('/dashboard/theme')) posts.push(r.postData() ?? '');
      });
      page.on('response', (r) => {
        if (r.url().endsWith('/dashboard/theme')) posts.push(`answered ${r.status()}`);
      });
      for (const name of ['Light', 'System', 'Dark', 'System', 'Light'] as const) await choose(name);
      assert.equal(await page.getAttribute('html', 'data-theme'), 'joe-light');
      // The posts settle on what the page shows, whatever order the clicks and answers came in.
      const themeCookie = async () => (await context.cookies()).find((c) => c.name === 'theme')?.value;
      for (let waited = 0; (await themeCookie()) !== 'joe-light'; waited += 100) {
        if (waited > 20_000) assert.fail(`theme cookie ${await themeCookie()} after ${JSON.stringify(posts)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      await page.waitForLoadState('networkidle');

      // Back to System: the cookie goes, and the page follows the system preference, live.
      await choose('System');
      for (let waited = 0; (await themeCookie()) !== undefined; waited += 100) {
        if (waited > 20_000) assert.fail(`theme cookie still ${await themeCookie()}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.waitForFunction(() => document.documentElement.getAttribute('data-theme') === 'joe-dark');
      await page.reload();
      assert.equal(await page.getAttribute('html', 'data-theme'), 'joe-dark', 'System after reload: the dark system preference');
      assert.equal(await pressed('System'), 'true');
      problems.assertNone();
      await context.close();
    },
  );

  test('signed in, the theme switch is in the sidebar, survives navigation and returns to System', { timeout: 60_000 }, async () => {
    const { context, page, problems } = await session(bob, { colorScheme: 'dark' });
    assert.equal(await page.getAttribute('html', 'data-theme'), 'joe-dark');
    const group = page.locator('aside').getByRole('group', { name: 'Theme' });
    assert.ok(await group.isVisible(), 'visible without opening a menu');
    assert.equal(await group.getByRole('button', { name: 'System' }).getAttribute('aria-pressed'), 'true');
    const saved = page.waitForResponse((r) => r.url().endsWith('/dashboard/theme') && r.status() === 200);
    await group.getByRole('button', { name: 'Light' }).click();
    assert.equal(await page.getAttribute('html', 'data-theme'), 'joe-light');
    await saved;
    await page.goto(`${s.url}/dashboard/tags`);
    assert.equal(await page.getAttribute('html', 'data-theme'), 'joe-light');
    assert.equal(await group.getByRole('button', { name: 'Light' }).getAttribute('aria-pressed'), 'true');
    await assertAccessible(page, 'tags (light, after switching)');
    const back = page.waitForResponse((r) => r.url().endsWith('/dashboard/theme') && r.status() === 200);
    await group.getByRole('button', { name: 'System' }).click();
    assert.equal(await page.getAttribute('html', 'data-theme'), 'joe-dark', 'System: the dark system preference again');
    await back;
    await page.reload();
    assert.equal(await page.getAttribute('html', 'data-theme'), 'joe-dark');
    assert.equal(
      (await context.cookies()).find((c) => c.name === 'theme'),
      undefined,
    );
    problems.assertNone();
    await context.close();
  });

  test('an admin edits a link inline: a bad URL keeps the row with an error toast, a good one saves', { timeout: 60_000 }, async () => {
    await createLink(s.store, { slug: 'inline-me', url: 'https://before.example', title: 'Before' }, bob.id);
    const { context, page, problems } = await session(admin);
    await page.goto(`${s.url}/admin/links`);
    await htmxReady(page);
    await assertAccessible(page, 'admin links');
    const row = page.locator('tr', { hasText: 'inline-me' });
    await row.getByRole('link', { name: 'Edit' }).click();
    const form = page.getByRole('form', { name: 'Edit inline-me' });
    await form.waitFor();
    await assertAccessible(page, 'admin inline edit');
    await form.getByLabel('URL').fill('ftp://nope');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.locator('#toast-area').getByText('url must start with http:// or https://').waitFor();
    assert.equal(await form.getByLabel('URL').inputValue(), 'ftp://nope', 'still editing, input kept');
    await form.getByLabel('URL').fill('https://after.example');
    await form.getByLabel('Visibility').selectOption('private');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.locator('tr', { hasText: 'https://after.example' }).getByText('private').waitFor();
    assert.equal(await page.getByRole('form', { name: 'Edit inline-me' }).count(), 0);
    const saved = (await s.store.links.getBySlug('inline-me'))!;
    assert.equal(saved.url, 'https://after.example');
    assert.equal(saved.visibility, 'private');

    // Cancel restores the read-only row without saving.
    await page.locator('tr', { hasText: 'inline-me' }).getByRole('link', { name: 'Edit' }).click();
    await form.getByLabel('URL').fill('https://discarded.example');
    await form.getByRole('button', { name: 'Cancel' }).click();
    await page.locator('tr', { hasText: 'https://after.example' }).waitFor();

    // A role change from the users page re-renders its row with a toast.
    await page.goto(`${s.url}/admin/users`);
    await htmxReady(page);
    await page.getByLabel('Role of Carol').selectOption('admin');
    await page.locator('#toast-area').getByText('Carol is now an admin.').waitFor();
    assert.equal((await s.store.users.findById(carol.id))!.role, 'admin');
    await assertAccessible(page, 'admin users');
    problems.assertNone();
    await context.close();
  });

  test('without JavaScript every page reads and forms still work as full-page posts', { timeout: 60_000 }, async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const problems = new Problems(context);
    const page = await context.newPage();
    const token = await s.store.loginTokens.create(carol.id);
    await page.goto(`${s.url}/auth/local?token=${token}`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${s.url}/dashboard`);
    await page.locator('main').getByRole('link', { name: 'New link' }).click();
    await page.waitForURL(`${s.url}/dashboard/links/new`);
    await page.getByLabel('Slug', { exact: true }).fill('no-js');
    await page.getByLabel('Destination URL').fill('https://plain.example');
    await page.getByRole('button', { name: 'Create link' }).click();
    await page.waitForURL(`${s.url}/dashboard`);
    await page.locator('tr', { hasText: 'no-js' }).getByRole('link', { name: 'Delete' }).click();
    await page.getByRole('heading', { name: "Delete 'no-js'?" }).waitFor();
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL(`${s.url}/dashboard`);
    assert.equal(await s.store.links.getBySlug('no-js'), null);
    problems.assertNone();
    await context.close();
  });
});
