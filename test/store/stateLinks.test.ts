import assert from 'node:assert/strict';
import { test } from 'node:test';
import { payloadSha256 } from '../../src/domain/statePayload.js';
import { MAX_ID_DRAWS } from '../../src/store/stateLinks.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { DAY, encodeState } from '../http/stateLinkFixtures.js';

/** The state_links store on every database: expiry as a fact, dedup, ids, the cap and the sweep. */

const TTL = 30 * DAY;
const CAP = 1024 ** 3;

describeEachDatabase('state link store', (ctx) => {
  let n = 0;
  /** A payload nobody else in this suite uses. */
  const fresh = (extra: Record<string, unknown> = {}) => {
    const payload = encodeState({ n: ++n, ...extra });
    return { payload, sha: payloadSha256(payload) };
  };
  const create = async (p: { payload: string; sha: string }, maxBytes = CAP) => {
    const r = await ctx().store.stateLinks.create(p.payload, p.sha, TTL, maxBytes);
    if (r.kind !== 'created') throw new Error(`expected created, got ${r.kind}`);
    return r.id;
  };

  test('the table exists with the columns the feature relies on', async () => {
    const t = (await ctx().db.kysely.introspection.getTables()).find((x) => x.name === 'state_links');
    assert.ok(t, 'state_links missing');
    assert.deepEqual(t.columns.map((c) => c.name).sort(), ['created_at', 'expires_at', 'id', 'payload', 'payload_bytes', 'payload_sha256']);
    assert.equal(t.columns.find((c) => c.name === 'expires_at')!.isNullable, true);
  });

  test('a new link is pending for the TTL, reads back exactly, and its first open clears the expiry', async () => {
    const { store, clock } = ctx();
    const p = fresh();
    const id = await create(p);
    const link = await store.stateLinks.findLive(id);
    assert.deepEqual(link, { id, payload: p.payload, createdAt: clock.now, expiresAt: clock.now + TTL });
    assert.equal(await store.stateLinks.open(id), p.payload);
    assert.equal((await store.stateLinks.findLive(id))!.expiresAt, null);
    assert.equal(await store.stateLinks.open(id), p.payload, 'an opened link keeps opening');
  });

  test('concurrent first opens all succeed', async () => {
    const { store } = ctx();
    const p = fresh();
    const id = await create(p);
    const results = await Promise.all(Array.from({ length: 8 }, () => store.stateLinks.open(id)));
    assert.deepEqual(results, Array(8).fill(p.payload));
    assert.equal((await store.stateLinks.findLive(id))!.expiresAt, null);
  });

  test('expiry is read against the clock: at the instant it passes, the link is missing everywhere', async () => {
    const { store, clock } = ctx();
    const p = fresh();
    const id = await create(p);
    clock.now += TTL - 1;
    assert.ok(await store.stateLinks.findLive(id));
    clock.now += 1;
    assert.equal(await store.stateLinks.findLive(id), null);
    assert.equal(await store.stateLinks.open(id), null);
    assert.equal(await store.stateLinks.dedupe(p.sha, TTL), null);
  });

  test('dedupe finds a live payload; a pending one gets now + TTL, an opened one stays without expiry', async () => {
    const { store, clock } = ctx();
    const pending = fresh();
    const opened = fresh();
    const pid = await create(pending);
    const oid = await create(opened);
    await store.stateLinks.open(oid);
    clock.now += 10 * DAY;
    assert.equal(await store.stateLinks.dedupe(pending.sha, TTL), pid);
    assert.equal((await store.stateLinks.findLive(pid))!.expiresAt, clock.now + TTL);
    assert.equal(await store.stateLinks.dedupe(opened.sha, TTL), oid);
    assert.equal((await store.stateLinks.findLive(oid))!.expiresAt, null);
    assert.equal(await store.stateLinks.dedupe(payloadSha256('#state=v1.unknown'), TTL), null);
  });

  test('an expired payload stored again becomes a new link with a new id, replacing the old row', async () => {
    const { store, clock, db } = ctx();
    const p = fresh();
    const old = await create(p);
    clock.now += TTL;
    const again = await create(p);
    assert.notEqual(again, old);
    const rows = await db.kysely.selectFrom('state_links').select('id').where('payload_sha256', '=', p.sha).execute();
    assert.deepEqual(
      rows.map((r) => r.id),
      [again],
    );
    assert.equal(await store.stateLinks.findLive(old), null);
  });

  test('a concurrent store of the same payload yields one link; the others get its id', async () => {
    const { store } = ctx();
    const p = fresh();
    const outcomes = await Promise.all(Array.from({ length: 6 }, () => store.stateLinks.create(p.payload, p.sha, TTL, CAP)));
    const created = outcomes.filter((o) => o.kind === 'created');
    assert.equal(created.length, 1, JSON.stringify(outcomes));
    const id = (created[0] as { id: string }).id;
    for (const o of outcomes) assert.deepEqual(o, o.kind === 'created' ? { kind: 'created', id } : { kind: 'existing', id });
  });

  test('concurrent stores of an expired payload replace it once: one new link, the others get its id', async () => {
    const { store, clock, db } = ctx();
    const p = fresh();
    const old = await create(p);
    clock.now += TTL;
    const outcomes = await Promise.all(Array.from({ length: 6 }, () => store.stateLinks.create(p.payload, p.sha, TTL, CAP)));
    const created = outcomes.filter((o) => o.kind === 'created') as Array<{ id: string }>;
    assert.equal(created.length, 1, JSON.stringify(outcomes));
    assert.notEqual(created[0]!.id, old);
    for (const o of outcomes) assert.equal((o as { id: string }).id, created[0]!.id);
    const rows = await db.kysely.selectFrom('state_links').select('id').where('payload_sha256', '=', p.sha).execute();
    assert.deepEqual(
      rows.map((r) => r.id),
      [created[0]!.id],
    );
  });

  test('ids are case-sensitive: two ids differing only in case are two links', async () => {
    const { store } = ctx();
    const a = fresh();
    const b = fresh();
    store.stateLinks.drawId = () => 'caseTEST01';
    try {
      assert.equal(await create(a), 'caseTEST01');
      store.stateLinks.drawId = () => 'CASEtest01';
      assert.equal(await create(b), 'CASEtest01');
    } finally {
      store.stateLinks.drawId = (await import('../../src/domain/statePayload.js')).newStateLinkId;
    }
    assert.equal((await store.stateLinks.findLive('caseTEST01'))!.payload, a.payload);
    assert.equal((await store.stateLinks.findLive('CASEtest01'))!.payload, b.payload);
    assert.equal(await store.stateLinks.findLive('casetest01'), null);
  });

  test('a taken id is drawn again; after eight taken draws the store gives up', async () => {
    const { store } = ctx();
    const original = store.stateLinks.drawId;
    try {
      store.stateLinks.drawId = () => 'collide001';
      await create(fresh());
      const queue = ['collide001', 'collide001', 'collide001', 'freshId002'];
      let draws = 0;
      store.stateLinks.drawId = () => (draws++, queue.shift()!);
      assert.equal(await create(fresh()), 'freshId002');
      assert.equal(draws, 4);
      draws = 0;
      store.stateLinks.drawId = () => (draws++, 'collide001');
      const p = fresh();
      assert.deepEqual(await store.stateLinks.create(p.payload, p.sha, TTL, CAP), { kind: 'exhausted' });
      assert.equal(draws, MAX_ID_DRAWS);
      assert.equal(await store.stateLinks.dedupe(p.sha, TTL), null, 'nothing was stored');
    } finally {
      store.stateLinks.drawId = original;
    }
  });

  test('the largest body the API accepts is stored and read back byte for byte', async () => {
    const { store } = ctx();
    const payload = `#state=v1.${'A'.repeat(65_536)}`;
    const id = await create({ payload, sha: payloadSha256(payload) });
    assert.equal((await store.stateLinks.findLive(id))!.payload, payload);
  });

  test('the sweep deletes only expired rows, in batches, and stops when asked', async () => {
    const { store, clock, db } = ctx();
    // Start from a clean slate: earlier tests left links at assorted expiries.
    clock.now += 400 * DAY;
    await store.stateLinks.sweepExpired();
    const before = await db.kysely.selectFrom('state_links').select('id').execute();
    const expired: string[] = [];
    for (let i = 0; i < 23; i++) expired.push(await create(fresh()));
    clock.now += TTL;
    const live = await create(fresh());
    const opened = await create(fresh());
    await store.stateLinks.open(opened);
    const aborted = new AbortController();
    aborted.abort();
    assert.equal(await store.stateLinks.sweepExpired({ signal: aborted.signal }), 0);
    assert.equal(await store.stateLinks.sweepExpired({ batchSize: 5 }), 23);
    const left = new Set((await db.kysely.selectFrom('state_links').select('id').execute()).map((r) => r.id));
    for (const id of expired) assert.ok(!left.has(id));
    assert.ok(left.has(live) && left.has(opened));
    assert.equal(left.size, before.length + 2);
    assert.equal(await store.stateLinks.sweepExpired(), 0);
  });

  test('the storage cap: stored bytes are counted, expired links are swept to make room, else the store is full', async () => {
    const { store, clock } = ctx();
    clock.now += 400 * DAY;
    await store.stateLinks.sweepExpired();
    const base = await store.stateLinks.storedBytes();
    const a = fresh({ pad: 'x'.repeat(50) });
    const b = fresh({ pad: 'y'.repeat(50) });
    const c = fresh({ pad: 'z'.repeat(50) });
    const cap = base + a.payload.length + b.payload.length + 10;
    await create(a, cap);
    clock.now += DAY;
    await create(b, cap);
    assert.equal(await store.stateLinks.storedBytes(), base + a.payload.length + b.payload.length);
    assert.deepEqual(await store.stateLinks.create(c.payload, c.sha, TTL, cap), { kind: 'full' });
    // Once `a` has expired, making room sweeps it and `c` fits.
    clock.now += TTL - DAY;
    assert.equal((await store.stateLinks.create(c.payload, c.sha, TTL, cap)).kind, 'created');
    assert.equal(await store.stateLinks.storedBytes(), base + b.payload.length + c.payload.length);
  });
});
