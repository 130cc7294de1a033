import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { NEVER_CLICKED_MIN_AGE_MS, STALE_WINDOW_DAYS, STALE_WINDOW_MS, stalenessHint } from '../../src/store/staleness.js';
import type { Store } from '../../src/store/index.js';
import { viewerOf, type User } from '../../src/store/types.js';
import { describeEachDatabase, type DbContext } from '../helpers/databases.js';
import { addOwner, addShare, createLink, setLifecycle } from '../helpers/links.js';
import { ConfigError } from '../../src/config/sources.js';

/** Staleness views (docs/lifecycle.md#staleness) and the retention floor that keeps them truthful (docs/lifecycle.md#retention-floor). */

const DAY = 86_400_000;
let seq = 0;
const unique = (p: string) => `${p}-${++seq}`;

describeEachDatabase('staleness views', (ctx) => {
  let alice: User;
  let bob: User;
  let admin: User;
  const slugs: Record<string, string> = {};

  /** Creates a link as if it were made `ageMs` ago, with clicks at the given ages. */
  async function aged(
    c: DbContext,
    name: string,
    owner: User,
    ageMs: number,
    clickAgesMs: number[] = [],
    opts: { expiresInMs?: number } = {},
  ) {
    const t0 = c.clock.now;
    c.clock.now = t0 - ageMs;
    try {
      const slug = `${name}-${c.driver}`;
      slugs[name] = slug;
      const l = await createLink(
        c.store,
        { slug, url: 'https://e.test/', expiresAt: opts.expiresInMs === undefined ? undefined : c.clock.now + opts.expiresInMs },
        owner.id,
      );
      if (clickAgesMs.length > 0) {
        await c.store.clicks.insertBatch(
          clickAgesMs.map((a) => ({
            id: randomUUID(),
            link_id: l.id,
            user_id: null,
            ip_hash: 'h',
            user_agent: null,
            referrer: null,
            clicked_at: t0 - a,
          })),
        );
      }
      return l;
    } finally {
      c.clock.now = t0;
    }
  }

  const list = async (store: Store, filter: 'stale' | 'never-clicked', u: User | null) =>
    (await store.staleness.list(filter, u ? viewerOf(u) : null, { limit: 1_000 })).links.map((l) => l.slug);
  const has = (rows: string[], name: string) => rows.includes(slugs[name]!);

  test('fixtures', async () => {
    const c = ctx();
    alice = await c.store.users.create({ email: `${unique('alice')}@example.com`, displayName: 'Alice' });
    bob = await c.store.users.create({ email: `${unique('bob')}@example.com`, displayName: 'Bob' });
    admin = await c.store.users.create({ email: `${unique('root')}@example.com`, displayName: 'Root', role: 'admin' });
    await aged(c, 'old-quiet', alice, 180 * DAY, [120 * DAY]);
    await aged(c, 'old-busy', alice, 180 * DAY, [1 * DAY]);
    await aged(c, 'three-weeks', alice, 21 * DAY);
    await aged(c, 'two-days', alice, 2 * DAY);
    const arch = await aged(c, 'archived-old', alice, 180 * DAY);
    await setLifecycle(c.store, arch.id, { archived: true });
    await aged(c, 'expired-old', alice, 180 * DAY, [], { expiresInMs: 10 * DAY });
    await aged(c, 'bobs-public', bob, 180 * DAY);
    const shared = await aged(c, 'shared-with-alice', bob, 180 * DAY);
    await addShare(c.store, shared.id, alice.id, bob.id);
    const co = await aged(c, 'co-owned', bob, 180 * DAY);
    await addOwner(c.store, co.id, alice.id);
    // Boundaries: exactly 90 days old; a click exactly at the window edge does not count, one ms inside does.
    await aged(c, 'edge-created', alice, STALE_WINDOW_MS);
    await aged(c, 'edge-young', alice, STALE_WINDOW_MS - 1);
    await aged(c, 'edge-click-out', alice, 200 * DAY, [STALE_WINDOW_MS]);
    await aged(c, 'edge-click-in', alice, 200 * DAY, [STALE_WINDOW_MS - 1]);
    await aged(c, 'seven-days', alice, NEVER_CLICKED_MIN_AGE_MS);
  });

  test('stale: created over 90 days ago and no click in the last 90 days', async () => {
    const rows = await list(ctx().store, 'stale', alice);
    assert.ok(has(rows, 'old-quiet'), 'last clicked 4 months ago');
    assert.ok(!has(rows, 'old-busy'), 'clicked yesterday');
    assert.ok(!has(rows, 'three-weeks'));
    assert.ok(has(rows, 'edge-created'), 'created exactly 90 days ago');
    assert.ok(!has(rows, 'edge-young'));
    assert.ok(has(rows, 'edge-click-out'), 'a click exactly 90 days ago is outside the window');
    assert.ok(!has(rows, 'edge-click-in'));
  });

  test('never clicked: created over 7 days ago and no click at all', async () => {
    const rows = await list(ctx().store, 'never-clicked', alice);
    assert.ok(has(rows, 'three-weeks'));
    assert.ok(!has(rows, 'two-days'));
    assert.ok(has(rows, 'seven-days'), 'exactly 7 days old');
    assert.ok(!has(rows, 'old-quiet'), 'clicked once, long ago');
  });

  test('archived links never appear; expired ones may', async () => {
    const { store } = ctx();
    for (const f of ['stale', 'never-clicked'] as const) {
      const rows = await list(store, f, alice);
      assert.ok(!has(rows, 'archived-old'), f);
      assert.ok(has(rows, 'expired-old'), f);
    }
  });

  test('a non-admin sees only links they own or co-own; an admin sees all', async () => {
    const { store } = ctx();
    for (const f of ['stale', 'never-clicked'] as const) {
      const mine = await list(store, f, alice);
      assert.ok(!has(mine, 'bobs-public'), `${f}: another user's public link`);
      assert.ok(!has(mine, 'shared-with-alice'), `${f}: a link merely shared`);
      assert.ok(has(mine, 'co-owned'), `${f}: co-owned`);
      const alicesOwn = f === 'stale' ? 'old-quiet' : 'three-weeks';
      assert.ok(has(mine, alicesOwn), f);
      const bobs = await list(store, f, bob);
      assert.ok(has(bobs, 'bobs-public') && !has(bobs, alicesOwn), f);
      const all = await list(store, f, admin);
      assert.ok(has(all, 'bobs-public') && has(all, alicesOwn) && !has(all, 'archived-old'), f);
      assert.deepEqual(await list(store, f, null), [], 'anonymous: nothing');
    }
  });

  test('slug order with keyset pages', async () => {
    const { store } = ctx();
    const full = await list(store, 'stale', alice);
    assert.deepEqual(full, [...full].sort());
    const page1 = await store.staleness.list('stale', viewerOf(alice), { limit: 2 });
    assert.equal(page1.hasMore, true);
    assert.deepEqual(
      page1.links.map((l) => l.slug),
      full.slice(0, 2),
    );
    const page2 = await store.staleness.list('stale', viewerOf(alice), { limit: 2, afterSlug: page1.links[1]!.slug });
    assert.deepEqual(
      page2.links.map((l) => l.slug),
      full.slice(2, 4),
    );
    assert.ok(page1.links[0]!.owners.length > 0, 'rows carry owners like every list');
  });
});

