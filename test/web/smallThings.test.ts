import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { formatDateTime } from '../../src/views/format.js';
import type { TestServer } from '../helpers/server.js';
import { createLink } from '../helpers/links.js';
import { anonymous, has, lacks, mainOf, signedIn, startWebServer, textOf, type Client } from './support.js';

/**
 * Small things a person reads on the pages (docs/web-ui.md): the health line with the checker
 * off, a notification's date in the app's one format, no click columns of dashes for an
 * anonymous visitor, a template's destination as text rather than a link to its placeholders.
 */
describe('small things on the pages', () => {
  let s: TestServer;
  let alice: Client;
  let jiraId = '';
  let plainId = '';

  before(async () => {
    s = await startWebServer({ env: { JOE_HEALTH_CHECKS_ENABLED: 'false' } });
    alice = await signedIn(s, 'alice@x.io', { name: 'Alice Smith' });
    jiraId = (await createLink(s.store, { slug: 'jira', url: 'https://jira.example.com/browse/$ticket', title: 'Jira' }, alice.user!.id))
      .id;
    plainId = (await createLink(s.store, { slug: 'wiki', url: 'https://wiki.example.com/home', title: 'Wiki' }, alice.user!.id)).id;
  });
  after(async () => s.stop());

  test('with health checks off, a link says so instead of waiting to be checked', async () => {
    const text = textOf(mainOf((await alice.page(`/dashboard/links/${plainId}`)).body));
    assert.match(text, /Destination not checked: health checks are turned off on this server\./);
    assert.doesNotMatch(text, /not checked yet|Recheck now/);
  });

  test("a notification's date reads as every other date of the app", async () => {
    const expiresAt = Date.UTC(2031, 4, 6, 14, 30);
    await s.store.notifications.insert(
      [
        {
          userId: alice.user!.id,
          kind: 'link_expiring',
          linkId: plainId,
          linkSlug: 'wiki',
          detail: { actor: { type: 'system', via: 'expiry-watch' }, expiresAt },
          mailState: 'none',
        },
      ],
      s.store.db.kysely,
    );
    const text = textOf(mainOf((await alice.page('/notifications')).body));
    assert.ok(text.includes(`expires on ${formatDateTime(expiresAt)}`), text);
    assert.equal(formatDateTime(expiresAt), 'May 6, 2031 2:30 PM UTC');
    assert.doesNotMatch(text, /2031-05-06/);
  });

  test('an anonymous visitor gets no click columns; a signed-in one keeps them', async () => {
    const anon = mainOf((await anonymous(s).page('/links')).body);
    lacks(anon, /<th[^>]*>\s*(Clicks \(30 days\)|Last clicked)\s*<\/th>/);
    lacks(anon, /—/, 'no column of dashes');
    const own = mainOf((await alice.page('/links')).body);
    has(own, /<th[^>]*>\s*Clicks \(30 days\)\s*<\/th>/);
    has(own, /<th[^>]*>\s*Last clicked\s*<\/th>/);
  });

  test("a template's destination is text, never a link to its placeholders", async () => {
    for (const page of [`/dashboard/links/${jiraId}`, '/dashboard', '/links']) {
      const main = mainOf((await alice.page(page)).body);
      lacks(main, /href="https:\/\/jira\.example\.com/, page);
      assert.ok(textOf(main).includes('https://jira.example.com/browse/$ticket'), `${page}: still shown`);
    }
    has(mainOf((await alice.page(`/dashboard/links/${plainId}`)).body), /href="https:\/\/wiki\.example\.com\/home"/);
  });
});
