import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDatabase } from '../helpers/databases.js';

/** Per-install settings every replica shares (docs/server.md#background-jobs-and-leases). */
describeEachDatabase('settings', (ctx) => {
  test('replicas starting at once agree on one ip hash secret: 64 hex, stable', async () => {
    const { store } = ctx();
    const values = await Promise.all(Array.from({ length: 8 }, () => store.settings.ipHashSecret()));
    assert.equal(new Set(values).size, 1);
    assert.match(values[0]!, /^[0-9a-f]{64}$/);
    assert.equal(await store.settings.ipHashSecret(), values[0]);
    assert.equal(await store.settings.get('ip_hash_secret'), values[0]);
  });

  test('concurrent getOrCreate with different candidates stores exactly one of them', async () => {
    const { store, db } = ctx();
    const values = await Promise.all(Array.from({ length: 8 }, (_, i) => store.settings.getOrCreate('race', () => `candidate-${i}`)));
    assert.equal(new Set(values).size, 1);
    assert.match(values[0]!, /^candidate-\d$/);
    const rows = await db.kysely.selectFrom('settings').selectAll().where('name', '=', 'race').execute();
    assert.equal(rows.length, 1);
    assert.equal(await store.settings.get('nothing-here'), null);
  });
});
