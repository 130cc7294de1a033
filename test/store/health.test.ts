import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Store } from '../../src/store/index.js';
import type { User } from '../../src/store/types.js';
import { viewerOf } from '../../src/store/types.js';
import { describeEachDatabase, type DbContext } from '../helpers/databases.js';
import { addOwner, createLink, setLifecycle } from '../helpers/links.js';

/** `link_health` and the lifecycle toggles on every database (docs/lifecycle.md#health-status, docs/lifecycle.md#archive, docs/lifecycle.md#renewal, docs/lifecycle.md#health-checks, docs/lifecycle.md#badges-and-the-admin-report). */

const H = 3_600_000;
const DAY = 24 * H;
let seq = 0;
const unique = (p: string) => `${p}-${++seq}`;

async function user(store: Store, displayName?: string, role?: 'admin'): Promise<User> {
  return store.users.create({ email: `${unique('u')}@example.com`, displayName, role });
}

async function link(ctx: DbContext, owner: User, url = 'https://example.com/', extra: { expiresAt?: number; visibility?: string } = {}) {
  return createLink(ctx.store, { slug: unique('h'), url, ...extra }, owner.id);
}

async function dueIds(ctx: DbContext): Promise<Set<string>> {
  return new Set((await ctx.store.health.dueLinks(100_000)).map((l) => l.id));
}

