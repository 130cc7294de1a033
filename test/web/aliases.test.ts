import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestServer } from '../helpers/server.js';
import { has, lacks, mainOf, signedIn, startWebServer, textOf, type Client } from './support.js';

/**
 * Aliases and forwarding on the web form and the link page (docs/links.md#aliases,
 * docs/links.md#path-and-query-forwarding, docs/web-ui.md#link-detail-page).
 */

describe('aliases and forwarding in the web UI', () => {
  let s: TestServer;
  let alice: Client;
  let bob: Client;
  before(async () => {
    s = await startWebServer({ env: { JOE_SHORT_KEYWORD: 'go' } });
    alice = await signedIn(s, 'alice@x.io', { name: 'Alice' });
    bob = await signedIn(s, 'bob@x.io', { name: 'Bob' });
  });
  after(async () => s.stop());

  const view = async (slug: string) => (await s.store.links.view((await s.store.links.getBySlug(slug))!.id))!;

  test('the form sets aliases (commas or spaces) and forwarding; the link page shows them and the + hint', async () => {
    const r = await alice.send(
      'POST',
      '/dashboard/links',
      { slug: 'handbook', url: 'https://handbook.example/v2', aliases: 'guide, hb  manual', forward_path_and_query: 'true' },
      { htmx: true },
    );
    assert.equal(r.status, 200, r.body);
    const link = await view('handbook');
    assert.deepEqual(link.aliases, ['guide', 'hb', 'manual']);
    assert.equal(link.forwardPathAndQuery, true);

    const page = await alice.send('GET', `/dashboard/links/${link.id}`);
    const main = mainOf(page.body);
    const aliases = /<ul[^>]*data-aliases[^>]*>([\s\S]*?)<\/ul>/.exec(main);
    assert.ok(aliases, 'the aliases are listed');
    assert.deepEqual(
      [...aliases[1]!.matchAll(/<li[^>]*>([^<]*)<\/li>/g)].map((m) => m[1]),
      ['go/guide', 'go/hb', 'go/manual'],
    );
    has(main, /data-plus-hint[^>]*>[^<]*<code[^>]*>go\/handbook\+<\/code>/, 'the + trick beside the short link');
    has(textOf(main), /Forwards extra path and query: go\/handbook\/more\?x=1 opens the destination followed by \/more\?x=1/);

    const edit = await alice.send('GET', `/dashboard/links/${link.id}/edit`);
    has(edit.body, /name="aliases" type="text" value="guide, hb, manual"/, 'the edit form is pre-filled');
    has(edit.body, /name="forward_path_and_query" value="true"[^>]*checked/);
  });

  test('editing replaces the aliases; an empty field removes them; unchecking stops forwarding', async () => {
    await alice.send('POST', '/dashboard/links', { slug: 'wiki', url: 'https://wiki.example', aliases: 'w' });
    const { id } = await view('wiki');
    const put = await alice.send('POST', `/dashboard/links/${id}`, { _method: 'PUT', url: 'https://wiki.example', aliases: 'kb w' });
    assert.equal(put.status, 303);
    assert.deepEqual((await view('wiki')).aliases, ['kb', 'w']);
    await alice.send('POST', `/dashboard/links/${id}`, { _method: 'PUT', url: 'https://wiki.example', aliases: '' });
    assert.deepEqual((await view('wiki')).aliases, []);
    const page = mainOf((await alice.send('GET', `/dashboard/links/${id}`)).body);
    lacks(page, /data-aliases/, 'no alias list without aliases');
    lacks(page, /data-forwarding/, 'no forwarding line when it is off');
  });

  test('a taken alias shows beside its field, keeps the input and saves nothing', async () => {
    await alice.send('POST', '/dashboard/links', { slug: 'taken-one', url: 'https://t.example', aliases: 'mine' });
    const r = await bob.send('POST', '/dashboard/links', { slug: 'bobs', url: 'https://b.example', aliases: 'taken-one' }, { htmx: true });
    assert.equal(r.status, 200);
    const error = /<p id="link-aliases-error"[^>]*role="alert"[^>]*>([\s\S]*?)<\/p>/.exec(r.body);
    assert.ok(error, 'beside the aliases field');
    assert.match(textOf(error[1]!), /alias is already taken: "taken-one"/);
    has(r.body, /name="aliases" type="text" value="taken-one"/);
    assert.equal(await s.store.links.getBySlug('bobs'), null);
    const invalid = await bob.send(
      'POST',
      '/dashboard/links',
      { slug: 'bobs', url: 'https://b.example', aliases: 'Not Ok' },
      { htmx: true },
    );
    has(invalid.body, /id="link-aliases-error"/);
    const slugAsAlias = await bob.send('POST', '/dashboard/links', { slug: 'mine', url: 'https://b.example' }, { htmx: true });
    const slugError = /<p id="link-slug-error"[^>]*>([\s\S]*?)<\/p>/.exec(slugAsAlias.body);
    assert.match(textOf(slugError?.[1] ?? ''), /go\/mine is taken/, 'a slug that is an alias is taken');
    const check = await bob.send('GET', '/dashboard/links/validate-slug?slug=mine');
    has(check.body, /go\/mine is taken/, 'the live check knows aliases');
  });

  test('a NUL in the aliases field is refused beside it', async () => {
    const r = await alice.send(
      'POST',
      '/dashboard/links',
      { slug: 'nul-alias', url: 'https://n.example', aliases: 'a\u0000b' },
      { htmx: true },
    );
    has(r.body, /id="link-aliases-error"/);
    assert.equal(await s.store.links.getBySlug('nul-alias'), null);
  });
});
