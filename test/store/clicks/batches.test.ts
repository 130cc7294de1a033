import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import type { ClickRow } from '../../../src/store/clicks.js';
import { describeEachDatabase, type DbContext } from '../../helpers/databases.js';
import { createLink } from '../../helpers/links.js';

/** Storing click batches (docs/analytics.md#click-capture), on every database's own insert path. */

let seq = 0;

async function storedClicks(c: DbContext, linkIds: readonly string[]): Promise<ClickRow[]> {
  const rows = await c.db.kysely.selectFrom('link_clicks').selectAll().where('link_id', 'in', linkIds).orderBy('id').execute();
  return rows.map((r) => ({ ...r, clicked_at: Number(r.clicked_at) }));
}

const click = (linkId: string, extra: Partial<ClickRow> = {}): ClickRow => ({
  id: randomUUID(),
  link_id: linkId,
  user_id: null,
  ip_hash: 'f'.repeat(64),
  user_agent: 'Mozilla/5.0',
  referrer: null,
  clicked_at: Date.UTC(2026, 0, 15, 12, 0, 0),
  ...extra,
});

describeEachDatabase('click batches', (ctx) => {
  test('every value of every row is stored as given, awkward text included', async () => {
    const c = ctx();
    const user = await c.store.users.create({ email: `clicker-${++seq}@example.com` });
    const link = await createLink(c.store, { slug: `cb-${++seq}`, url: 'https://e.test' }, user.id);
    const rows = [
      click(link.id, { user_id: user.id, referrer: 'https://ref.example/?q="quoted",{braces}' }),
      click(link.id, { user_agent: 'back\\slash "and" quotes, commas {NULL}', referrer: 'NULL' }),
      click(link.id, { user_agent: null, referrer: 'ünïcödé 🚀', clicked_at: 1 }),
      click(link.id, { user_agent: '', referrer: '' }),
    ];
    await c.store.clicks.insertBatch(rows);
    const sorted = [...rows].sort((a, b) => (a.id < b.id ? -1 : 1));
    assert.deepEqual(await storedClicks(c, [link.id]), sorted);
  });

  test('a batch larger than one statement is stored whole', async () => {
    const c = ctx();
    const user = await c.store.users.create({ email: `bulk-${++seq}@example.com` });
    const link = await createLink(c.store, { slug: `cb-${++seq}`, url: 'https://e.test' }, user.id);
    const rows = Array.from({ length: 4_500 }, (_, i) => click(link.id, { clicked_at: i }));
    await c.store.clicks.insertBatch(rows);
    assert.equal(await c.store.clicks.countForLink(link.id), 4_500);
  });

  test('clicks of a link deleted before its batch go with it; a removed user’s clicks stay without them', async () => {
    const c = ctx();
    const owner = await c.store.users.create({ email: `owner-${++seq}@example.com` });
    const gone = await c.store.users.create({ email: `gone-${++seq}@example.com` });
    const kept = await createLink(c.store, { slug: `cb-${++seq}`, url: 'https://e.test' }, owner.id);
    const deleted = await createLink(c.store, { slug: `cb-${++seq}`, url: 'https://e.test' }, owner.id);
    await c.db.kysely.deleteFrom('links').where('id', '=', deleted.id).execute();
    await c.db.kysely.deleteFrom('users').where('id', '=', gone.id).execute();
    const keptClick = click(kept.id, { user_id: gone.id });
    await c.store.clicks.insertBatch([click(deleted.id), keptClick, click(deleted.id, { user_id: owner.id })]);
    assert.deepEqual(await storedClicks(c, [kept.id, deleted.id]), [{ ...keptClick, user_id: null }]);
  });
});
