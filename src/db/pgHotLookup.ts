import type pg from 'pg';
import type { HotLookup } from './hotLookup.js';

/** Lookups of one statement answered by one query at most; more wait for the next. */
const MAX_BATCH = 256;

interface Waiting {
  params: readonly unknown[];
  resolve(values: unknown[] | undefined): void;
  reject(e: unknown): void;
}

/**
 * The statement rewritten to answer many parameter sets at once: each set is
 * a row of unnested arrays, numbered, and the statement runs for each as a
 * lateral subquery. `hot_hit` tells a row found from none (every column null).
 */
function batchedSql(sql: string, arity: number): string {
  const numbers = Array.from({ length: arity }, (_, k) => k + 1);
  const arrays = numbers.map((n) => `$${n}::text[]`).join(', ');
  const columns = numbers.map((n) => `p${n}`).join(', ');
  const lateral = sql.replace(/\$(\d+)/g, 'hot_params.p$1');
  return (
    `SELECT hot_params.i, hot_row.* FROM unnest(${arrays}) WITH ORDINALITY AS hot_params(${columns}, i) ` +
    `LEFT JOIN LATERAL (SELECT 1 AS hot_hit, hot_one.* FROM (${lateral}) AS hot_one LIMIT 1) AS hot_row ON true`
  );
}

/**
 * A hot lookup on PostgreSQL (docs/server.md#the-redirect-hot-path): a
 * named statement, parsed and planned once per pooled connection, answered
 * as arrays of values.
 *
 * Lookups of the same statement made while the server works through one
 * round of arrived requests go to the database as one query, each parameter
 * set a row of it: under load a round holds many redirects, and each query
 * costs both sides a round trip, a system call or two and the executor's
 * start far more than one more index probe does. Every lookup still reads
 * the rows committed when its query runs; nothing is kept between rounds.
 * Parameters are compared as text, which every hot lookup's are.
 */
export function pgHotLookup(pool: pg.Pool, sql: string, name: string): HotLookup {
  const single = (params: readonly unknown[]) =>
    pool.query<unknown[]>({ name, text: sql, values: [...params], rowMode: 'array' }).then((r) => r.rows[0]);
  const arity = Math.max(0, ...[...sql.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
  // Only a statement without literals can have its placeholders rewritten safely.
  if (arity === 0 || sql.includes("'")) return single;
  const batch = { name: `${name}_batch`, text: batchedSql(sql, arity) };
  let waiting: Waiting[] = [];

  function run(group: Waiting[]): void {
    if (group.length === 1) {
      const [one] = group;
      single(one!.params).then(one!.resolve, one!.reject);
      return;
    }
    const values = Array.from({ length: arity }, (_, k) => group.map((w) => w.params[k] ?? null));
    pool.query<unknown[]>({ ...batch, values, rowMode: 'array' }).then(
      ({ rows }) => {
        const found = new Array<unknown[] | undefined>(group.length);
        for (const row of rows) if (row[1] !== null) found[Number(row[0]) - 1] = row.slice(2);
        group.forEach((w, i) => w.resolve(found[i]));
      },
      (e: unknown) => group.forEach((w) => w.reject(e)),
    );
  }

  function flush(): void {
    const all = waiting;
    waiting = [];
    for (let i = 0; i < all.length; i += MAX_BATCH) run(all.slice(i, i + MAX_BATCH));
  }

  return (params) =>
    new Promise((resolve, reject) => {
      // The first lookup of a round schedules the query for when the round's requests are all read.
      if (waiting.push({ params, resolve, reject }) === 1) setImmediate(flush);
    });
}