describeEachDatabase('health store', (ctx) => {
  test('eligibility pages past any number of variable links', async () => {
    const { store } = ctx();
    const owner = await user(store);
    for (let i = 0; i < 230; i++) await link(ctx(), owner, `https://x.test/$ticket/${i}`);
    const plain = await link(ctx(), owner, 'https://plain.test/');
    const due = await store.health.dueLinks(5);
    assert.deepEqual(
      due.map((d) => d.id),
      [plain.id],
      'the one checkable link is found whatever its id sorts after',
    );
  });

  test('due: never checked or next_check_at reached; never archived, expired, opted out or variable', async () => {
    const c = ctx();
    const { store, clock } = c;
    const owner = await user(store);
    const fresh = await link(c, owner);
    const optedOut = await link(c, owner);
    await setLifecycle(store, optedOut.id, { healthChecksDisabled: true });
    const archived = await link(c, owner);
    await setLifecycle(store, archived.id, { archived: true });
    const expiring = await link(c, owner, 'https://e.test/', { expiresAt: clock.now + 60_000 });
    const variable = await link(c, owner, 'https://x.test/$q');
    const dollar = await link(c, owner, 'https://x.test/price$9');
    const checked = await link(c, owner);
    await store.health.record(checked.id, { kind: 'success', status: 200 }, DAY);

    let due = await dueIds(c);
    assert.ok(due.has(fresh.id));
    assert.ok(due.has(expiring.id), 'not yet expired');
    assert.ok(due.has(dollar.id), 'a `$` that is not a placeholder does not make a variable link');
    for (const l of [optedOut, archived, variable, checked]) assert.ok(!due.has(l.id), l.slug);

    const t0 = clock.now;
    try {
      clock.now = t0 + 60_000;
      due = await dueIds(c);
      assert.ok(!due.has(expiring.id), 'expired at exactly expires_at');
      clock.now = t0 + DAY - 1;
      assert.ok(!(await dueIds(c)).has(checked.id));
      clock.now = t0 + DAY;
      assert.ok((await dueIds(c)).has(checked.id), 'due again at exactly next_check_at');
    } finally {
      clock.now = t0;
    }
  });

  test('outcomes write the docs/lifecycle.md#outcomes-and-backoff columns; "broken" after three failures; 429 neither counts nor resets', async () => {
    const c = ctx();
    const { store, clock } = c;
    const owner = await user(store);
    const l = await link(c, owner);
    const t = clock.now;
    await store.health.record(l.id, { kind: 'failure', status: 503, error: null }, DAY, t);
    assert.deepEqual(await store.health.row(l.id), {
      linkId: l.id,
      lastCheckedAt: t,
      lastStatus: 503,
      lastError: null,
      consecutiveFailures: 1,
      nextCheckAt: t + DAY,
      skipped: false,
    });
    await store.health.record(l.id, { kind: 'failure', status: null, error: 'connection refused' }, DAY, t + DAY);
    let row = await store.health.row(l.id);
    assert.equal(row!.consecutiveFailures, 2);
    assert.equal(row!.nextCheckAt, t + DAY + 2 * DAY);
    assert.equal(row!.lastError, 'connection refused');
    assert.equal(row!.lastStatus, null);
    assert.equal((await store.health.forLink(l)).status, 'ok', 'two failures are not broken');

    await store.health.record(l.id, { kind: 'rate-limited', retryAfterMs: 2 * DAY }, DAY, t + 3 * DAY);
    row = await store.health.row(l.id);
    assert.equal(row!.consecutiveFailures, 2, 'unchanged by 429');
    assert.equal(row!.lastStatus, 429);
    assert.equal(row!.lastError, null);
    assert.equal(row!.nextCheckAt, t + 5 * DAY);

    await store.health.record(l.id, { kind: 'failure', status: 404, error: null }, DAY, t + 5 * DAY);
    row = await store.health.row(l.id);
    assert.equal(row!.consecutiveFailures, 3);
    assert.equal(row!.nextCheckAt, t + 5 * DAY + 4 * DAY);
    const clockWas = clock.now;
    clock.now = t + 5 * DAY;
    try {
      assert.deepEqual(await store.health.forLink(l), { status: 'broken', lastCheckedAt: t + 5 * DAY, lastStatus: 404 });
    } finally {
      clock.now = clockWas;
    }

    await store.health.record(
      l.id,
      { kind: 'skipped', reason: 'destination is not checkable under current server policy' },
      DAY,
      t + 9 * DAY,
    );
    row = await store.health.row(l.id);
    assert.equal(row!.skipped, true);
    assert.equal(row!.consecutiveFailures, 3, 'a skip does not count');
    assert.equal(row!.lastStatus, null);
    assert.equal((await store.health.forLink(l)).status, 'skipped');

    await store.health.record(l.id, { kind: 'success', status: 204 }, DAY, t + 10 * DAY);
    row = await store.health.row(l.id);
    assert.equal(row!.skipped, false, 'any completed probe clears skipped');
    assert.equal(row!.consecutiveFailures, 0);
    assert.equal(row!.lastError, null);
    assert.equal(row!.nextCheckAt, t + 11 * DAY);
  });

  test('instants far past 2038 are stored exactly', async () => {
    const c = ctx();
    const owner = await user(c.store);
    const l = await link(c, owner);
    const t = Date.UTC(2199, 11, 31, 23, 59, 59, 999);
    await c.store.health.record(l.id, { kind: 'failure', status: 500, error: null }, 7 * DAY, t);
    const row = await c.store.health.row(l.id);
    assert.equal(row!.lastCheckedAt, t);
    assert.equal(row!.nextCheckAt, t + 7 * DAY);
  });

  test('the checker never writes links; deleting a link removes its health row; a deleted link records nothing', async () => {
    const c = ctx();
    const { store } = c;
    const owner = await user(store);
    const l = await link(c, owner);
    const before = (await store.links.get(l.id))!;
    await store.health.record(l.id, { kind: 'failure', status: 500, error: null }, DAY, c.clock.now + 5_000);
    assert.deepEqual(await store.links.get(l.id), before, 'no updated_at churn');
    assert.ok(await store.links.delete(l.id));
    assert.equal(await store.health.row(l.id), null, 'cascaded');
    assert.equal(await store.health.record(l.id, { kind: 'success', status: 200 }, DAY), null);
    assert.equal(await store.health.row(l.id), null);
  });

  test('surfacing rule: opted out, archived or expired → unchecked with nulls despite a broken row', async () => {
    const c = ctx();
    const { store, clock } = c;
    const owner = await user(store);
    const mk = async () => {
      const l = await link(c, owner, 'https://e.test/', { expiresAt: clock.now + 60_000 });
      for (let i = 0; i < 3; i++) await store.health.record(l.id, { kind: 'failure', status: 500, error: null }, DAY);
      return l;
    };
    const broken = await mk();
    const optedOut = await mk();
    const archived = await mk();
    const never = await link(c, owner);
    await setLifecycle(store, optedOut.id, { healthChecksDisabled: true });
    await setLifecycle(store, archived.id, { archived: true });
    const load = async () => {
      const links = await Promise.all([broken, optedOut, archived, never].map(async (l) => (await store.links.get(l.id))!));
      return store.health.forLinks(links);
    };
    const unchecked = { status: 'unchecked', lastCheckedAt: null, lastStatus: null };
    let h = await load();
    assert.equal(h.get(broken.id)!.status, 'broken');
    assert.equal(h.get(broken.id)!.lastStatus, 500);
    assert.deepEqual(h.get(optedOut.id), unchecked);
    assert.deepEqual(h.get(archived.id), unchecked);
    assert.deepEqual(h.get(never.id), unchecked, 'no row = never checked');
    const t0 = clock.now;
    try {
      clock.now = t0 + 60_000;
      h = await load();
      assert.deepEqual(h.get(broken.id), unchecked, 'expired');
    } finally {
      clock.now = t0;
    }
    // Renewal brings the frozen row back into view: a renewed broken link shows "broken" again.
    await setLifecycle(store, optedOut.id, { healthChecksDisabled: false });
    assert.equal((await store.health.forLink((await store.links.get(optedOut.id))!)).status, 'broken');
  });

  test('visibleTo: only CanView holders get health, and they all get the same', async () => {
    const c = ctx();
    const { store } = c;
    const owner = await user(store);
    const recipient = await user(store);
    const stranger = await user(store);
    const admin = await user(store, 'Admin', 'admin');
    const l = await createLink(store, { slug: unique('v'), url: 'https://e.test/' }, owner.id, { shareWith: [recipient.id] });
    for (let i = 0; i < 3; i++) await store.health.record(l.id, { kind: 'failure', status: 502, error: null }, DAY);
    const other = await link(c, stranger);
    const rows = [l, other];
    const ownerView = await store.health.visibleTo(rows, viewerOf(owner));
    assert.deepEqual([...ownerView.keys()], [l.id]);
    assert.equal(ownerView.get(l.id)!.status, 'broken');
    assert.deepEqual((await store.health.visibleTo(rows, viewerOf(recipient))).get(l.id), ownerView.get(l.id));
    assert.equal((await store.health.visibleTo(rows, viewerOf(stranger))).has(l.id), false);
    assert.equal((await store.health.visibleTo(rows, null)).size, 0, 'anonymous callers never get health');
    const adminView = await store.health.visibleTo(rows, viewerOf(admin));
    assert.equal(adminView.size, 2);
  });

  test('admin report: broken, surfaced links only, most failures first then slug, with owners', async () => {
    const c = ctx();
    const { store, clock } = c;
    const before = new Set((await store.health.brokenReport()).map((r) => r.id));
    const alice = await user(store, 'Alice');
    const bob = await user(store, 'Bob');
    const fail = async (id: string, n: number, error: string | null = null) => {
      for (let i = 0; i < n; i++) await store.health.record(id, { kind: 'failure', status: error ? null : 503, error }, DAY);
    };
    const mk = (slug: string, url = 'https://e.test/', owner = alice, expiresAt?: number) =>
      createLink(store, { slug, url, expiresAt }, owner.id);
    const p = unique('rep');
    const b4 = await mk(`${p}-b`);
    const a3 = await mk(`${p}-a`, 'https://a.test/', bob);
    const z4 = await mk(`${p}-z`);
    await addOwner(store, a3.id, alice.id);
    await fail(b4.id, 4, 'connection refused');
    await fail(a3.id, 3);
    await fail(z4.id, 4);
    const healthy = await mk(`${p}-ok`);
    await fail(healthy.id, 2);
    const optedOut = await mk(`${p}-opt`);
    await fail(optedOut.id, 5);
    await setLifecycle(store, optedOut.id, { healthChecksDisabled: true });
    const skipped = await mk(`${p}-skip`);
    await fail(skipped.id, 5);
    await store.health.record(skipped.id, { kind: 'skipped', reason: 'policy' }, DAY);
    await mk(`${p}-never`);
    const archived = await mk(`${p}-arch`);
    await fail(archived.id, 5);
    await setLifecycle(store, archived.id, { archived: true });
    const expired = await mk(`${p}-exp`, 'https://e.test/', alice, clock.now + 1_000);
    await fail(expired.id, 5);
    const t0 = clock.now;
    clock.now = t0 + 1_000;
    try {
      const report = (await store.health.brokenReport()).filter((r) => !before.has(r.id));
      assert.deepEqual(
        report.map((r) => [r.slug, r.consecutiveFailures]),
        [
          [`${p}-b`, 4],
          [`${p}-z`, 4],
          [`${p}-a`, 3],
        ],
      );
      const first = report[0]!;
      assert.equal(first.url, 'https://e.test/');
      assert.equal(first.lastError, 'connection refused');
      assert.equal(first.lastStatus, null);
      assert.equal(typeof first.lastCheckedAt, 'number');
      assert.deepEqual(
        report[2]!.owners.map((o) => [o.displayName, o.isPrimary]),
        [
          ['Bob', true],
          ['Alice', false],
        ],
      );
    } finally {
      clock.now = t0;
    }
  });
});

