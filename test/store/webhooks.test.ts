import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import type { OutboxNext } from '../../src/store/outbox.js';
import { describeEachDatabase, type DbContext } from '../helpers/databases.js';

/** Which webhook endpoints the admin overview calls failing (docs/web-ui.md#admin-screens), on every database. */

const DAY = 86_400_000;

describeEachDatabase('webhook store', (ctx) => {
  /** One delivery to `webhookId`, created now, after the given attempts (status code or error each). */
  async function delivery(c: DbContext, webhookId: string, attempts: Array<number | string>, next: OutboxNext['status']): Promise<void> {
    const [id] = await c.store.outbox.enqueue(
      [{ channel: 'webhook', webhookId, messageId: randomUUID(), eventType: 'link.updated', payload: '{}', dueAt: c.clock.now }],
      c.db.kysely,
    );
    for (const [i, a] of attempts.entries()) {
      const last = i === attempts.length - 1;
      const state: OutboxNext =
        !last || next === 'pending' ? { status: 'pending', nextAttemptAt: c.clock.now + 60_000 } : { status: next, at: c.clock.now };
      await c.store.outbox.settle(
        id!,
        {
          attempt: i + 1,
          at: c.clock.now,
          durationMs: 5,
          statusCode: typeof a === 'number' ? a : null,
          error: typeof a === 'string' ? a : null,
        },
        state,
        c.db.kysely,
      );
    }
    c.clock.now += 1_000;
  }

  test('failing: an endpoint whose latest attempted delivery failed or waits for a retry, with its recent failures', async () => {
    const c = ctx();
    const hook = (name: string) =>
      c.store.webhooks.create({ url: `https://${name}.example.test/in`, events: ['*'], secret: `whsec_${name}` });
    const healthy = await hook('healthy');
    const recovered = await hook('recovered');
    const dead = await hook('dead');
    const retrying = await hook('retrying');
    const quiet = await hook('quiet');

    await delivery(c, healthy.id, [200], 'delivered');
    await delivery(c, recovered.id, [500, 500, 500], 'failed');
    await delivery(c, recovered.id, [204], 'delivered');
    // An old failure falls outside the window; two recent ones count.
    await delivery(c, dead.id, [503], 'failed');
    c.clock.now += 8 * DAY;
    await delivery(c, dead.id, [503, 503], 'failed');
    await delivery(c, dead.id, [410], 'failed');
    await delivery(c, retrying.id, ['connect ECONNREFUSED'], 'pending');
    // Not yet attempted: a new delivery says nothing about the endpoint.
    await delivery(c, quiet.id, [], 'pending');
    await delivery(c, healthy.id, [], 'pending');

    const failing = await c.store.webhooks.failing(c.clock.now - 7 * DAY);
    assert.deepEqual(failing, [
      { id: dead.id, url: 'https://dead.example.test/in', failures: 2, lastStatus: 410, lastError: null },
      { id: retrying.id, url: 'https://retrying.example.test/in', failures: 1, lastStatus: null, lastError: 'connect ECONNREFUSED' },
    ]);
  });
});
