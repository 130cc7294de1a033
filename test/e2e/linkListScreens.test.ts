import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { MAX_TAGS_PER_LINK } from '../../src/domain/tags.js';
import type { User } from '../../src/store/types.js';
import { join } from 'node:path';
import {
  assertAccessible,
  chromiumSkip,
  htmxReady,
  launchBrowser,
  Problems,
  RESULTS_DIR,
  screenshot,
  signInLocal,
  sidewaysOverflow,
} from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createLink, updateLink } from '../helpers/links.js';

/**
 * The one link list (docs/web-ui.md#link-tables) on every page that lists links — the
 * dashboard, /links, a tag page, a profile and /admin/links — with 26 links, one of them a
 * 128-character slug with a very long URL and the most tags a link may have, 22 tags in all.
 * At 1280, 1024 (the sidebar beside the table) and 375 px in both themes: nothing scrolls
 * sideways, from 1024 px an ordinary 16-character slug and its title show whole, every row's
 * actions are in view,
 * on a phone each row is a card whose tap opens the link's page and whose copy button still
 * copies, the tag chips fold away, axe finds nothing serious, no console error or CSP
 * violation. Screenshots go to test-results/.
 */

const THEMES = ['joe-light', 'joe-dark'] as const;
const WIDTHS = [1280, 1024, 375] as const;
const LONG_SLUG =
  'oncall-rotation-handbook-for-the-platform-infrastructure-team-including-escalation-paths-and-runbooks-for-every-service-tier'
    .padEnd(128, 'x')
    .slice(0, 128);
/** An ordinary slug of 16 characters, with a title of ordinary length. */
const SIXTEEN = { slug: 'onboarding-guide', title: 'New hire onboarding guide' };
const TAGS = Array.from({ length: 22 }, (_, i) => `Topic ${String(i + 1).padStart(2, '0')}`);

