import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { User } from '../../src/store/types.js';
import { eventually, get, sessionCookie, startTestServer, type TestServer } from '../helpers/server.js';
import { createLink } from '../helpers/links.js';

/** The resolution pipeline of docs/links.md#resolution, docs/links.md#prefixes-and-variables, docs/links.md#keywords, docs/links.md#autocomplete-and-search, docs/analytics.md#click-capture over real HTTP. */
describe('resolver', () => {
  let s: TestServer;
  let alice: User;
  let bob: User;
  let admin: User;
  let carol: User;
  let aliceCookie: string;
  let bobCookie: string;
  let adminCookie: string;
  let carolCookie: string;

  const clicksFor = async (slug: string) => {
    const link = await s.store.links.getBySlug(slug);
    return s.store.clicks.countForLink(link!.id);
  };

  before(async () => {
    s = await startTestServer();
    const st = s.store;
    alice = await st.users.create({ email: 'alice@example.com', displayName: 'Alice' });
    bob = await st.users.create({ email: 'bob@example.com', displayName: 'Bob' });
    carol = await st.users.create({ email: 'carol@example.com', displayName: 'Carol' });
    admin = await st.users.create({ email: 'root@example.com', displayName: 'Root', role: 'admin' });
    aliceCookie = await sessionCookie(st, alice);
    bobCookie = await sessionCookie(st, bob);
    adminCookie = await sessionCookie(st, admin);
    carolCookie = await sessionCookie(st, carol);
    await createLink(st, { slug: 'jira', url: 'https://jira.test', title: 'Jira' }, alice.id);
    await createLink(st, { slug: 'github', url: 'https://github.com/$username' }, alice.id);
    await createLink(st, { slug: 'my-link', url: 'https://e.test/?q=$query&page=$page' }, alice.id);
    await createLink(st, { slug: 'search', url: 'https://e.test/search?q=$term' }, alice.id);
    await createLink(st, { slug: 't', url: 'https://e.test/$env/$env_id' }, alice.id);
    await createLink(st, { slug: 'browse', url: 'https://x.test/browse/$ticket' }, alice.id);
    await createLink(st, { slug: 'standup-notes', url: 'https://notes.test' }, alice.id);
    await createLink(st, { slug: 'secret', url: 'https://secret.test', visibility: 'private' }, alice.id);
    await createLink(st, { slug: 'vault', url: 'https://vault.test', visibility: 'secure' }, alice.id, { shareWith: [bob.id] });
    await createLink(st, { slug: 'tenant', url: 'https://$team.example.com/home' }, alice.id);
    // A template written before placeholders at the end of the host were refused (docs/links.md#placeholders-in-the-host): stored as is.
    const fixed = await createLink(st, { slug: 'fixed', url: 'https://fixed.test/' }, alice.id);
    await st.db.kysely.updateTable('links').set({ url: 'https://fixed.test$suffix' }).where('id', '=', fixed.id).execute();
    await createLink(st, { slug: 'unicode', url: 'https://e.test/caf\u00e9' }, alice.id);
    await st.keywords.create({ keyword: 'gh', urlTemplate: 'https://github.com/{slug}' });
    await st.keywords.create({ keyword: 'go', urlTemplate: 'https://go.test/{slug}' });
    await createLink(st, { slug: 'gh', url: 'https://gh-link.test' }, alice.id);
  });

  after(async () => {
    await s.stop();
  });

  test('a link redirects with 302 and a no-store Cache-Control, and records one click', async () => {
    const before = await clicksFor('jira');
    const r = await get(`${s.url}/jira`);
    assert.equal(r.status, 302);
    assert.equal(r.headers.get('location'), 'https://jira.test');
    assert.equal(r.headers.get('cache-control'), 'private, no-store');
    await eventually(async () => (await clicksFor('jira')) === before + 1);
  });

  test('HEAD answers like GET with no body and records no click', async () => {
    await eventually(() => s.clickWriter.pending === 0);
    const before = await clicksFor('jira');
    const r = await get(`${s.url}/jira`, {}, 'HEAD');
    assert.equal(r.status, 302);
    assert.equal(r.headers.get('location'), 'https://jira.test');
    assert.equal((await r.text()).length, 0);
    await new Promise((res) => setTimeout(res, 150));
    assert.equal(await clicksFor('jira'), before);
  });

  test('an HTMX request gets 204 with HX-Redirect', async () => {
    const r = await get(`${s.url}/jira`, { 'HX-Request': 'true' });
    assert.equal(r.status, 204);
    assert.equal(r.headers.get('hx-redirect'), 'https://jira.test');
  });

  test('lookup is case-insensitive; variable values keep their case', async () => {
    assert.equal((await get(`${s.url}/JIRA`)).headers.get('location'), 'https://jira.test');
    const r = await get(`${s.url}/Browse/PROJ-123`);
    assert.equal(r.headers.get('location'), 'https://x.test/browse/PROJ-123');
  });

  test('variable links substitute positionally and check arity', async () => {
    assert.equal((await get(`${s.url}/github/joestump`)).headers.get('location'), 'https://github.com/joestump');
    // Too few values: the fill-in page asks for the rest (docs/links.md#fill-in-page), no redirect.
    const bare = await get(`${s.url}/github`);
    assert.equal(bare.status, 200);
    assert.equal(bare.headers.get('location'), null);
    assert.equal((await get(`${s.url}/my-link/widgets/3`)).headers.get('location'), 'https://e.test/?q=widgets&page=3');
    const partial = await get(`${s.url}/my-link/widgets`);
    assert.equal(partial.headers.get('location'), null);
    assert.match(await partial.text(), /value="widgets"/);
    assert.equal((await get(`${s.url}/search/hello%20world`)).headers.get('location'), 'https://e.test/search?q=hello%20world');
    // A value landing in the query is query-escaped: `+` stays a plus and `&`/`=` stay inside the one parameter.
    assert.equal((await get(`${s.url}/search/c++`)).headers.get('location'), 'https://e.test/search?q=c%2B%2B');
    assert.equal((await get(`${s.url}/search/a&b=c`)).headers.get('location'), 'https://e.test/search?q=a%26b%3Dc');
    assert.equal((await get(`${s.url}/t/a/b`)).headers.get('location'), 'https://e.test/a/b');
  });

  test('substituted values are encoded and cannot escape the template host', async () => {
    assert.equal((await get(`${s.url}/github/a%2Fb%3Fc%23d`)).headers.get('location'), 'https://github.com/a%2Fb%3Fc%23d');
    // `@` is literal in a path segment, but must not turn the template host into userinfo.
    assert.equal((await get(`${s.url}/fixed/@evil.com`)).status, 404);
    assert.equal((await get(`${s.url}/tenant/acme`)).headers.get('location'), 'https://acme.example.com/home');
    assert.equal((await get(`${s.url}/tenant/evil.com%23`)).status, 404);
  });

  test('a variable link visited bare, or with the wrong arity, offers no create', async () => {
    const body = await (await get(`${s.url}/github`)).text();
    assert.doesNotMatch(body, /Create go\/|Sign in to create|\/dashboard\/links\/new/);
  });

  test('a plain link discards extra segments', async () => {
    assert.equal((await get(`${s.url}/jira/extra/stuff`)).headers.get('location'), 'https://jira.test');
  });

  test('normalisation forgiveness applies to single segments only', async () => {
    assert.equal((await get(`${s.url}/standup_notes`)).headers.get('location'), 'https://notes.test');
    assert.equal((await get(`${s.url}/standup-notes.`)).headers.get('location'), 'https://notes.test');
    assert.equal((await get(`${s.url}/standup_notes/x`)).status, 404);
  });

  test('keywords: path routing, host routing, and shadowing a same-named link', async () => {
    const r = await get(`${s.url}/gh/joestump/joe-links`);
    assert.equal(r.status, 302);
    assert.equal(r.headers.get('location'), 'https://github.com/joestump/joe-links');
    const host = await get(`${s.url}/slack`, { Host: 'go:8080' });
    assert.equal(host.headers.get('location'), 'https://go.test/slack');
    const both = await get(`${s.url}/go/slack`, { Host: 'go' });
    assert.equal(both.headers.get('location'), 'https://go.test/go/slack');
    // Keywords are case-sensitive: /GH/x skips keyword routing and resolves the link.
    assert.equal((await get(`${s.url}/GH/x`)).headers.get('location'), 'https://gh-link.test');
    // No remainder: not keyword-routed.
    assert.equal((await get(`${s.url}/gh`)).headers.get('location'), 'https://gh-link.test');
  });

  test('keyword redirects record no click and ignore HTMX', async () => {
    await eventually(() => s.clickWriter.pending === 0);
    const before = await s.store.clicks.countAll();
    const r = await get(`${s.url}/gh/x`, { 'HX-Request': 'true' });
    assert.equal(r.status, 302);
    assert.equal(r.headers.get('location'), 'https://github.com/x');
    await new Promise((res) => setTimeout(res, 150));
    assert.equal(await s.store.clicks.countAll(), before);
  });

  test('private links resolve for anyone who knows the slug', async () => {
    assert.equal((await get(`${s.url}/secret`)).headers.get('location'), 'https://secret.test');
  });

  test('secure: anonymous → login with the full request URI, recipient → 302, stranger → 403, admin → 302', async () => {
    const anon = await get(`${s.url}/vault?x=1`);
    assert.equal(anon.status, 302);
    assert.equal(anon.headers.get('location'), '/auth/login?return_url=%2Fvault%3Fx%3D1');
    assert.equal(anon.headers.get('cache-control'), 'private, no-store');
    assert.equal((await get(`${s.url}/vault`, { Cookie: bobCookie })).headers.get('location'), 'https://vault.test');
    assert.equal((await get(`${s.url}/vault`, { Cookie: aliceCookie })).headers.get('location'), 'https://vault.test');
    const stranger = await get(`${s.url}/vault`, { Cookie: carolCookie });
    assert.equal(stranger.status, 403);
    assert.match(await stranger.text(), /Access denied/);
    assert.equal((await get(`${s.url}/vault`, { Cookie: adminCookie })).headers.get('location'), 'https://vault.test');
  });

  test('a miss renders the 404 page with a create offer for a valid slug', async () => {
    const anon = await get(`${s.url}/new-thing`);
    assert.equal(anon.status, 404);
    assert.equal(anon.headers.get('cache-control'), 'private, no-store');
    const body = await anon.text();
    assert.match(body, /Link not found: new-thing/);
    assert.match(body, /Sign in to create this link/);
    assert.match(body, /return_url=%2Fdashboard%2Flinks%2Fnew%3Fslug%3Dnew-thing/);
    const signedIn = await (await get(`${s.url}/new-thing`, { Cookie: aliceCookie })).text();
    assert.match(signedIn, /<a class="btn btn-primary" href="\/dashboard\/links\/new\?slug=new-thing">Create [^<]*\/new-thing<\/a>/);
    // Typed in upper case: no offer; reserved words: no offer.
    assert.doesNotMatch(await (await get(`${s.url}/NEW-THING`)).text(), /create this link|Create go\/|\/dashboard\/links\/new/i);
    assert.doesNotMatch(await (await get(`${s.url}/links/x`)).text(), /create this link|Create go\/|\/dashboard\/links\/new/i);
  });

  test('did-you-mean never reveals a private or secure slug to someone who may not discover it', async () => {
    const anon = await (await get(`${s.url}/secrt`)).text();
    assert.doesNotMatch(anon, /href="\/secret"/);
    assert.doesNotMatch(anon, /Did you mean/);
    const owner = await (await get(`${s.url}/secrt`, { Cookie: aliceCookie })).text();
    assert.match(owner, /Did you mean/);
    assert.match(owner, /href="\/secret"/);
    const stranger = await (await get(`${s.url}/vaul`, { Cookie: carolCookie })).text();
    assert.doesNotMatch(stranger, /href="\/vault"/);
    const recipient = await (await get(`${s.url}/vaul`, { Cookie: bobCookie })).text();
    assert.match(recipient, /href="\/vault"/);
  });

  test('did-you-mean suggests public slugs to everyone, escaped, with the short keyword', async () => {
    const r = await (await get(`${s.url}/jria`, { Host: 'go.example.com' })).text();
    assert.match(r, /Did you mean/);
    assert.match(r, /go\/jira/);
  });

  test('the nearest suggestion is the focused primary action, with its title; creating the typo is the lesser choice', async () => {
    const r = await (await get(`${s.url}/jirb`, { Host: 'go.example.com', Cookie: aliceCookie })).text();
    const main = /<main[^>]*>([\s\S]*)<\/main>/.exec(r)![1]!;
    assert.match(main, /<a class="btn btn-primary[^"]*" href="\/jira" autofocus>Open go\/jira — Jira<\/a>/);
    assert.match(main, /<a class="btn btn-ghost" href="\/dashboard\/links\/new\?slug=jirb">Create go\/jirb<\/a>/);
    assert.equal(main.match(/btn-primary/g)!.length, 1, 'one primary action');
    assert.ok(main.indexOf('href="/jira"') < main.indexOf('/dashboard/links/new'), 'the suggestion comes first');
  });

  test('HTMX 404 is a fragment', async () => {
    const r = await get(`${s.url}/nope-nope`, { 'HX-Request': 'true' });
    assert.equal(r.status, 404);
    const body = await r.text();
    assert.doesNotMatch(body, /<html/);
    assert.match(body, /Link not found/);
  });

  test('named routes win over the resolver', async () => {
    const r = await get(`${s.url}/healthz`);
    assert.equal(r.status, 200);
    assert.equal(await r.text(), 'ok\n');
  });

  test('non-ASCII destinations are sent as a valid Location header', async () => {
    const r = await get(`${s.url}/unicode`);
    assert.equal(r.status, 302);
    assert.equal(r.headers.get('location'), 'https://e.test/caf%C3%A9');
  });

  test('a click carries the user, a 64-hex ip hash and a cleaned referrer', async () => {
    const link = await s.store.links.getBySlug('standup-notes');
    await get(`${s.url}/standup-notes`, {
      Cookie: aliceCookie,
      Referer: 'https://wiki.test/page?token=abc#x',
      'User-Agent': 'TestAgent/1.0',
    });
    const mine = () =>
      s.store.db.kysely.selectFrom('link_clicks').selectAll().where('link_id', '=', link!.id).where('user_id', '=', alice.id).execute();
    await eventually(async () => (await mine()).length === 1);
    const row = (await mine())[0]!;
    assert.ok(row);
    assert.match(row.ip_hash, /^[0-9a-f]{64}$/);
    assert.equal(row.referrer, 'https://wiki.test/page');
    assert.equal(row.user_agent, 'TestAgent/1.0');
  });

  test('metrics count found and not_found and expose every metric name', async () => {
    const body = await (await get(`${s.url}/metrics`)).text();
    for (const name of [
      'joelinks_redirects_total',
      'joelinks_redirect_duration_seconds',
      'joelinks_clicks_recorded_total',
      'joelinks_clicks_record_errors_total',
      'joelinks_links_total',
      'joelinks_users_total',
      'joelinks_clicks_dropped_total',
    ]) {
      assert.match(body, new RegExp(`^# TYPE ${name} `, 'm'), name);
    }
    assert.match(body, /joelinks_redirects_total\{status="found"\} [1-9]/);
    assert.match(body, /joelinks_redirects_total\{status="not_found"\} [1-9]/);
    assert.doesNotMatch(body, /slug=/);
  });

  test('each redirect counts once as found and once in the duration histogram, signed in or not', async () => {
    const read = async () => {
      const body = await (await get(`${s.url}/metrics`)).text();
      const value = (re: RegExp) => Number(re.exec(body)?.[1] ?? NaN);
      return {
        found: value(/^joelinks_redirects_total\{status="found"\} (\d+)/m),
        count: value(/^joelinks_redirect_duration_seconds_count (\d+)/m),
        inf: value(/^joelinks_redirect_duration_seconds_bucket\{le="\+Inf"\} (\d+)/m),
        fast: value(/^joelinks_redirect_duration_seconds_bucket\{le="0.5"\} (\d+)/m),
      };
    };
    const before = await read();
    for (const [path, cookie] of [
      ['/jira', ''],
      ['/browse/ABC-1', ''],
      ['/jira', aliceCookie],
      ['/gh/joestump', ''],
    ] as const) {
      assert.equal((await get(`${s.url}${path}`, cookie ? { cookie } : {})).status, 302, path);
    }
    const after = await read();
    assert.equal(after.found - before.found, 4);
    assert.equal(after.count - before.count, 4);
    assert.equal(after.inf, after.count, 'the +Inf bucket holds every observation');
    assert.ok(after.fast <= after.inf && after.fast - before.fast === 4, 'local redirects take well under half a second');
  });
});
