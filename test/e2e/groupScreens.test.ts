import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { asUser } from '../../src/links/index.js';
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
} from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Groups in Chromium (docs/web-ui.md#groups, docs/web-ui.md#link-detail-page): the groups
 * pages, the link page's people-and-groups picker and the admin's delete dialog in both themes
 * at 1280 and 375 px (axe, nothing sideways, no console error under the CSP); then what a
 * person does: create a group and land on it, add a member, pick a group as co-owner by
 * keyboard and share with one by tapping, leave a group, and an admin deleting someone with a
 * successor.
 */

const THEMES = ['joe-light', 'joe-dark'] as const;
const WIDTHS = [1280, 375] as const;

describe('groups in a browser', { skip: chromiumSkip('groups') }, () => {
  let s: TestServer;
  let browser: Browser;
  let ana: User;
  let ben: User;
  let cy: User;
  let leo: User;
  let root: User;
  let runbookId = '';
  let vaultId = '';

  before(async () => {
    s = await startTestServer({ env: { JOE_SHORT_KEYWORD: 'go' } });
    ana = await s.store.users.create({ email: 'ana@example.com', displayName: 'Ana Alvarez' });
    ben = await s.store.users.create({ email: 'ben@example.com', displayName: 'Ben Braun' });
    cy = await s.store.users.create({ email: 'cy@example.com', displayName: 'Cy Chen' });
    leo = await s.store.users.create({ email: 'leo@example.com', displayName: 'Leo Leaving' });
    root = await s.store.users.create({ email: 'root@example.com', displayName: 'Root Admin', role: 'admin' });
    await s.links.createGroup(asUser(ana), {
      name: 'platform-infrastructure-and-developer-experience',
      description: 'Everyone who keeps the build, the deploys and the internal tools running, and answers the pager for them.',
    });
    await s.links.addGroupMember(asUser(ana), 'platform-infrastructure-and-developer-experience', ben.email);
    await s.links.createGroup(asUser(ben), { name: 'design' });
    // A group sign-in keeps in step: its page says so and offers no member changes.
    const sso = await s.links.createGroup(asUser(ana), { name: 'sso-staff', description: 'Everyone the identity provider calls staff' });
    await s.store.transaction((tx) =>
      s.store.groups.update(sso.id, { name: sso.name, description: sso.description, synced: true, at: Date.now() }, tx),
    );
    runbookId = (await s.links.create(asUser(ana), { slug: 'runbook', url: 'https://runbook.example.com', title: 'Runbook' })).id;
    vaultId = (await s.links.create(asUser(ana), { slug: 'vault', url: 'https://vault.example.com', visibility: 'secure' })).id;
    await s.links.addGroup(asUser(ana), runbookId, 'owner', 'design');
    const pager = await s.links.create(asUser(ben), { slug: 'pager-rota', url: 'https://pager.example.com', title: 'Who is on call' });
    await s.links.addGroup(asUser(ben), pager.id, 'owner', 'platform-infrastructure-and-developer-experience');
    await s.links.addGroup(asUser(ben), pager.id, 'owner', 'design');
    await s.links.create(asUser(leo), { slug: 'leos-notes', url: 'https://notes.example.com' });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await s?.stop();
  });

  async function session(user: User, opts: { width?: number; theme?: string; touch?: boolean } = {}) {
    const context: BrowserContext = await browser.newContext({
      viewport: { width: opts.width ?? 1280, height: 900 },
      hasTouch: opts.touch ?? false,
      isMobile: opts.touch ?? false,
    });
    if (opts.theme) await context.addCookies([{ name: 'theme', value: opts.theme, url: s.url }]);
    const problems = new Problems(context);
    const page = await context.newPage();
    await signInLocal(page, s, user);
    await htmxReady(page);
    return { context, page, problems };
  }

  const toast = (page: Page, text: string) => page.locator('#toast-area').getByText(text).waitFor();

  for (const theme of THEMES) {
    for (const width of WIDTHS) {
      test(`${theme} at ${width}px`, { timeout: 180_000 }, async () => {
        const { context, page, problems } = await session(ana, { width, theme });
        const at = (name: string) => checkScreen(page, problems, `groups-${name}-${theme}-${width}`, { name, theme, width });
        await page.goto(`${s.url}/dashboard/groups`);
        await at('list');
        await page.goto(`${s.url}/dashboard/groups/platform-infrastructure-and-developer-experience`);
        await at('group');
        await page.goto(`${s.url}/dashboard/groups/sso-staff`);
        await page.getByText('Its members follow sign-in').waitFor();
        await at('synced');
        await page.goto(`${s.url}/dashboard?filter=groups`);
        await at('dashboard-groups');
        await page.goto(`${s.url}/dashboard/links/${runbookId}`);
        await htmxReady(page);
        await page.getByLabel('Add a co-owner').pressSequentially('pl');
        await page.locator('#owner-email-suggestions [role="option"]').first().waitFor();
        await at('picker');
        await context.close();

        const admin = await session(root, { width, theme });
        await admin.page.goto(`${s.url}/admin/users`);
        await htmxReady(admin.page);
        await admin.page.getByRole('link', { name: 'Delete Leo Leaving' }).click();
        await admin.page.locator('#modal dialog[open]').waitFor();
        await checkScreen(admin.page, admin.problems, `groups-admin-delete-${theme}-${width}`, { name: 'admin delete', theme, width });
        await admin.context.close();
      });
    }
  }

  test('create a group and land on it, add a member; the member leaves it', { timeout: 120_000 }, async () => {
    const { context, page, problems } = await session(ana);
    problems.allow((path, status) => path === '/dashboard/groups' && status === 400);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Groups' }).click();
    await page.waitForURL(`${s.url}/dashboard/groups`);
    await page.getByLabel('Name', { exact: true }).fill('Web Team');
    await page.getByRole('button', { name: 'Create group' }).click();
    // The rule, beside the field; what was typed stays.
    await page.locator('#group-name-error').getByText('A group name uses lowercase letters').waitFor();
    assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'Web Team');
    await page.getByLabel('Name', { exact: true }).fill('web-team');
    await page.getByLabel('Description').fill('The people behind the website');
    await page.getByRole('button', { name: 'Create group' }).click();
    await page.waitForURL(`${s.url}/dashboard/groups/web-team`);
    await toast(page, 'Created the group web-team.');
    await htmxReady(page);
    await page.getByLabel('Add someone by email').fill('cy@example.com');
    await page.getByRole('button', { name: 'Add member' }).click();
    await toast(page, 'Cy Chen is now a member of web-team.');
    await page.locator('#group-members li', { hasText: 'cy@example.com' }).waitFor();
    await assertAccessible(page, 'group page after adding');
    await screenshot(page, 'groups-flow-added');
    problems.assertNone();
    await context.close();

    const cySession = await session(cy);
    await cySession.page.goto(`${s.url}/dashboard/groups/web-team`);
    await htmxReady(cySession.page);
    assert.equal(await cySession.page.getByRole('button', { name: 'Add member' }).count(), 0, 'a member changes nobody else');
    await cySession.page.getByRole('button', { name: 'Leave group' }).click();
    await toast(cySession.page, 'You left web-team.');
    await cySession.page.getByRole('button', { name: 'Leave group' }).waitFor({ state: 'detached' });
    await screenshot(cySession.page, 'groups-flow-left');
    assert.equal(await s.store.groups.role((await s.store.groups.byName('web-team'))!.id, cy.id), null);
    cySession.problems.assertNone();
    await cySession.context.close();
  });

  test(
    'type two letters in the owner picker and choose a group by keyboard; tap a group to share with it',
    { timeout: 120_000 },
    async () => {
      const { context, page, problems } = await session(ana);
      await page.goto(`${s.url}/dashboard/links/${runbookId}`);
      await htmxReady(page);
      const field = page.getByLabel('Add a co-owner');
      await field.pressSequentially('pl');
      const option = page.getByRole('option', { name: /platform-infrastructure-and-developer-experience/ });
      await option.waitFor();
      assert.equal(await field.getAttribute('aria-expanded'), 'true');
      await page.keyboard.press('ArrowDown');
      assert.equal(await option.getAttribute('aria-selected'), 'true');
      assert.equal(await field.getAttribute('aria-activedescendant'), await option.getAttribute('id'));
      await page.keyboard.press('Enter');
      await toast(page, 'The group platform-infrastructure-and-developer-experience is now a co-owner.');
      const row = page.locator('#owners-section li', { hasText: 'platform-infrastructure-and-developer-experience' });
      await row.getByText('group', { exact: true }).waitFor();
      assert.equal(
        await row.getByRole('link', { name: 'platform-infrastructure-and-developer-experience' }).getAttribute('href'),
        '/dashboard/groups/platform-infrastructure-and-developer-experience',
      );
      // Escape closes the list without choosing.
      await page.getByLabel('Add a co-owner').pressSequentially('de');
      await page.getByRole('option', { name: /design/ }).waitFor();
      await page.keyboard.press('Escape');
      await page.getByRole('option').waitFor({ state: 'detached' });
      await screenshot(page, 'groups-flow-owner-picked');
      problems.assertNone();
      await context.close();

      const phone = await session(ana, { width: 375, touch: true });
      await phone.page.goto(`${s.url}/dashboard/links/${vaultId}`);
      await htmxReady(phone.page);
      await phone.page.getByLabel('Share with').pressSequentially('des');
      await phone.page.getByRole('option', { name: /design/ }).tap();
      await toast(phone.page, 'Shared with the group design.');
      await phone.page.locator('#shares-panel li', { hasText: 'design' }).getByText('group', { exact: true }).waitFor();
      await screenshot(phone.page, 'groups-flow-shared-375');
      phone.problems.assertNone();
      await phone.context.close();
    },
  );

  test('an admin deletes a user naming a successor, and the toast says where the links went', { timeout: 120_000 }, async () => {
    const { context, page, problems } = await session(root);
    await page.goto(`${s.url}/admin/users`);
    await htmxReady(page);
    await page.getByRole('link', { name: 'Delete Leo Leaving' }).click();
    const dialog = page.locator('#modal dialog[open]');
    await dialog.waitFor();
    assert.equal(await dialog.getByLabel('Hand their links on').isChecked(), true, 'handing on is the default');
    await dialog.getByLabel('Successor (optional)').fill('ben@example.com');
    await dialog.getByRole('button', { name: 'Delete User' }).click();
    await toast(page, 'Deleted the account of Leo Leaving. 1 link went to Ben Braun.');
    await dialog.waitFor({ state: 'detached' });
    const notes = (await s.store.links.getBySlug('leos-notes'))!;
    assert.deepEqual(
      (await s.store.owners.list(notes.id)).map((o) => o.email),
      ['ben@example.com'],
    );
    await screenshot(page, 'groups-flow-admin-deleted');
    problems.assertNone();
    await context.close();
  });
});
