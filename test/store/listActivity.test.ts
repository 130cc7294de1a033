import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';
import { DAY_MS, utcDayStart } from '../../src/domain/timeseries.js';
import { AnalyticsStore } from '../../src/store/analytics.js';
import { ClickRollupStore } from '../../src/store/clickRollups.js';
import { LIST_ACTIVITY_DAYS } from '../../src/store/listActivity.js';
import { describeEachDatabase, type DbContext } from '../helpers/databases.js';
import { createLink } from '../helpers/links.js';

/**
 * The click figures of a link list page (docs/web-ui.md#link-tables): 30 daily counts, their sum
 * and the last click of every link, read in a fixed number of queries whatever the page's
 * length, from rollups where the roll-up job has run and raw clicks elsewhere, alike on every
 * database.
 */

/** Counts the statements an AnalyticsStore runs. */
class StatementCounter implements KyselyPlugin {
  count = 0;
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    this.count++;
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

function countingAnalytics(c: DbContext): { analytics: AnalyticsStore; counter: StatementCounter } {
  const counter = new StatementCounter();
  const db = c.db.kysely.withPlugin(counter);
  const now = () => c.clock.now;
  return { analytics: new AnalyticsStore(db, now, new ClickRollupStore(db, now)), counter };
}

let seq = 0;

describeEachDatabase('link list click figures', (ctx) => {
  test('daily counts, their sum and the last click, for a whole page in a fixed number of queries', async () => {
    const c = ctx();
    const now = c.clock.now;
    const today = utcDayStart(now);
    const owner = await c.store.users.create({ email: `figures-${++seq}@example.com` });
    const busy = await createLink(c.store, { slug: `busy-${seq}`, url: 'https://e.test' }, owner.id);
    const old = await createLink(c.store, { slug: `old-${seq}`, url: 'https://e.test' }, owner.id);
    const idle = await createLink(c.store, { slug: `idle-${seq}`, url: 'https://e.test' }, owner.id);
    const at = (linkId: string, clickedAt: number) => ({
      id: randomUUID(),
      link_id: linkId,
      user_id: null,
      ip_hash: 'h',
      user_agent: null,
      referrer: null,
      clicked_at: clickedAt,
    });
    await c.store.clicks.insertBatch([
      at(busy.id, today + 60_000), // today
      at(busy.id, now - 1_000), // today, the newest
      at(busy.id, today - DAY_MS + 5), // yesterday
      at(busy.id, today - 29 * DAY_MS), // the oldest day of the window
      at(busy.id, today - 28 * DAY_MS - 1), // still the oldest day
      at(busy.id, today - 29 * DAY_MS - 1), // the day before the window
      at(old.id, today - 40 * DAY_MS),
    ]);
    const { analytics, counter } = countingAnalytics(c);

    const read = async () => {
      const got = await analytics.listActivity([busy.id, old.id, idle.id, randomUUID()]);
      assert.equal(got.size, 3, 'an unknown id has no figures');
      const b = got.get(busy.id)!;
      assert.equal(b.daily.length, LIST_ACTIVITY_DAYS);
      assert.equal(b.daily[LIST_ACTIVITY_DAYS - 1], 2, "today's partial day is the last");
      assert.equal(b.daily[LIST_ACTIVITY_DAYS - 2], 1);
      assert.equal(b.daily[0], 2, 'the oldest day of the window, bounds computed in TypeScript');
      assert.equal(b.clicks, 5, 'the sum of the 30 days, not the click before them');
      assert.equal(b.lastClickedAt, now - 1_000);
      const o = got.get(old.id)!;
      assert.equal(o.clicks, 0);
      assert.ok(o.daily.every((n) => n === 0));
      assert.equal(o.lastClickedAt, today - 40 * DAY_MS, 'the last click may be older than the window');
      assert.deepEqual(got.get(idle.id), { daily: Array(LIST_ACTIVITY_DAYS).fill(0), clicks: 0, lastClickedAt: null });
      return got;
    };

    counter.count = 0;
    const raw = await read();
    const fromRaw = counter.count;
    assert.ok(fromRaw <= 3, `the rollup coverage and one query for the page, not one per row (${fromRaw})`);

    // Closed days rolled up are read from their rollups, with the same answer.
    await c.store.clickRollups.rollUp();
    counter.count = 0;
    assert.deepEqual(await read(), raw, 'rollups and raw clicks agree');
    assert.equal(counter.count, fromRaw, 'as many queries with rollups as without');

    // A page of many links costs the same number of queries as a page of three.
    const many = [];
    for (let i = 0; i < 30; i++) many.push((await createLink(c.store, { slug: `many-${seq}-${i}`, url: 'https://e.test' }, owner.id)).id);
    counter.count = 0;
    const page = await analytics.listActivity(many);
    assert.equal(page.size, 30);
    assert.equal(counter.count, fromRaw, 'the query count does not grow with the page');
    assert.deepEqual(await analytics.listActivity([]), new Map(), 'an empty page asks nothing');
  });
});
