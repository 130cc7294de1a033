import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestServer } from '../helpers/server.js';
import { createLink } from '../helpers/links.js';
import { anonymous, has, lacks, mainOf, signedIn, startWebServer, textOf, type Client } from './support.js';

/**
 * Pages that used to end a visit with nowhere to go (docs/web-ui.md#error-pages): a missing page
 * under the app's own sections, an address that is no address, and a secure link's page for
 * someone it is not shared with.
 */
describe('dead ends lead somewhere', () => {
  let s: TestServer;
  let alice: Client;
  let bob: Client;
  let admin: Client;
  let vaultId = '';

  before(async () => {
    s = await startWebServer();
    alice = await signedIn(s, 'alice@x.io', { name: 'Alice Smith' });
    bob = await signedIn(s, 'bob@x.io', { name: 'Bob' });
    admin = await signedIn(s, 'root@x.io', { name: 'Root', admin: true });
    const vault = await createLink(
      s.store,
      { slug: 'vault', url: 'https://vault.example.com/secret-path', title: 'The vault', visibility: 'secure' },
      alice.user!.id,
    );
    vaultId = vault.id;
  });
  after(async () => s.stop());

  test('a missing admin page is a 404 of the app, leading back to Admin, never a go link to make', async () => {
    const r = await admin.page('/admin/nothing-here');
    assert.equal(r.status, 404);
    const main = mainOf(r.body);
    has(main, /Page not found/);
    lacks(main, /Nobody has made|go\/admin|Create /);
    has(main, /<a class="btn btn-primary" href="\/admin">Back to Admin<\/a>/);
    // Someone who is no admin is led to their dashboard; an anonymous visitor home.
    has(mainOf((await bob.page('/admin/nothing-here')).body), /href="\/dashboard">Go to dashboard<\/a>/);
    const anon = await anonymous(s).page('/links/nothing-here');
    assert.equal(anon.status, 404);
    has(mainOf(anon.body), /Page not found[\s\S]*href="\/">Go home<\/a>/);
    // A go link nobody made still offers itself.
    has(mainOf((await bob.page('/no-such-link')).body), /Nobody has made/);
  });

  test('an address with no escape in it is the 400 page, which repeats nothing', async () => {
    for (const path of ['/%zz', '/a%zzb', '/%g1/x', '/admin/%zz']) {
      for (const client of [bob, anonymous(s)]) {
        const r = await client.page(path);
        assert.equal(r.status, 400, path);
        has(r.body, /Bad request/);
        lacks(r.body, /%zz|%g1|zzb/i);
        assert.ok(r.header('content-security-policy'), `${path}: the page's security headers`);
      }
    }
  });

  test("a secure link's page names whom to ask for access, and nothing more of the link", async () => {
    const r = await bob.page(`/dashboard/links/${vaultId}`);
    assert.equal(r.status, 403);
    const text = textOf(mainOf(r.body));
    assert.match(text, /Access denied/);
    assert.match(text, /To ask for access, contact its owner, Alice Smith\./);
    for (const secret of ['vault.example.com', 'secret-path', 'The vault', 'alice@x.io']) assert.ok(!text.includes(secret), secret);
    // The owner sees the page; a stranger to a link that is not secure gets the plain 403.
    assert.equal((await alice.page(`/dashboard/links/${vaultId}`)).status, 200);
    const open = await createLink(s.store, { slug: 'open-thing', url: 'https://open.example.com/' }, alice.user!.id);
    const edit = await bob.page(`/dashboard/links/${open.id}/edit`);
    assert.equal(edit.status, 403);
    lacks(edit.body, /To ask for access/);
  });
});
