import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import type { CreatedKey, NewestFirstFrom } from '../../src/store/newestFirst.js';
import { describeEachDatabase, type DbContext } from '../helpers/databases.js';

/**
 * Newest-first listings — a user's notifications, a webhook's deliveries — page Older and back
 * Newer through the same keyset, and count all their rows or those above a page, so the web
 * pager can say "16–30 of 40" (docs/web-ui.md#paging). Rows made in the same millisecond
 * (one batch) still have one order, by id. Alike on every database.
 */

interface Listing {
  page(from: NewestFirstFrom): Promise<{ rows: CreatedKey[]; hasMore: boolean }>;
  count(newerThan?: CreatedKey): Promise<number>;
}

const PAGE = 15;
const TOTAL = 40;
let n = 0;

/** Older page by page, then Newer back to the newest: the same pages, the counts in step. */
async function walk(list: Listing): Promise<void> {
  assert.equal(await list.count(), TOTAL);
  const pages: CreatedKey[][] = [];
  let from: NewestFirstFrom = {};
  for (;;) {
    const { rows, hasMore } = await list.page(from);
    const above = pages.reduce((sum, p) => sum + p.length, 0);
    assert.equal(await list.count(rows[0]), above, `rows above page ${pages.length + 1}`);
    pages.push(rows);
    if (!hasMore) break;
    from = { before: rows[rows.length - 1] };
  }
  assert.deepEqual(
    pages.map((p) => p.length),
    [15, 15, 10],
  );
  const all = pages.flat();
  assert.equal(new Set(all.map((r) => r.id)).size, TOTAL, 'no row twice, none left out');
  for (let i = 1; i < all.length; i++) {
    const [a, b] = [all[i - 1]!, all[i]!];
    assert.ok(a.createdAt > b.createdAt || (a.createdAt === b.createdAt && a.id > b.id), 'newest first, ties by id');
  }
  // Newer from the last page, then from the middle one: the pages seen on the way down.
  const back2 = await list.page({ after: pages[2]![0]! });
  assert.deepEqual(back2.rows, pages[1]);
  assert.equal(back2.hasMore, true, 'a newer page still follows');
  const back1 = await list.page({ after: pages[1]![0]! });
  assert.deepEqual(back1.rows, pages[0]);
  assert.equal(back1.hasMore, false, 'the newest page');
  assert.equal(await list.count(pages[0]![0]!), 0);
}

/** Three batches a minute apart: ties within a batch, order across them. */
async function inBatches(c: DbContext, add: (count: number) => Promise<void>): Promise<void> {
  for (const count of [12, 20, 8]) {
    await add(count);
    c.clock.now += 60_000;
  }
}

describeEachDatabase('newest-first pages and counts', (ctx) => {
  test('a user’s notifications: Older and back Newer, counted; nobody else’s counted', async () => {
    const c = ctx();
    const ann = await c.store.users.create({ email: `ann-${++n}@example.test` });
    const ben = await c.store.users.create({ email: `ben-${n}@example.test` });
    const notify = (userId: string, count: number) =>
      c.store.notifications.insert(
        Array.from({ length: count }, () => ({
          userId,
          kind: 'link_changed' as const,
          linkId: randomUUID(),
          linkSlug: 'docs',
          detail: { actor: { type: 'system' as const, via: 'test' } },
          mailState: 'none' as const,
        })),
        c.db.kysely,
      );
    await inBatches(c, async (count) => {
      await notify(ann.id, count);
      await notify(ben.id, 3);
    });
    await walk({
      page: async (from) => {
        const p = await c.store.notifications.page(ann.id, { ...from, limit: PAGE });
        return { rows: p.items.map(({ createdAt, id }) => ({ createdAt, id })), hasMore: p.hasMore };
      },
      count: (newerThan) => c.store.notifications.count(ann.id, { newerThan }),
    });
    assert.equal(await c.store.notifications.count(ben.id), 9);
  });

  test('a webhook’s deliveries: Older and back Newer, counted; another endpoint’s not counted', async () => {
    const c = ctx();
    const hooks = await Promise.all(
      ['a', 'b'].map((h) => c.store.webhooks.create({ url: `https://${h}.example.test/in`, events: ['*'], secret: `whsec_${h}` })),
    );
    const deliver = (webhookId: string, count: number) =>
      c.store.outbox.enqueue(
        Array.from({ length: count }, () => ({
          channel: 'webhook' as const,
          webhookId,
          messageId: randomUUID(),
          eventType: 'link.updated',
          payload: '{}',
          dueAt: c.clock.now,
        })),
        c.db.kysely,
      );
    await inBatches(c, async (count) => {
      await deliver(hooks[0]!.id, count);
      await deliver(hooks[1]!.id, 2);
    });
    await walk({
      page: async (from) => {
        const p = await c.store.outbox.forWebhook(hooks[0]!.id, { ...from, limit: PAGE });
        return { rows: p.rows.map(({ createdAt, id }) => ({ createdAt, id })), hasMore: p.hasMore };
      },
      count: (newerThan) => c.store.outbox.countForWebhook(hooks[0]!.id, { newerThan }),
    });
    assert.equal(await c.store.outbox.countForWebhook(hooks[1]!.id), 6);
  });
});
