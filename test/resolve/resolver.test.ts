import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { Resolver, type ResolveRequest, type Resolution, type ViewerSource } from '../../src/resolve/resolver.js';
import type { Store } from '../../src/store/index.js';
import type { User } from '../../src/store/types.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { addShare, createLink, removeShare } from '../helpers/links.js';

/**
 * The resolver itself, on every database: on an SQLite file every kind of
 * resolution comes back synchronously (no promise turn on the redirect
 * path); on PostgreSQL and MySQL the same steps come back as a promise with
 * the same answer.
 */
describeEachDatabase('the resolver', (ctx) => {
  let resolver: Resolver;
  let owner: User;
  let stranger: User;
  const tokens = new Map<string, string>();

  before(async () => {
    const { store, clock } = ctx();
    resolver = new Resolver(store);
    owner = await store.users.create({ email: 'owner@resolver.test', displayName: 'Owner' });
    stranger = await store.users.create({ email: 'stranger@resolver.test', displayName: 'Stranger' });
    const recipient = await store.users.create({ email: 'recipient@resolver.test', displayName: 'Recipient' });
    for (const u of [owner, stranger, recipient]) {
      const token = `${u.displayName.padEnd(43, 'x')}`.slice(0, 43);
      await store.sessions.create(token, { userId: u.id, role: u.role, createdAt: clock.now }, clock.now + 3_600_000);
      tokens.set(u.displayName, token);
    }
    await createLink(store, { slug: 'plain', url: 'https://plain.test/' }, owner.id);
    const vault = await createLink(store, { slug: 'vault', url: 'https://vault.test/', visibility: 'secure', aliases: ['safe'] }, owner.id);
    await addShare(store, vault.id, recipient.id, owner.id);
    await createLink(store, { slug: 'jira', url: 'https://jira.test/browse/$ticket', aliases: ['tickets'] }, owner.id);
    await createLink(store, { slug: 'gh2', url: 'https://github.com/$org/$repo' }, owner.id);
    await createLink(
      store,
      { slug: 'docs', url: 'https://docs.test/base?src=go#top', aliases: ['handbook'], forwardPathAndQuery: true },
      owner.id,
    );
    await createLink(store, { slug: 'issues', url: 'https://issues.test/$project', forwardPathAndQuery: true }, owner.id);
    await store.keywords.create({ keyword: 'wiki', urlTemplate: 'https://wiki.test/{slug}' });
  });

  const session = (name: string): ViewerSource => ({ kind: 'session', token: tokens.get(name)! });
  const ask = (path: string, viewer: ViewerSource, host = 'go.example.test'): Promise<Resolution> => {
    const q = path.indexOf('?');
    const req: ResolveRequest =
      q === -1 ? { path, host, viewer, query: '' } : { path: path.slice(0, q), host, viewer, query: path.slice(q + 1) };
    const answer = resolver.resolve(req);
    const { driver, config } = ctx();
    const onFile = driver === 'sqlite3' && config.dsn !== ':memory:';
    assert.equal(answer instanceof Promise, !onFile, `${path}: ${onFile ? 'synchronous on an SQLite file' : 'a promise'}`);
    return Promise.resolve(answer);
  };

  test('a plain link for anyone, the click naming the signed-in user', async () => {
    assert.deepEqual(await ask('plain', { kind: 'anonymous' }), {
      kind: 'redirect',
      location: 'https://plain.test/',
      linkId: (await ctx().store.links.getBySlug('plain'))!.id,
      userId: null,
      htmxAware: true,
    });
    const signedIn = await ask('plain', session('Owner'));
    assert.equal(signedIn.kind === 'redirect' && signedIn.userId, owner.id);
  });

  test('a secure link: sign in, forbidden, or through for its owner and recipient', async () => {
    assert.deepEqual(await ask('vault', { kind: 'anonymous' }), { kind: 'login' });
    assert.deepEqual(await ask('vault', session('Stranger')), { kind: 'forbidden' });
    assert.equal((await ask('vault', session('Owner'))).kind, 'redirect');
    assert.equal((await ask('vault', session('Recipient'))).kind, 'redirect');
    assert.equal((await ask('vault', { kind: 'known', user: stranger })).kind, 'forbidden', 'a viewer the web layer knows');
  });

  test('templates, keyword paths and keyword hosts', async () => {
    const filled = await ask('jira/ABC-1', session('Owner'));
    assert.equal(filled.kind === 'redirect' && filled.location, 'https://jira.test/browse/ABC-1');
    const byHost = await ask('Some/Page', { kind: 'anonymous' }, 'wiki');
    assert.deepEqual(byHost, { kind: 'redirect', location: 'https://wiki.test/Some/Page', linkId: null, userId: null, htmxAware: false });
    const byPath = await ask('wiki/Home', { kind: 'anonymous' });
    assert.equal(byPath.kind === 'redirect' && byPath.location, 'https://wiki.test/Home');
  });

  test('misses, an unknown session, and a forward-auth user never seen are told apart', async () => {
    assert.deepEqual(await ask('nothing', session('Owner')), { kind: 'not_found', slug: 'nothing', offerCreate: true });
    const unknown: ViewerSource = { kind: 'session', token: 'n'.repeat(43) };
    assert.equal((await ask('plain', unknown)).kind === 'redirect' && 'anonymous', 'anonymous');
    assert.deepEqual(await ask('plain', { kind: 'proxied', email: 'new@resolver.test' }), { kind: 'handoff' });
    const known = await ask('vault', { kind: 'proxied', email: ' OWNER@resolver.test ' });
    assert.equal(known.kind === 'redirect' && known.userId, owner.id, 'the email rule: trimmed, any case');
  });

  test('a secure link reads the session and what its user holds afresh on every request', async () => {
    const { store, clock } = ctx();
    const vault = (await store.links.getBySlug('vault'))!;
    const guest = await store.users.create({ email: 'guest@resolver.test', displayName: 'Guest' });
    const token = 'g'.repeat(43);
    await store.sessions.create(token, { userId: guest.id, role: guest.role, createdAt: clock.now }, clock.now + 60_000);
    const guestSession: ViewerSource = { kind: 'session', token };
    assert.deepEqual(await ask('vault', guestSession), { kind: 'forbidden' });
    await addShare(store, vault.id, guest.id, owner.id);
    const through = await ask('vault', guestSession);
    assert.equal(through.kind === 'redirect' && through.userId, guest.id, 'a new share applies at once');
    await removeShare(store, vault.id, guest.id);
    assert.deepEqual(await ask('vault', guestSession), { kind: 'forbidden' }, 'so does a revoked one');
    await store.users.setRole(guest.id, 'admin', 'manual');
    assert.equal((await ask('vault', guestSession)).kind, 'redirect', 'an admin sees every link');
    await store.users.setRole(guest.id, 'user', 'manual');
    assert.deepEqual(await ask('vault', guestSession), { kind: 'forbidden' }, 'and a demoted one no longer');
    clock.now += 60_000;
    assert.deepEqual(await ask('vault', guestSession), { kind: 'login' }, 'an expired session is nobody');
    clock.now -= 60_000;
    await store.sessions.delete(token);
    assert.deepEqual(await ask('vault', guestSession), { kind: 'login' }, 'a signed-out one too');
    assert.deepEqual(await ask('vault', { kind: 'session', token: 'n'.repeat(43) }), { kind: 'login' });
  });

  test('an alias resolves exactly like its slug: visibility, templates, prefixes, forgiveness, the click on the link', async () => {
    const { store } = ctx();
    const vault = (await store.links.getBySlug('vault'))!;
    assert.deepEqual(await ask('safe', { kind: 'anonymous' }), { kind: 'login' });
    assert.deepEqual(await ask('safe', session('Stranger')), { kind: 'forbidden' });
    const through = await ask('SAFE', session('Recipient'));
    assert.equal(through.kind === 'redirect' && through.linkId, vault.id, 'the click is the link’s');
    const ticket = await ask('tickets/ABC-1', { kind: 'anonymous' });
    assert.equal(ticket.kind === 'redirect' && ticket.location, 'https://jira.test/browse/ABC-1');
    const forgiven = await ask('tickets.', { kind: 'anonymous' });
    assert.equal(forgiven.kind, 'fill_in', 'normalisation forgiveness reaches aliases too');
  });

  test('forwarding appends the extra path and merges the query; other links drop both', async () => {
    const deep = await ask('docs/guides/set%20up?lang=en&x=a%26b', { kind: 'anonymous' });
    assert.equal(deep.kind === 'redirect' && deep.location, 'https://docs.test/base/guides/set%20up?src=go&lang=en&x=a%26b#top');
    const byAlias = await ask('handbook/a?b=c', { kind: 'anonymous' });
    assert.equal(byAlias.kind === 'redirect' && byAlias.location, 'https://docs.test/base/a?src=go&b=c#top');
    const bare = await ask('docs', { kind: 'anonymous' });
    assert.equal(bare.kind === 'redirect' && bare.location, 'https://docs.test/base?src=go#top', 'nothing to forward: unchanged');
    const plain = await ask('plain/extra?q=1', { kind: 'anonymous' });
    assert.equal(plain.kind === 'redirect' && plain.location, 'https://plain.test/', 'no forwarding: extra path and query dropped');
    const template = await ask('issues/core/tree/main?tab=files', { kind: 'anonymous' });
    assert.equal(template.kind === 'redirect' && template.location, 'https://issues.test/core/tree/main?tab=files');
    const named = await ask('issues?project=web&tab=1', { kind: 'anonymous' });
    assert.equal(
      named.kind === 'redirect' && named.location,
      'https://issues.test/web?tab=1',
      'a variable from the query is not forwarded',
    );
    assert.equal((await ask('docs/..', { kind: 'anonymous' })).kind, 'not_found', 'a dot segment never walks up the path');
  });

  test('a template without its values asks for them; values come from the path or by name from the query', async () => {
    const { store } = ctx();
    const jira = (await store.links.getBySlug('jira'))!;
    const bare = await ask('jira', { kind: 'anonymous' });
    assert.equal(bare.kind, 'fill_in');
    assert.deepEqual(bare.kind === 'fill_in' && { slug: bare.slug, id: bare.link.id, values: bare.values }, {
      slug: 'jira',
      id: jira.id,
      values: [null],
    });
    assert.deepEqual((await ask('jira/', { kind: 'anonymous' })).kind, 'fill_in', 'an empty value is no value');
    const byName = await ask('jira?ticket=ABC-123', { kind: 'anonymous' });
    assert.equal(byName.kind === 'redirect' && byName.location, 'https://jira.test/browse/ABC-123');
    const half = await ask('gh2/joe', { kind: 'anonymous' });
    assert.deepEqual(half.kind === 'fill_in' && half.values, ['joe', null], 'given values are kept for the page');
    const filled = await ask('gh2/joe?repo=links', { kind: 'anonymous' });
    assert.equal(filled.kind === 'redirect' && filled.location, 'https://github.com/joe/links');
    assert.equal((await ask('tickets', { kind: 'anonymous' })).kind, 'fill_in', 'through an alias too');
    assert.deepEqual(
      await ask('jira/a/b', { kind: 'anonymous' }),
      { kind: 'not_found', slug: 'jira', offerCreate: false },
      'too many values',
    );
    // The gates come first: a stranger learns nothing of a secure template's variables.
    const secret = await createLink(store, { slug: 'secret-tpl', url: 'https://s.test/$x', visibility: 'secure' }, owner.id);
    assert.deepEqual(await ask('secret-tpl', session('Stranger')), { kind: 'forbidden' });
    assert.deepEqual(await ask('secret-tpl', { kind: 'anonymous' }), { kind: 'login' });
    assert.equal((await ask('secret-tpl', session('Owner'))).kind, 'fill_in');
    await store.db.kysely.updateTable('links').set({ archived_at: 1 }).where('id', '=', secret.id).execute();
    assert.deepEqual(
      await ask('secret-tpl', session('Owner')),
      { kind: 'not_found', slug: 'secret-tpl', offerCreate: false, held: true },
      'an archived template asks nothing and acts gone, to its owner too',
    );
  });

  test('a template with a default destination goes there with no value, asks with some, fills with all', async () => {
    const { store } = ctx();
    const drive = await createLink(
      store,
      { slug: 'drive', url: 'https://drive.test/search?q=$q', defaultUrl: 'https://drive.test/home', aliases: ['docsearch'] },
      owner.id,
    );
    const anonymous: ViewerSource = { kind: 'anonymous' };
    assert.deepEqual(await ask('drive', anonymous), {
      kind: 'redirect',
      location: 'https://drive.test/home',
      linkId: drive.id,
      userId: null,
      htmxAware: true,
    });
    const signedIn = await ask('drive', session('Owner'));
    assert.equal(signedIn.kind === 'redirect' && signedIn.location, 'https://drive.test/home', 'the session lookup reads it too');
    const byAlias = await ask('docsearch', anonymous);
    assert.equal(byAlias.kind === 'redirect' && byAlias.location, 'https://drive.test/home', 'through an alias too');
    const empty = await ask('drive/', anonymous);
    assert.equal(empty.kind === 'redirect' && empty.location, 'https://drive.test/home', 'an empty value is no value');
    const filled = await ask('drive/roadmap', anonymous);
    assert.equal(filled.kind === 'redirect' && filled.location, 'https://drive.test/search?q=roadmap');
    const byName = await ask('drive?q=roadmap', anonymous);
    assert.equal(byName.kind === 'redirect' && byName.location, 'https://drive.test/search?q=roadmap', 'a value by name from the query');
    const other = await ask('drive?x=1', anonymous);
    assert.equal(other.kind === 'redirect' && other.location, 'https://drive.test/home', 'a query naming no variable is no value');

    await createLink(store, { slug: 'repo', url: 'https://git.test/$org/$repo', defaultUrl: 'https://git.test/' }, owner.id);
    const none = await ask('repo', anonymous);
    assert.equal(none.kind === 'redirect' && none.location, 'https://git.test/', 'several variables, no value');
    const half = await ask('repo/acme', anonymous);
    assert.deepEqual(half.kind === 'fill_in' && half.values, ['acme', null], 'some values but not all: the fill-in page');
    const halfByName = await ask('repo?repo=links', anonymous);
    assert.deepEqual(halfByName.kind === 'fill_in' && halfByName.values, [null, 'links'], 'a value by name counts as some');
    const all = await ask('repo/acme/links', anonymous);
    assert.equal(all.kind === 'redirect' && all.location, 'https://git.test/acme/links');

    // Forwarding applies to the default as to any destination: the query is passed on.
    await createLink(
      store,
      { slug: 'search', url: 'https://search.test/q/$term', defaultUrl: 'https://search.test/?src=go', forwardPathAndQuery: true },
      owner.id,
    );
    const forwarded = await ask('search?lang=en', anonymous);
    assert.equal(forwarded.kind === 'redirect' && forwarded.location, 'https://search.test/?src=go&lang=en');
    const filledForwarded = await ask('search/cats/more?lang=en', anonymous);
    assert.equal(filledForwarded.kind === 'redirect' && filledForwarded.location, 'https://search.test/q/cats/more?lang=en');
  });

  test('`name+` finds the link by slug or alias and leaves the access decision to the link page', async () => {
    const { store } = ctx();
    const vault = (await store.links.getBySlug('vault'))!;
    assert.deepEqual(await ask('vault+', { kind: 'anonymous' }), { kind: 'details', slug: 'vault', linkId: vault.id });
    assert.deepEqual(await ask('Safe+', { kind: 'anonymous' }), { kind: 'details', slug: 'safe', linkId: vault.id });
    assert.deepEqual(await ask('nothing+', { kind: 'anonymous' }), { kind: 'details', slug: 'nothing', linkId: null });
  });

  test('names of several segments: the longest the path starts with wins, as typed in any case', async () => {
    const { store } = ctx();
    const blog = await createLink(store, { slug: 'blog', url: 'https://blog.test/' }, owner.id);
    const launch = await createLink(store, { slug: 'blog/launch', url: 'https://launch.test/' }, owner.id);
    const deeper = await createLink(store, { slug: 'blog/launch/day-two', url: 'https://two.test/' }, owner.id);
    const anonymous: ViewerSource = { kind: 'anonymous' };
    const target = async (path: string, viewer: ViewerSource = anonymous) => {
      const r = await ask(path, viewer);
      return r.kind === 'redirect' ? [r.linkId, r.location] : r;
    };
    assert.deepEqual(await target('blog/launch'), [launch.id, 'https://launch.test/']);
    assert.deepEqual(await target('Blog/Launch'), [launch.id, 'https://launch.test/'], 'case-folded');
    assert.deepEqual(await target('blog/launch/x'), [launch.id, 'https://launch.test/'], 'a longer path: its rest dropped');
    assert.deepEqual(await target('blog/launch/'), [launch.id, 'https://launch.test/']);
    assert.deepEqual(await target('blog/launch/day-two'), [deeper.id, 'https://two.test/'], 'the longest name wins');
    assert.deepEqual(await target('blog/launch/day-two/more'), [deeper.id, 'https://two.test/']);
    assert.deepEqual(await target('blog'), [blog.id, 'https://blog.test/'], 'the one-segment name stays itself');
    assert.deepEqual(await target('blog/other'), [blog.id, 'https://blog.test/'], 'no longer name: the first segment as a prefix');
    assert.deepEqual(await target('blog/launch%2Fx'), [blog.id, 'https://blog.test/'], 'an escaped slash is no separator');
    // Asked at once, as a busy server is: PostgreSQL answers the round's lookups in one batched query.
    assert.deepEqual(await Promise.all(['blog/launch', 'blog/launch/day-two/x', 'blog/x', 'nowhere/x'].map((p) => target(p))), [
      [launch.id, 'https://launch.test/'],
      [deeper.id, 'https://two.test/'],
      [blog.id, 'https://blog.test/'],
      { kind: 'not_found', slug: 'nowhere/x', offerCreate: true },
    ]);
    const signedIn = await ask('blog/launch', session('Owner'));
    assert.equal(signedIn.kind === 'redirect' && signedIn.userId, owner.id, 'the click names the signed-in user');
    // golink's forgiveness and normalisation never reach a name of several segments.
    assert.equal((await ask('bloglaunch', anonymous)).kind, 'not_found');
    assert.equal((await ask('blog-launch', anonymous)).kind, 'not_found');
    assert.deepEqual(await ask('nowhere/at-all', session('Owner')), { kind: 'not_found', slug: 'nowhere/at-all', offerCreate: true });
    assert.deepEqual(await ask('nowhere/at_all', session('Owner')), { kind: 'not_found', slug: 'nowhere', offerCreate: true });
    assert.deepEqual(
      await ask('nowhere/At-All', session('Owner')),
      { kind: 'not_found', slug: 'nowhere', offerCreate: true },
      'the whole path only when it is a name as typed',
    );
  });

  test('names of several segments pass their rest to a template and to forwarding; aliases, gates and `+` alike', async () => {
    const { store } = ctx();
    const tix = await createLink(store, { slug: 'eng/tix', url: 'https://jira.test/browse/$ticket', aliases: ['eng/tickets'] }, owner.id);
    await createLink(store, { slug: 'eng/docs', url: 'https://docs.test/eng', forwardPathAndQuery: true }, owner.id);
    const locker = await createLink(store, { slug: 'team/locker', url: 'https://locker.test/', visibility: 'secure' }, owner.id);
    await createLink(store, { slug: 'wiki/home', url: 'https://not-the-keyword.test/' }, owner.id);
    const anonymous: ViewerSource = { kind: 'anonymous' };
    const location = async (path: string, viewer: ViewerSource = anonymous, host?: string) => {
      const r = await ask(path, viewer, host);
      return r.kind === 'redirect' ? r.location : r.kind;
    };
    assert.equal(await location('eng/tix/ABC-1'), 'https://jira.test/browse/ABC-1', 'the rest fills the template');
    assert.equal(await location('eng/tickets/ABC-2'), 'https://jira.test/browse/ABC-2', 'through an alias with a slash');
    assert.equal(await location('ENG/Tickets/ABC-3'), 'https://jira.test/browse/ABC-3');
    const bare = await ask('eng/tix', anonymous);
    assert.deepEqual(bare.kind === 'fill_in' && [bare.slug, bare.link.id], ['eng/tix', tix.id]);
    assert.equal(await location('eng/tix?ticket=X-9'), 'https://jira.test/browse/X-9');
    assert.equal(await location('eng/docs/a/b?x=1'), 'https://docs.test/eng/a/b?x=1', 'the rest forwarded');
    assert.equal(await location('team/locker'), 'login');
    assert.equal(await location('team/locker', session('Stranger')), 'forbidden');
    assert.equal(await location('team/locker/x', session('Owner')), 'https://locker.test/');
    // Keywords come first, by path and by host.
    assert.equal(await location('wiki/home'), 'https://wiki.test/home');
    assert.equal(await location('eng/tix/ABC-1', anonymous, 'wiki'), 'https://wiki.test/eng/tix/ABC-1');
    // `+` asks for the page of the whole name, slug or alias.
    assert.deepEqual(await ask('eng/tix+', anonymous), { kind: 'details', slug: 'eng/tix', linkId: tix.id });
    assert.deepEqual(await ask('Eng/Tickets+', anonymous), { kind: 'details', slug: 'eng/tickets', linkId: tix.id });
    assert.deepEqual(await ask('team/locker+', anonymous), { kind: 'details', slug: 'team/locker', linkId: locker.id });
    assert.equal(await location('eng/tix/ABC-1+'), 'https://jira.test/browse/ABC-1+', 'a longer path: `+` is part of the value');
  });

  test('a hit on a slug costs exactly the lookups it did before aliases existed', async () => {
    const { store } = ctx();
    const counted = countingStore(store);
    const countingResolver = new Resolver(counted.store);
    const lookups = async (path: string, viewer: ViewerSource, host = 'go.example.test') => {
      counted.calls.length = 0;
      const q = path.indexOf('?');
      await countingResolver.resolve({ path: q === -1 ? path : path.slice(0, q), host, viewer, query: q === -1 ? '' : path.slice(q + 1) });
      return [...counted.calls];
    };
    const anonymous: ViewerSource = { kind: 'anonymous' };
    assert.deepEqual(await lookups('plain', anonymous), ['links.lookupForResolve']);
    assert.deepEqual(await lookups('plain', anonymous, 'go'), ['links.lookupKeywordAndSlug'], 'a keyword-shaped host: one query for both');
    assert.deepEqual(await lookups('plain', session('Owner')), ['sessions.visit'], 'signed in: the session is read with the slug');
    assert.deepEqual(await lookups('plain', session('Owner'), 'go'), ['sessions.visit'], 'and with the host keyword');
    // A path of several segments is asked whether it starts with a keyword in the same query as every name it
    // could open, its first segment included (docs/links.md#resolution): a prefix costs one query.
    const prefixed = ['links.lookupKeywordAndLongest'];
    assert.deepEqual(await lookups('jira/ABC-1', anonymous), prefixed, 'a template by prefix');
    assert.deepEqual(await lookups('docs/a/b?c=d', anonymous), prefixed, 'a forwarding link');
    assert.deepEqual(await lookups('docs/a_b', anonymous), ['links.lookupKeywordAndSlug'], 'no name can hold `a_b`: as before');
    assert.deepEqual(
      await lookups('jira/ABC-1', anonymous, 'go'),
      ['links.lookupKeywordAndLongest', 'keywords.templateFor'],
      'a prefix behind a keyword host',
    );
    assert.deepEqual(await lookups('Jira', anonymous, 'go'), ['links.lookupKeywordAndSlug'], 'case-folded like the slug lookup');
    assert.deepEqual(await lookups('vault', session('Owner')), ['sessions.visit'], "a secure link's facts come in the same query");
    assert.deepEqual(await lookups('jira/ABC-1', session('Owner')), ['links.lookupKeywordAndLongest', 'sessions.viewer']);
    // No keyword-shaped first segment: the longest name on its own, the prefix among the names.
    await createLink(store, { slug: '2fa', url: 'https://2fa.test/' }, owner.id);
    assert.deepEqual(await lookups('2fa/x', anonymous), ['links.lookupLongestForResolve']);
    // A name of several segments found: as cheap as a one-segment name, the visitor read afterwards.
    await createLink(store, { slug: 'costs/nested', url: 'https://nested.test/' }, owner.id);
    await createLink(store, { slug: 'costs/locked', url: 'https://locked.test/', visibility: 'secure' }, owner.id);
    assert.deepEqual(await lookups('costs/nested', anonymous), ['links.lookupKeywordAndLongest']);
    assert.deepEqual(await lookups('costs/nested/a/b/c/d/e/f/g', anonymous), ['links.lookupKeywordAndLongest'], 'every prefix at once');
    assert.deepEqual(await lookups('costs/nested', anonymous, 'go'), ['links.lookupKeywordAndLongest', 'keywords.templateFor']);
    assert.deepEqual(await lookups('costs/nested', session('Owner')), ['links.lookupKeywordAndLongest', 'sessions.viewer']);
    assert.deepEqual(await lookups('costs/locked', session('Owner')), ['links.lookupKeywordAndLongest', 'sessions.viewerOfLink']);
    assert.deepEqual(await lookups('costs/nested', session('Owner'), 'go'), [
      'links.lookupKeywordAndLongest',
      'keywords.templateFor',
      'sessions.viewer',
    ]);
    // Aliases cost one more lookup, only once the slug has missed.
    assert.deepEqual(await lookups('handbook', anonymous), ['links.lookupForResolve', 'links.lookupAliasForResolve']);
  });

  test('a session whose user was deleted is handed back to the web layer, secure link or not', async () => {
    const { store, db, clock } = ctx();
    const gone = await store.users.create({ email: 'gone@resolver.test', displayName: 'Gone' });
    const token = 'd'.repeat(43);
    await store.sessions.create(token, { userId: gone.id, role: gone.role, createdAt: clock.now }, clock.now + 60_000);
    await db.kysely.deleteFrom('users').where('id', '=', gone.id).execute();
    assert.deepEqual(await ask('vault', { kind: 'session', token }), { kind: 'handoff' });
    assert.deepEqual(await ask('plain', { kind: 'session', token }), { kind: 'handoff' });
  });
});

/** The resolver's store with every call of its lookups recorded, to hold the hot path to its count. */
function countingStore(store: Store): {
  store: Pick<Store, 'links' | 'keywords' | 'sessions' | 'users' | 'access' | 'now'>;
  calls: string[];
} {
  const calls: string[] = [];
  const wrap = <T extends object>(name: string, target: T): T =>
    new Proxy(target, {
      get(t, p, r) {
        const v = Reflect.get(t, p, r) as unknown;
        if (typeof v !== 'function') return v;
        return (...args: unknown[]) => {
          calls.push(`${name}.${String(p)}`);
          return (v as (...a: unknown[]) => unknown).apply(t, args);
        };
      },
    });
  return {
    calls,
    store: {
      links: wrap('links', store.links),
      keywords: wrap('keywords', store.keywords),
      sessions: wrap('sessions', store.sessions),
      users: wrap('users', store.users),
      access: wrap('access', store.access),
      now: store.now,
    },
  };
}
