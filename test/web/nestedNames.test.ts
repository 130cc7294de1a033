import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestServer } from '../helpers/server.js';
import { anonymous, has, lacks, mainOf, signedIn, startWebServer, type Client } from './support.js';

/**
 * Names of several segments in the web pages (docs/links.md#slugs, docs/web-ui.md#link-forms):
 * the form takes and checks them, the pages show and link them with `/` kept as a path
 * separator, and the 404 page offers to create one.
 */
describe('names with "/" in the web pages', () => {
  let s: TestServer;
  let alice: Client;
  before(async () => {
    s = await startWebServer({ env: { JOE_SHORT_KEYWORD: 'go' } });
    alice = await signedIn(s, 'alice@nested.io', { name: 'Alice' });
  });
  after(async () => s.stop());

  test('the form creates blog/launch, whose page shows and links it by that name', async () => {
    const r = await alice.send('POST', '/dashboard/links', { slug: 'blog/launch', url: 'https://example.com/launch' });
    assert.equal(r.status, 303, r.body);
    const link = (await s.store.links.getBySlug('blog/launch'))!;
    assert.ok(link, 'created under its whole name');
    // go/blog/launch+ lands on the link's page.
    const plus = await alice.page('/blog/launch+');
    assert.equal(plus.status, 302);
    assert.equal(plus.header('location'), `/dashboard/links/${link.id}`);
    const page = await alice.page(plus.header('location')!);
    assert.equal(page.status, 200);
    const main = mainOf(page.body);
    has(main, /go\/blog\/launch\+/, 'the page names its `+` address');
    has(main, new RegExp(`${s.url}/blog/launch`), 'the short URL keeps `/` as a path separator');
    lacks(main, /blog%2Flaunch/, 'nothing escapes the `/`');
    const go = await anonymous(s).page('/blog/launch');
    assert.deepEqual([go.status, go.header('location')], [302, 'https://example.com/launch']);
    const list = await alice.page('/dashboard');
    has(list.body, /href="\/blog\/launch"/, 'the list links the name as a path');
  });

  test('the live check and its one-click fix handle "/"; a refused name keeps the form with the reason', async () => {
    const check = async (slug: string) => (await alice.page(`/dashboard/links/validate-slug?slug=${encodeURIComponent(slug)}`)).body;
    const bad = await check('Blog/Launch-Day');
    has(bad, /class="error-text">A short name may have up to 8 parts joined by single slashes/);
    has(bad, /data-slug-suggestion="blog\/launch-day">Use blog\/launch-day<\/button>/);
    has(await check('admin/tools'), /'admin' is used by the app: a short name cannot start with it\./);
    has(await check('blog/launch'), /go\/blog\/launch is taken — <a class="link" href="\/blog\/launch"/);
    has(await check('blog/launch-day'), /Available!/);
    const before = await s.store.links.getBySlug('blog//x');
    const refused = await alice.send('POST', '/dashboard/links', { slug: 'blog//x', url: 'https://example.com/x' });
    assert.equal(refused.status, 400);
    has(refused.body, /A short name may have up to 8 parts/);
    has(refused.body, /value="blog\/\/x"/, 'the input is kept');
    assert.equal(before, null);
    assert.equal(await s.store.links.getBySlug('blog/x'), null, 'nothing saved');
  });

  test('?slug=blog/launch pre-fills the form, and a miss of a whole name offers to create it', async () => {
    const form = await alice.page('/dashboard/links/new?slug=blog/next');
    has(form.body, /name="slug"[^>]*value="blog\/next"|value="blog\/next"[^>]*name="slug"/);
    const miss = await alice.page('/blog/next');
    assert.equal(miss.status, 404);
    has(miss.body, /Nobody has made go\/blog\/next\./);
    has(miss.body, /href="\/dashboard\/links\/new\?slug=blog%2Fnext"[^>]*>Create go\/blog\/next</);
    // Did-you-mean tries the whole name, then its first segment, which may be the typo.
    await alice.send('POST', '/dashboard/links', { slug: 'roadmap', url: 'https://example.com/roadmap' });
    const typo = await alice.page('/roadmop/q3');
    has(typo.body, /Open go\/roadmap/);
    has(typo.body, /Create go\/roadmop\/q3/);
    await alice.send('POST', '/dashboard/links', { slug: 'roadmap/q3', url: 'https://example.com/roadmap/q3' });
    has((await alice.page('/roadmup/q3')).body, /Open go\/roadmap\/q3/, 'a near name of several segments');
    const reserved = await alice.page('/nope/admin');
    has(reserved.body, /Create go\/nope\/admin/, 'only the first segment is checked against the reserved words');
  });
});