describe('click retention floor (docs/lifecycle.md#retention-floor)', () => {
  const load = (value: string) => loadConfig({ cwd: '/nonexistent-joe-links', env: { JOE_CLICK_RETENTION: value } });

  test('1–89 days stop startup naming the variable and the 90-day staleness floor', () => {
    for (const v of ['1', '60', '89']) {
      assert.throws(
        () => load(v),
        (e: Error) => e instanceof ConfigError && /JOE_CLICK_RETENTION/.test(e.message) && /90/.test(e.message) && /stale/i.test(e.message),
        v,
      );
    }
  });

  test('negative and non-integer values stop startup too; 0, 90 and more start', () => {
    for (const v of ['-1', '90.5', 'ninety', '30d']) assert.throws(() => load(v), ConfigError, v);
    assert.equal(load('0').clickRetentionDays, null);
    assert.equal(load('90').clickRetentionDays, 90);
    assert.equal(load('365').clickRetentionDays, 365);
  });

  test('the floor is the staleness window', () => {
    assert.equal(STALE_WINDOW_DAYS, 90);
    assert.throws(() => load(String(STALE_WINDOW_DAYS - 1)), ConfigError);
    assert.doesNotThrow(() => load(String(STALE_WINDOW_DAYS)));
  });

  test('with retention on, the never-clicked hint says old clicks may have been pruned', () => {
    assert.equal(stalenessHint('never-clicked', false), 'Created over 7 days ago, never clicked');
    assert.match(stalenessHint('never-clicked', true), /pruned/);
    assert.equal(stalenessHint('stale', true), 'Created over 90 days ago, no clicks in the last 90 days');
  });
});
