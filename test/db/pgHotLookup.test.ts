import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { pgHotLookup } from '../../src/db/pgHotLookup.js';
import { createTestDatabase, skipReason, type TestDatabase } from '../helpers/databases.js';

/**
 * Batched hot lookups on PostgreSQL (docs/server.md#the-redirect-hot-path):
 * lookups made together share a query, and each gets exactly its own answer.
 */

const SQL = 'select "url", "note" from "hot_links" where "slug" = $1 and "kind" = $2';

describe('PostgreSQL hot lookups', { skip: skipReason('postgres') }, () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  let queries = 0;

  before(async () => {
    database = await createTestDatabase('postgres');
    pool = new pg.Pool({ connectionString: database.config.dsn, max: 3 });
    await pool.query('create table hot_links (slug varchar(64), kind varchar(8), url text, note text)');
    await pool.query(
      `insert into hot_links select 'l-' || n, 'a', 'https://e.test/' || n, case when n % 2 = 0 then null else 'odd' end from generate_series(1, 400) n`,
    );
    // A row whose every selected value is null must still read as found.
    await pool.query(`insert into hot_links values ('nulls', 'a', null, null)`);
    const query = pool.query.bind(pool);
    pool.query = ((...args: Parameters<typeof query>) => {
      queries++;
      return query(...args);
    }) as typeof pool.query;
  });
  after(async () => {
    await pool?.end();
    await database?.drop();
  });

  test('lookups made together go as one query, each answered with its own row', async () => {
    const lookup = pgHotLookup(pool, SQL, 'hot_test_1');
    const slugs = Array.from({ length: 300 }, (_, i) => (i % 7 === 0 ? `missing-${i}` : `l-${i + 1}`));
    queries = 0;
    const answers = await Promise.all(slugs.map((slug) => lookup([slug, 'a'])));
    assert.ok(queries <= 2, `300 lookups took ${queries} queries`);
    answers.forEach((values, i) => {
      const slug = slugs[i]!;
      if (slug.startsWith('missing')) assert.equal(values, undefined, slug);
      else {
        const n = Number(slug.slice(2));
        assert.deepEqual(values, [`https://e.test/${n}`, n % 2 === 0 ? null : 'odd'], slug);
      }
    });
  });

  test('every parameter counts, a found row of nulls is found, and quotes and backslashes are data', async () => {
    const lookup = pgHotLookup(pool, SQL, 'hot_test_2');
    const answers = await Promise.all([
      lookup(['l-3', 'a']),
      lookup(['l-3', 'b']),
      lookup(['nulls', 'a']),
      lookup([`l-3' or '1'='1`, 'a']),
      lookup(['l-3\\', 'a']),
      lookup(['{l-3}', 'a']),
    ]);
    assert.deepEqual(answers, [['https://e.test/3', 'odd'], undefined, [null, null], undefined, undefined, undefined]);
  });

  test('a lookup alone is one plain query; a failing batch fails each of its lookups', async () => {
    const lookup = pgHotLookup(pool, SQL, 'hot_test_3');
    queries = 0;
    assert.deepEqual(await lookup(['l-1', 'a']), ['https://e.test/1', 'odd']);
    assert.equal(queries, 1);
    const broken = pgHotLookup(pool, 'select "url" from "no_such_table" where "slug" = $1', 'hot_test_4');
    const results = await Promise.allSettled([broken(['a']), broken(['b'])]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['rejected', 'rejected'],
    );
    // The pool is still usable afterwards.
    assert.deepEqual(await lookup(['l-5', 'a']), ['https://e.test/5', 'odd']);
  });
});
