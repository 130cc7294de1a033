import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LinkView, User } from '../../src/store/types.js';
import { eventually, get, sessionCookie, startTestServer, type RawResponse, type TestServer } from '../helpers/server.js';
import { createLink, setLifecycle } from '../helpers/links.js';

/**
 * Every resolver scenario of docs/lifecycle.md#resolving-expired-and-archived-links, docs/lifecycle.md#archive, docs/lifecycle.md#renewal over real HTTP: visibility
 * first, lifecycle second, 404 never 410, no click for a dead link, and no
 * lifecycle response that tells an outsider a secure slug exists.
 */

const T0 = Date.UTC(2026, 2, 1, 12, 0, 0);
const HOUR = 3_600_000;

describe('resolving expired and archived links', () => {
  const clock = { now: T0 };
  let s: TestServer;
  let alice: User;
  let bob: User;
  let carol: User;
  let admin: User;
  const cookie: Record<string, string> = {};
  const links: Record<string, LinkView> = {};

  const title = (body: string) => /<title>([^<]*)<\/title>/.exec(body)?.[1];
  const notFoundCount = async () => (await s.metrics.redirects.get()).values.find((v) => v.labels.status === 'not_found')?.value ?? 0;
  const clicks = async (slug: string) => s.store.clicks.countForLink(links[slug]!.id);

  /** Requests `path` and checks that it records no click and counts one not_found. */
  async function dead(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ r: RawResponse; body: string }> {
    const slug = path.slice(1).split('/')[0]!;
    await eventually(() => s.clickWriter.pending === 0);
    const clicksBefore = await clicks(slug);
    const nfBefore = await notFoundCount();
    const r = await get(`${s.url}${path}`, headers, method);
    const body = await r.text();
    assert.equal(r.status, 404, `${method} ${path}`);
    assert.equal(r.headers.get('location'), null, 'never a redirect');
    assert.equal(r.headers.get('cache-control'), 'private, no-store');
    assert.equal((await notFoundCount()) - nfBefore, 1, 'not_found counted once');
    await new Promise((res) => setTimeout(res, 60));
    await eventually(() => s.clickWriter.pending === 0);
    assert.equal(await clicks(slug), clicksBefore, 'no click recorded');
    return { r, body };
  }

  /** The page's own content: a signed-in layout has its own "New link" button and the viewer's name. */
  const mainOf = (body: string) => {
    const m = /<main[^>]*>([\s\S]*)<\/main>/.exec(body);
    return m ? m[1]! : body;
  };
  const expiredPage = (page: string, slug: string) => {
    const body = mainOf(page);
    assert.match(body, new RegExp(`Link expired: ${slug}<`));
    assert.match(body, /no longer redirects/);
    assert.doesNotMatch(body, /create this link/i, 'no Create call to action');
    assert.doesNotMatch(body, /\/dashboard\/links\/new/);
    assert.doesNotMatch(body, /Did you mean/);
  };
  const ownerNamed = (page: string) => {
    assert.match(mainOf(page), /<a [^>]*href="\/u\/alice"[^>]*>Alice<\/a>/, 'the primary owner, linked to the profile');
  };
  const noOwner = (page: string) => {
    const body = mainOf(page);
    assert.doesNotMatch(body, /\/u\/alice/);
    assert.doesNotMatch(body, /Alice|alice@example\.com/);
  };
  /**
   * An archived link acts gone: the standard 404, which neither names an owner nor says it was
   * archived; the slug stays taken, so no Create offer and never "nobody has made it".
   */
  const archivedPage = (page: string, slug: string) => {
    const body = mainOf(page);
    assert.match(body, new RegExp(`Link not found: ${slug}<`));
    assert.match(body, new RegExp(`/${slug} does not lead anywhere right now\\. The name is taken, so it cannot be created again\\.`));
    assert.doesNotMatch(body, /archiv/i, 'never says why');
    assert.doesNotMatch(body, /\/unarchive"/, 'no Unarchive, not even for its owner');
    assert.doesNotMatch(body, /Nobody has made/);
    assert.doesNotMatch(body, /create this link/i, 'slug reserved: no Create call to action');
    assert.doesNotMatch(body, /\/dashboard\/links\/new/);
    noOwner(page);
  };

  before(async () => {
    s = await startTestServer({ start: { now: () => clock.now } });
    const st = s.store;
    alice = await st.users.create({ email: 'alice@example.com', displayName: 'Alice' });
    bob = await st.users.create({ email: 'bob@example.com', displayName: 'Bob' });
    carol = await st.users.create({ email: 'carol@example.com', displayName: 'Carol' });
    admin = await st.users.create({ email: 'root@example.com', displayName: 'Root', role: 'admin' });
    for (const u of [alice, bob, carol, admin]) cookie[u.displayName] = await sessionCookie(st, u, 400 * 24 * HOUR);
    const soon = T0 + HOUR;
    const mk = async (
      slug: string,
      url: string,
      visibility: string,
      opts: { expires?: boolean; archived?: boolean; share?: boolean } = {},
    ) => {
      const l = await createLink(st, { slug, url, visibility, expiresAt: opts.expires ? soon : null }, alice.id, {
        shareWith: opts.share ? [bob.id] : [],
      });
      if (opts.archived) await setLifecycle(st, l.id, { archived: true });
      links[slug] = l;
    };
    await mk('pub-exp', 'https://pub.test', 'public', { expires: true });
    await mk('priv-exp', 'https://priv.test', 'private', { expires: true, share: true });
    await mk('sec-exp', 'https://sec.test', 'secure', { expires: true, share: true });
    await mk('sec-live', 'https://sec-live.test', 'secure', { share: true });
    await mk('pub-arch', 'https://arch.test', 'public');
    await mk('sec-arch', 'https://sec-arch.test', 'secure', { archived: true, share: true });
    await mk('both', 'https://both.test', 'public', { expires: true, archived: true });
    await mk('pjx', 'https://jira.test/browse', 'public', { expires: true });
    await mk('pja', 'https://jira.test/browse', 'public', { archived: true });
    await mk('var-exp', 'https://x.test/browse/$ticket', 'public', { expires: true });
    await mk('unarch-exp', 'https://ue.test', 'public', { expires: true, archived: true });
    await mk('unarch-live', 'https://ul.test', 'public', { archived: true });
    await mk('renew-me', 'https://renew.test', 'public', { expires: true });
    await mk('renew-arch', 'https://renew-arch.test', 'public', { expires: true, archived: true });
    await mk('edge', 'https://edge.test', 'public', { expires: true });
    // Clicks recorded while pub-arch was live stay after archiving.
    assert.equal((await get(`${s.url}/pub-arch`)).status, 302);
    await eventually(async () => (await clicks('pub-arch')) === 1);
    await setLifecycle(st, links['pub-arch']!.id, { archived: true });
    // From here on every expiring link is past its expiry.
    clock.now = T0 + 2 * HOUR;
  });

  after(async () => {
    await s.stop();
  });

  test('expiry takes effect at exactly expires_at, with no background job', async () => {
    const saved = clock.now;
    try {
      clock.now = T0 + HOUR - 1;
      const live = await get(`${s.url}/edge`);
      assert.equal(live.status, 302);
      assert.equal(live.headers.get('location'), 'https://edge.test');
      clock.now = T0 + HOUR;
      const { body } = await dead('/edge');
      expiredPage(body, 'edge');
    } finally {
      clock.now = saved;
    }
  });

  test('expired public: 404 expired page naming slug and owner, for anyone; title identical to the generic 404', async () => {
    const generic = await (await get(`${s.url}/no-such-slug-anywhere`)).text();
    for (const who of [null, 'Carol', 'Bob', 'Alice', 'Root']) {
      const { body } = await dead('/pub-exp', who ? { Cookie: cookie[who]! } : {});
      expiredPage(body, 'pub-exp');
      ownerNamed(body);
      assert.equal(title(body), title(generic), 'same <title> as the generic 404');
    }
  });

  test('expired private: the owner is named only for CanView holders', async () => {
    noOwner((await dead('/priv-exp')).body);
    expiredPage((await dead('/priv-exp')).body, 'priv-exp');
    const stranger = (await dead('/priv-exp', { Cookie: cookie.Carol! })).body;
    expiredPage(stranger, 'priv-exp');
    assert.doesNotMatch(stranger, /\/u\/alice|>Alice</);
    for (const who of ['Bob', 'Alice', 'Root']) ownerNamed((await dead('/priv-exp', { Cookie: cookie[who]! })).body);
  });

  test('expired secure, anonymous: the login redirect, byte-identical to an active secure link, never the expired page', async () => {
    const r = await get(`${s.url}/sec-exp`);
    assert.equal(r.status, 302);
    assert.equal(r.headers.get('location'), '/auth/login?return_url=%2Fsec-exp');
    const body = await r.text();
    assert.doesNotMatch(body, /expired/i);
    const live = await get(`${s.url}/sec-live`);
    assert.equal(live.status, 302);
    assert.equal(live.headers.get('location'), '/auth/login?return_url=%2Fsec-live');
    assert.equal(body, await live.text());
    assert.equal(r.headers.get('cache-control'), live.headers.get('cache-control'));
    // The same on a prefix path, with the full request URI as the return URL.
    const deep = await get(`${s.url}/sec-exp/x?y=1`);
    assert.equal(deep.status, 302);
    assert.equal(deep.headers.get('location'), '/auth/login?return_url=%2Fsec-exp%2Fx%3Fy%3D1');
  });

  test('expired secure, signed in without caps: 403 identical to the active-link 403', async () => {
    const r = await get(`${s.url}/sec-exp`, { Cookie: cookie.Carol! });
    const live = await get(`${s.url}/sec-live`, { Cookie: cookie.Carol! });
    assert.equal(r.status, 403);
    assert.equal(live.status, 403);
    assert.equal(await r.text(), await live.text());
  });

  test('expired secure, owner, share recipient or admin: the expired page, owner named', async () => {
    for (const who of ['Alice', 'Bob', 'Root']) {
      const { body } = await dead('/sec-exp', { Cookie: cookie[who]! });
      expiredPage(body, 'sec-exp');
      ownerNamed(body);
    }
  });

  test('archived public: the standard 404 for anyone, its owner included, naming no owner; its clicks survive', async () => {
    const generic = await (await get(`${s.url}/no-such-slug-anywhere`)).text();
    for (const who of [null, 'Carol', 'Alice', 'Root']) {
      const { body } = await dead('/pub-arch', who ? { Cookie: cookie[who]! } : {});
      archivedPage(body, 'pub-arch');
      assert.equal(title(body), title(generic), 'same <title> as the generic 404');
      assert.doesNotMatch(body, /href="\/pub-arch"/, 'did-you-mean never offers the requested slug');
    }
    assert.equal(await clicks('pub-arch'), 1, 'archiving kept the click rows');
  });

  test('archived secure: anonymous → login redirect, stranger → 403, exactly as when active; capable → the standard 404', async () => {
    const anon = await get(`${s.url}/sec-arch`);
    assert.equal(anon.status, 302);
    assert.equal(anon.headers.get('location'), '/auth/login?return_url=%2Fsec-arch');
    assert.equal(await anon.text(), await (await get(`${s.url}/sec-live`)).text());
    const stranger = await get(`${s.url}/sec-arch`, { Cookie: cookie.Carol! });
    assert.equal(stranger.status, 403);
    assert.equal(await stranger.text(), await (await get(`${s.url}/sec-live`, { Cookie: cookie.Carol! })).text());
    archivedPage((await dead('/sec-arch', { Cookie: cookie.Bob! })).body, 'sec-arch');
  });

  test('archived and expired: archived wins', async () => {
    const { body } = await dead('/both', { Cookie: cookie.Alice! });
    archivedPage(body, 'both');
    const link = (await s.store.links.get(links.both!.id))!;
    const { lifecycleState } = await import('../../src/domain/lifecycle.js');
    assert.equal(lifecycleState(link, clock.now), 'archived');
  });

  test('prefix resolution commits to the first visibility-passing match even when it is dead', async () => {
    const exp = await dead('/pjx/PROJ-1');
    expiredPage(exp.body, 'pjx');
    assert.doesNotMatch(exp.body, /PROJ-1/, 'names the matched slug, not the full path');
    const arch = await dead('/pja/PROJ-1');
    archivedPage(arch.body, 'pja');
    assert.doesNotMatch(arch.body, /PROJ-1/);
    const variable = await dead('/var-exp/ABC-1');
    expiredPage(variable.body, 'var-exp');
  });

  test('HEAD and HX-Request: 404, no click; HTMX gets the same content as a fragment', async () => {
    const head = await dead('/pub-exp', {}, 'HEAD');
    assert.equal(head.body, '');
    const hx = await dead('/pub-exp', { 'HX-Request': 'true' });
    assert.doesNotMatch(hx.body, /<html/);
    expiredPage(hx.body, 'pub-exp');
    ownerNamed(hx.body);
    const hxArch = await dead('/pub-arch', { 'HX-Request': 'true' });
    assert.doesNotMatch(hxArch.body, /<html/);
    archivedPage(hxArch.body, 'pub-arch');
    await dead('/pub-arch', {}, 'HEAD');
  });

  test('did-you-mean never offers an expired or archived slug, even to its owner', async () => {
    for (const typo of ['/pub-exq', '/pub-arcj', '/renew-mf']) {
      const r = await get(`${s.url}${typo}`, { Cookie: cookie.Alice! });
      assert.equal(r.status, 404);
      const body = await r.text();
      assert.doesNotMatch(body, /href="\/(pub-exp|pub-arch|renew-me)"/, typo);
      assert.match(body, new RegExp(`href="/dashboard/links/new\\?slug=${typo.slice(1)}"`), 'a free slug still gets the Create offer');
    }
  });

  test('unarchiving: a live link redirects again; an expired one resolves as expired', async () => {
    await setLifecycle(s.store, links['unarch-live']!.id, { archived: false });
    const live = await get(`${s.url}/unarch-live`);
    assert.equal(live.status, 302);
    assert.equal(live.headers.get('location'), 'https://ul.test');
    await setLifecycle(s.store, links['unarch-exp']!.id, { archived: false });
    const { body } = await dead('/unarch-exp');
    expiredPage(body, 'unarch-exp');
    ownerNamed(body);
  });

  test('renewal: an expired link resolves again; an archived one stays dead', async () => {
    await setLifecycle(s.store, links['renew-me']!.id, { renew: true });
    const r = await get(`${s.url}/renew-me`);
    assert.equal(r.status, 302);
    assert.equal(r.headers.get('location'), 'https://renew.test');
    await setLifecycle(s.store, links['renew-arch']!.id, { renew: true });
    const after = (await s.store.links.get(links['renew-arch']!.id))!;
    assert.equal(after.expiresAt, null);
    assert.notEqual(after.archivedAt, null);
    archivedPage((await dead('/renew-arch')).body, 'renew-arch');
  });

  test('a dead slug stays reserved: creating it again fails with the slug-taken error', async () => {
    for (const slug of ['pub-exp', 'pub-arch']) {
      await assert.rejects(
        createLink(s.store, { slug, url: 'https://other.test' }, carol.id),
        (e: Error & { code?: string }) => e.code === 'SLUG_CONFLICT',
      );
    }
  });
});