describe('the link list on every page that lists links', { skip: chromiumSkip('link list screens') }, () => {
  let s: TestServer;
  let browser: Browser;
  let alice: User;
  let admin: User;

  before(async () => {
    s = await startTestServer({ env: { JOE_SHORT_KEYWORD: 'go' } });
    alice = await s.store.users.create({ email: 'alice@example.com', displayName: 'Alice Smith' });
    admin = await s.store.users.create({ email: 'admin@example.com', displayName: 'Ada Admin', role: 'admin' });
    assert.equal(LONG_SLUG.length, 128);
    const long = await createLink(
      s.store,
      {
        slug: LONG_SLUG,
        url: `https://wiki.example.com/${'very-long-path-segment/'.repeat(12)}?q=${'x'.repeat(200)}`,
        title: 'The on-call rotation handbook of the platform infrastructure team, with escalation paths and every runbook',
        description: 'Everything about being on call.',
        tags: TAGS.slice(0, MAX_TAGS_PER_LINK),
      },
      alice.id,
    );
    const clicks = [];
    const now = Date.now();
    for (let i = 0; i < 25; i++) {
      const link = await createLink(
        s.store,
        {
          slug: `team-link-${String(i).padStart(2, '0')}`,
          url: `https://intranet.example.com/pages/${i}`,
          title: i % 3 === 0 ? '' : `Team page number ${i}`,
          tags: [TAGS[0]!, TAGS[1 + (i % (TAGS.length - 1))]!],
          visibility: i % 5 === 4 ? 'private' : 'public',
        },
        alice.id,
      );
      for (let d = 0; d < i % 7; d++) {
        clicks.push({
          id: randomUUID(),
          link_id: link.id,
          user_id: null,
          ip_hash: 'h',
          user_agent: null,
          referrer: null,
          clicked_at: now - d * 86_400_000,
        });
      }
    }
    for (let d = 0; d < 12; d++) {
      clicks.push({
        id: randomUUID(),
        link_id: long.id,
        user_id: null,
        ip_hash: 'h',
        user_agent: null,
        referrer: null,
        clicked_at: now - (d % 5) * 86_400_000,
      });
    }
    await s.store.clicks.insertBatch(clicks);
    await createLink(
      s.store,
      { ...SIXTEEN, url: `https://wiki.example.com/display/HR/${'Onboarding+Guide+for+New+Engineers/'.repeat(3)}`, tags: [TAGS[0]!] },
      alice.id,
    );
    // One expired row, whose Renew button sits beside its badge.
    const soon = Math.ceil((Date.now() + 1_500) / 1000) * 1000;
    const offer = await createLink(
      s.store,
      { slug: 'spring-offer', url: 'https://offer.example.com/', title: 'Spring offer', tags: [TAGS[0]!] },
      alice.id,
    );
    await updateLink(s.store, offer.id, { expiresAt: soon });
    browser = await launchBrowser();
    while (Date.now() <= soon + 100) await new Promise((r) => setTimeout(r, 100));
  });

  after(async () => {
    await browser?.close();
    await s?.stop();
  });

  /** The checks every list page passes, at any width. */
  async function check(page: Page, problems: Problems, name: string, theme: string, width: number): Promise<void> {
    await htmxReady(page);
    assert.equal(await page.getAttribute('html', 'data-theme'), theme, `${name}: theme applied`);
    const overflow = await sidewaysOverflow(page);
    assert.ok(overflow <= 0, `${name} at ${width}px scrolls sideways by ${overflow}px`);
    const rows = page.locator('tr[data-link-row]');
    assert.ok((await rows.count()) >= 20, `${name}: the rows are listed`);
    // Every row's actions are in view without scrolling sideways.
    const outside = await page.evaluate(() => {
      const bad: string[] = [];
      for (const row of Array.from(document.querySelectorAll('tr[data-link-row]'))) {
        for (const el of Array.from(row.querySelectorAll('td:last-child a, td:last-child summary'))) {
          const r = el.getBoundingClientRect();
          if (r.width === 0) continue; // hidden at this width
          if (r.left < 0 || r.right > window.innerWidth) bad.push(`${row.id} ${el.getAttribute('aria-label')}`);
        }
      }
      return bad;
    });
    assert.deepEqual(outside, [], `${name}: actions outside the viewport`);
    // In the table, no cell's visible content spills into the next one (what a cell cuts off with an ellipsis is not visible).
    const spilled = await page.evaluate((table) => {
      if (!table) return [];
      const out: string[] = [];
      for (const td of Array.from(document.querySelectorAll('tr[data-link-row] > td'))) {
        const edge = td.getBoundingClientRect().right + 1;
        for (const el of Array.from(td.querySelectorAll('*'))) {
          const r = el.getBoundingClientRect();
          let clipped = false;
          for (let p = el.parentElement; p && p !== td; p = p.parentElement)
            if (getComputedStyle(p).overflowX !== 'visible') clipped = true;
          if (r.width > 0 && r.right > edge && !clipped) out.push(`${td.parentElement!.id}: ${(el.textContent ?? '').trim().slice(0, 30)}`);
        }
      }
      return out;
    }, width >= 1024);
    assert.deepEqual(spilled, [], `${name}: cells whose content spills over`);
    // The long slug is cut with an ellipsis on one line, its full text in title=.
    const slug = page.locator(`a[title="go/${LONG_SLUG}"]`);
    if ((await slug.count()) > 0) {
      const box = await slug.first().evaluate((el) => ({
        lines: Math.round(el.getBoundingClientRect().height / parseFloat(getComputedStyle(el).lineHeight)),
        cut: Array.from(el.children).some((part) => part.scrollWidth > part.clientWidth),
        right: el.getBoundingClientRect().right,
      }));
      assert.equal(box.lines, 1, `${name}: the long slug stays on one line`);
      assert.ok(box.cut, `${name}: the long slug is cut`);
      assert.ok(box.right <= width, `${name}: the long slug ends inside the viewport`);
    }
    if (width >= 1024) {
      // Long destinations give up their room first: an ordinary slug and its title are not cut.
      const row = page.locator('tr[data-link-row]', { has: page.locator(`a[title="go/${SIXTEEN.slug}"]`) });
      assert.equal(await row.count(), 1, `${name}: go/${SIXTEEN.slug} is listed`);
      const cut = await row.evaluate((tr, title) => {
        const slug = Array.from(tr.querySelectorAll('.slug-name > span'));
        const titled = Array.from(tr.querySelectorAll('p')).filter((p) => p.textContent === title);
        return [...slug, ...titled].filter((el) => el.scrollWidth > el.clientWidth).map((el) => el.textContent);
      }, SIXTEEN.title);
      assert.deepEqual(cut, [], `${name} at ${width}px: a 16-character slug and its title show whole`);
    }
    const display = await rows.first().evaluate((el) => getComputedStyle(el).display);
    assert.equal(display, width < 640 ? 'flex' : 'table-row', `${name}: rows are ${width < 640 ? 'cards' : 'table rows'}`);
    await assertAccessible(page, `${name} (${theme}, ${width}px)`);
    await screenshot(page, `link-list-${name}-${theme}-${width}`);
    // What a phone shows first, for a person to look at.
    if (width < 640) await page.screenshot({ path: join(RESULTS_DIR, `link-list-${name}-${theme}-${width}-first-screen.png`) });
    problems.assertNone();
  }

  /** On a phone: tapping a card (on its title, away from its controls) opens the link's page. */
  async function tapOpensPage(page: Page, name: string): Promise<void> {
    const row = page.locator('tr[data-link-row]', { hasText: 'Team page number 1' }).first();
    const title = row.locator('p', { hasText: 'Team page number 1' }).first();
    await title.scrollIntoViewIfNeeded();
    const box = (await title.boundingBox())!;
    const id = (await row.getAttribute('id'))!.slice('link-'.length);
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await page.waitForURL(`${s.url}/dashboard/links/${id}`);
    assert.ok(page.url().endsWith(`/dashboard/links/${id}`), `${name}: the card opened the link's page`);
    await page.goBack();
    await htmxReady(page);
  }

  for (const theme of THEMES) {
    for (const width of WIDTHS) {
      test(`${theme} at ${width}px`, { timeout: 240_000 }, async () => {
        const origin = s.url;
        for (const [user, pages] of [
          [
            alice,
            [
              ['dashboard', '/dashboard'],
              ['browse', '/links'],
              ['tag', '/dashboard/tags/topic-01'],
              ['profile', '/u/alice-smith'],
            ],
          ],
          [admin, [['admin-links', '/admin/links']]],
        ] as const) {
          const context = await browser.newContext({ viewport: { width, height: width < 640 ? 812 : 900 } });
          await context.addCookies([{ name: 'theme', value: theme, url: origin }]);
          await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
          const problems = new Problems(context);
          const page = await context.newPage();
          await signInLocal(page, s, user);
          for (const [name, path] of pages) {
            await page.goto(`${origin}${path}`);
            await check(page, problems, name, theme, width);
            if (width < 640) await tapOpensPage(page, name);
          }
          if (user === alice) {
            await page.goto(`${origin}/dashboard`);
            await htmxReady(page);
            if (width < 640) {
              // The 22 tag chips fold away, so the first link is above the fold.
              await page.getByText(`Tags (${TAGS.length})`).waitFor();
              const first = (await page.locator('tr[data-link-row]').first().boundingBox())!;
              assert.ok(first.y + 40 < 812, `the first link starts above the fold (at ${first.y}px)`);
              // The copy button copies the short link; it does not open the card.
              const row = page.locator('tr[data-link-row]', { hasText: 'team-link-02' }).first();
              await row.getByRole('button', { name: 'Copy link' }).click();
              await row.getByRole('button', { name: 'Copied!' }).waitFor();
              assert.equal(await page.evaluate(() => navigator.clipboard.readText()), `${origin}/team-link-02`);
              assert.ok(page.url().endsWith('/dashboard'), 'copying stays on the list');
              // The actions live in the card's menu.
              await row.locator('summary[aria-label="Actions for go/team-link-02"]').click();
              await row.getByRole('link', { name: 'Edit' }).waitFor({ state: 'visible' });
              await page.screenshot({ path: join(RESULTS_DIR, `link-list-menu-${theme}-${width}.png`) });
              // Delete hides the card and offers Undo (docs/web-ui.md#deleting-with-undo).
              await row.getByRole('link', { name: 'Delete' }).click();
              await row.waitFor({ state: 'hidden' });
              await page.locator('#toast-area').getByRole('button', { name: 'Undo deleting go/team-link-02' }).click();
              await row.waitFor({ state: 'visible' });
            } else {
              await page.locator('nav[aria-label="Tags"]').getByRole('link', { name: 'Topic 01' }).waitFor();
            }
          }
          await context.close();
        }
      });
    }
  }
});
