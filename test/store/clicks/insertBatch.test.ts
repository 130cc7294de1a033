import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { CLICK_ROWS_PER_INSERT, SqliteClickStore, type ClickRow } from '../../../src/store/clicks.js';
import { describeEachDatabase } from '../../helpers/databases.js';
import { createLink } from '../../helpers/links.js';

/** Raw click rows as the click writer stores them (docs/analytics.md#click-capture). */
describeEachDatabase('clicks', (ctx) => {
  test('one insertBatch call writes 500 rows, with NULL and empty optional fields', async () => {
    const { store, clock } = ctx();
    const u = await store.users.create({ email: 'clicker@example.com' });
    const link = await createLink(store, { slug: 'clicked', url: 'https://e.test' }, u.id);
    const other = await createLink(store, { slug: 'other', url: 'https://e.test' }, u.id);
    const rows: ClickRow[] = Array.from({ length: 500 }, (_, i) => ({
      id: randomUUID(),
      link_id: link.id,
      user_id: i % 2 === 0 ? u.id : null,
      ip_hash: i.toString(16).padStart(64, '0'),
      user_agent: i % 3 === 0 ? null : 'é'.repeat(512),
      referrer: i % 5 === 0 ? '' : `https://ref.test/${i}`,
      clicked_at: clock.now + i,
    }));
    await store.clicks.insertBatch(rows);
    await store.clicks.insertBatch([]);
    assert.equal(await store.clicks.countForLink(link.id), 500);
    assert.equal(await store.clicks.countForLink(other.id), 0);
    assert.equal(await store.clicks.countAll(), 500);
    const sample = await ctx().db.kysely.selectFrom('link_clicks').selectAll().where('id', '=', rows[1]!.id).executeTakeFirstOrThrow();
    assert.deepEqual({ ...sample, clicked_at: Number(sample.clicked_at) }, rows[1]);
  });

  const clickRow = (linkId: string, at: number, ipHash: string | null = 'f'.repeat(64)): ClickRow => ({
    id: randomUUID(),
    link_id: linkId,
    user_id: null,
    ip_hash: ipHash as string,
    user_agent: 'UA',
    referrer: '',
    clicked_at: at,
  });

  test('a batch naming a link that is gone, or a user who is, stores the rest once', async () => {
    const { store, clock } = ctx();
    const link = (await store.links.getBySlug('clicked'))!;
    const before = await store.clicks.countForLink(link.id);
    const total = await store.clicks.countAll();
    await store.clicks.insertBatch([
      clickRow(link.id, clock.now),
      clickRow(randomUUID(), clock.now),
      { ...clickRow(link.id, clock.now), user_id: randomUUID() },
    ]);
    assert.equal(await store.clicks.countForLink(link.id), before + 2);
    assert.equal(await store.clicks.countAll(), total + 2, 'nothing stored for the missing link');
  });

  /** Batches the stores must write whole or not at all: a failed batch is retried as it was. */
  const clickStores = () => {
    const { store, db } = ctx();
    return db.sqlite ? [store.clicks, new SqliteClickStore(db.kysely, db.sqlite)] : [store.clicks];
  };

  test('a batch with a row the database refuses writes nothing', async () => {
    const { store, clock } = ctx();
    const link = (await store.links.getBySlug('clicked'))!;
    for (const clicks of clickStores()) {
      const before = await store.clicks.countAll();
      await assert.rejects(clicks.insertBatch([clickRow(link.id, clock.now), clickRow(link.id, clock.now, null)]));
      assert.equal(await store.clicks.countAll(), before, `${clicks.constructor.name}: all or nothing`);
    }
  });

  test('a batch longer than one statement may bind is stored whole, or not at all', async () => {
    const { store, clock } = ctx();
    const link = (await store.links.getBySlug('clicked'))!;
    for (const clicks of clickStores()) {
      const before = await store.clicks.countForLink(link.id);
      const size = CLICK_ROWS_PER_INSERT * 2 + 1;
      await clicks.insertBatch(Array.from({ length: size }, (_, i) => clickRow(link.id, clock.now + i)));
      assert.equal(await store.clicks.countForLink(link.id), before + size);

      // The bad row is in the last statement: the statements before it are rolled back too.
      const failing = Array.from({ length: size }, (_, i) => clickRow(link.id, clock.now + i, i === size - 1 ? null : 'e'.repeat(64)));
      await assert.rejects(clicks.insertBatch(failing));
      assert.equal(
        await store.clicks.countForLink(link.id),
        before + size,
        `${clicks.constructor.name}: a failed batch can be retried without duplicates`,
      );
    }
  });
});
