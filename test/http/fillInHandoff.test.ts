import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createLink } from '../helpers/links.js';
import { get, startTestServer, type TestServer } from '../helpers/server.js';

/**
 * The fill-in form's own submission (docs/links.md#fill-in-page): a navigation from a page of
 * this site that fills a variable by name gets a page that moves on by its `Refresh` header,
 * which `form-action` does not hold back; typed or followed from elsewhere, the same address
 * is the usual 302.
 */
describe('the fill-in handoff', () => {
  let s: TestServer;
  const FORM = { 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' };

  before(async () => {
    s = await startTestServer({ env: { JOE_SHORT_KEYWORD: 'go' } });
    const owner = await s.store.users.create({ email: 'owner@example.test' });
    await createLink(s.store, { slug: 'jira', url: 'https://jira.test/browse/$ticket' }, owner.id);
  });
  after(() => s?.stop());

  test('the form’s submission moves on by Refresh; every other visit is redirected', async () => {
    const handoff = await get(`${s.url}/jira?ticket=ABC-1`, FORM);
    assert.equal(handoff.status, 200);
    assert.equal(handoff.headers.get('refresh'), '0; url=https://jira.test/browse/ABC-1');
    assert.equal(handoff.headers.get('cache-control'), 'private, no-store');
    assert.match(handoff.headers.get('content-security-policy') ?? '', /form-action 'self'/);
    assert.match(await handoff.text(), /<a class="[^"]*" href="https:\/\/jira\.test\/browse\/ABC-1"/);

    for (const headers of [{}, { ...FORM, 'sec-fetch-site': 'none' }, { ...FORM, 'sec-fetch-site': 'cross-site' }]) {
      const r = await get(`${s.url}/jira?ticket=ABC-1`, headers);
      assert.equal(r.status, 302, JSON.stringify(headers));
      assert.equal(r.headers.get('location'), 'https://jira.test/browse/ABC-1');
    }
    // A value in the path is no form's: redirected, wherever the visit comes from.
    const path = await get(`${s.url}/jira/ABC-1`, FORM);
    assert.equal(path.status, 302);
  });
});
