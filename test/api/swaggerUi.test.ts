import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { chromiumSkip, launchBrowser, Problems } from '../helpers/browser.js';
import type { TestServer } from '../helpers/server.js';
import { actor, startApi, type Actor } from './support.js';

/**
 * Swagger UI in a real browser, under the server's own Content-Security-
 * Policy: it renders, every asset comes from this origin, and "Authorize"
 * with the `jl_…` token makes "Try it out" send the token (docs/api.md#openapi-and-swagger-ui).
 */
describe('Swagger UI in a browser', { skip: chromiumSkip('Swagger UI') }, () => {
  let s: TestServer;
  let browser: Browser;
  let dana: Actor;
  before(async () => {
    s = await startApi();
    dana = await actor(s, 'dana');
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await s?.stop();
  });

  test('renders without CSP violations or foreign requests, and Try it out carries the token', async () => {
    const context = await browser.newContext();
    const problems = new Problems(context);
    const page = await context.newPage();
    const origins = new Set<string>();
    const authHeaders: Array<string | undefined> = [];
    page.on('request', (r) => {
      origins.add(new URL(r.url()).origin);
      if (new URL(r.url()).pathname === '/api/v1/users/me') authHeaders.push(r.headers().authorization);
    });
    const res = await page.goto(`${s.url}/api/docs/`);
    assert.equal(res?.status(), 200);
    // The UI's scripts are files of ours: it runs under a policy that allows no inline script.
    const csp = (await res!.allHeaders())['content-security-policy'] ?? '';
    assert.match(csp, /script-src 'self'(;|$)/);
    await page.locator('.opblock-summary-path', { hasText: '/users/me' }).first().waitFor({ timeout: 30_000 });
    assert.match((await page.locator('.info .title').textContent()) ?? '', /joe-links API/);

    await page.locator('button.authorize').first().click();
    // An HTTP bearer scheme: Swagger UI asks for the token alone and adds `Bearer `.
    await page.locator('.auth-container input').first().fill(dana.token);
    await page.locator('.auth-btn-wrapper button.authorize').first().click();
    await page.locator('.auth-btn-wrapper button.btn-done').first().click();

    const op = page.locator('.opblock', { has: page.locator('.opblock-summary-path', { hasText: /^\/users\/me$/ }) }).first();
    await op.locator('.opblock-summary').click();
    await op.locator('button.try-out__btn').click();
    await op.locator('button.execute').click();
    await op.locator('.live-responses-table tr.response .response-col_status').first().waitFor({ timeout: 30_000 });
    const status = (await op.locator('.live-responses-table tr.response .response-col_status').first().textContent())?.trim();
    assert.equal(status, '200');
    assert.deepEqual(authHeaders, [`Bearer ${dana.token}`]);

    assert.deepEqual(
      [...origins].filter((o) => o !== s.url && !o.startsWith('data:')),
      [],
      'nothing is fetched from another origin',
    );
    assert.deepEqual(problems.list, [], problems.list.join('\n'));
    await context.close();
  });
});