describeEachDatabase('lifecycle toggles', (ctx) => {
  test('archive is idempotent and keeps the first archived_at; only real changes bump updated_at', async () => {
    const { store, clock } = ctx();
    const owner = await user(store);
    const l = await createLink(store, { slug: unique('t'), url: 'https://e.test/' }, owner.id);
    const t0 = clock.now;
    try {
      clock.now = t0 + 1_000;
      let v = await setLifecycle(store, l.id, { archived: true });
      assert.equal(v.archivedAt, t0 + 1_000);
      assert.equal(v.updatedAt, t0 + 1_000);
      clock.now = t0 + 2_000;
      v = await setLifecycle(store, l.id, { archived: true });
      assert.equal(v.archivedAt, t0 + 1_000, 're-archiving keeps the original instant');
      assert.equal(v.updatedAt, t0 + 1_000, 'a no-op is not an edit');
      v = await setLifecycle(store, l.id, { archived: false });
      assert.equal(v.archivedAt, null);
      assert.equal(v.updatedAt, t0 + 2_000);
      clock.now = t0 + 3_000;
      v = await setLifecycle(store, l.id, { archived: false });
      assert.equal(v.updatedAt, t0 + 2_000, 'unarchiving an active link is a no-op');
      v = await setLifecycle(store, l.id, { healthChecksDisabled: true });
      assert.equal(v.healthChecksDisabled, true);
      assert.equal(v.updatedAt, t0 + 3_000, 'the opt-out is an edit');
    } finally {
      clock.now = t0;
    }
  });

  test('renew clears expires_at and never touches archived_at; archive never touches expires_at', async () => {
    const { store, clock } = ctx();
    const owner = await user(store);
    const t0 = clock.now;
    const l = await createLink(store, { slug: unique('r'), url: 'https://e.test/', expiresAt: t0 + 60_000 }, owner.id);
    try {
      await setLifecycle(store, l.id, { archived: true });
      assert.equal((await store.links.get(l.id))!.expiresAt, t0 + 60_000);
      clock.now = t0 + 120_000;
      const v = await setLifecycle(store, l.id, { renew: true });
      assert.equal(v.expiresAt, null);
      assert.notEqual(v.archivedAt, null, 'still archived');
      clock.now = t0 + 130_000;
      const again = await setLifecycle(store, l.id, { renew: true });
      assert.equal(again.updatedAt, t0 + 120_000, 'renewing a link without an expiry is a no-op');
    } finally {
      clock.now = t0;
    }
  });

  test('archiving keeps clicks and the slug reservation; unknown ids are NOT_FOUND', async () => {
    const { store, clock } = ctx();
    const owner = await user(store);
    const slug = unique('keep');
    const l = await createLink(store, { slug, url: 'https://e.test/' }, owner.id);
    await store.clicks.insertBatch([
      { id: unique('c'), link_id: l.id, user_id: null, ip_hash: 'x', user_agent: null, referrer: null, clicked_at: clock.now },
    ]);
    await setLifecycle(store, l.id, { archived: true });
    assert.equal(await store.clicks.countForLink(l.id), 1);
    await assert.rejects(
      createLink(store, { slug, url: 'https://other.test/' }, owner.id),
      (e: Error & { code?: string }) => e.code === 'SLUG_CONFLICT',
    );
    await assert.rejects(setLifecycle(store, 'no-such-id', { archived: true }), (e: Error & { code?: string }) => e.code === 'NOT_FOUND');
  });

  test('the opt-out can be given at creation', async () => {
    const { store } = ctx();
    const owner = await user(store);
    const l = await createLink(store, { slug: unique('o'), url: 'https://e.test/' }, owner.id, { healthChecksDisabled: true });
    assert.equal(l.healthChecksDisabled, true);
    assert.ok(!(await store.health.dueLinks(100_000)).some((d) => d.id === l.id));
  });
  test('broken summary: the report’s count and its worst rows, in the report’s order', async () => {
    const c = ctx();
    const { store } = c;
    const owner = await user(store, 'Summary Owner');
    const before = await store.health.brokenSummary(2);
    for (const failures of [3, 6, 4, 2]) {
      const l = await link(c, owner);
      for (let i = 0; i < failures; i++) await store.health.record(l.id, { kind: 'failure', status: 503, error: null }, DAY);
    }
    const summary = await store.health.brokenSummary(2);
    assert.equal(summary.total, before.total + 3, 'two failures are not broken yet');
    const report = await store.health.brokenReport();
    assert.deepEqual(
      summary.worst.map((r) => r.id),
      report.slice(0, 2).map((r) => r.id),
    );
    assert.equal(summary.worst.length, 2);
    assert.ok(summary.worst[0]!.consecutiveFailures >= 6, 'the most failures first');
    assert.ok(summary.worst[0]!.owners.length > 0, 'with its owners, as the report has them');
  });
});
