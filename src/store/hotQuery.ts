import type { CompiledQuery, Kysely } from 'kysely';
import type { HotLookup } from '../db/hotLookup.js';
import type { Database } from '../db/schema.js';

/** A value now, or later: hot-path lookups answer synchronously where the database can. */
export type MaybePromise<T> = T | Promise<T>;

/** Applies `f` to a value that may still be on its way, without a detour through a promise when it is not. */
export function andThen<T, R>(value: MaybePromise<T>, f: (v: T) => MaybePromise<R>): MaybePromise<R> {
  return value instanceof Promise ? value.then(f) : f(value);
}

/** Where a HotQuery gets its way to run: `Db.hotLookup`, or none (Kysely). */
export type HotLookups = (sql: string) => HotLookup | null;

/** No way but Kysely's: stores built without a database's own hot lookups. */
export const VIA_KYSELY: HotLookups = () => null;

/** The values of `columns` in a row of `Row`, in that order: what HotQuery answers for them. */
export type ValuesOf<Row, Columns extends readonly (keyof Row)[]> = { -readonly [I in keyof Columns]: Row[Columns[I] & keyof Row] };

/**
 * A single-row lookup compiled once and run with fresh parameters, for the
 * redirect hot path. It answers the selected values in `columns` order, the
 * order the query was compiled to select them in.
 *
 * It runs by the database's own cheapest means where there is one
 * (`Db.hotLookup`): on an SQLite file synchronously as a prepared statement
 * on the read-only connection in better-sqlite3's raw mode (an array of
 * values instead of an object built key by key, about a fifth of a
 * five-column lookup), on PostgreSQL as a named statement prepared once per
 * connection. Elsewhere it goes through Kysely like every other query and the
 * row's values are picked out by name.
 */
export class HotQuery<Values extends readonly unknown[]> {
  private lookup: HotLookup | null | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly compiled: CompiledQuery,
    private readonly columns: readonly string[],
    private readonly hot: HotLookups,
  ) {}

  first(params: readonly unknown[]): MaybePromise<Values | undefined> {
    if (this.lookup === undefined) this.lookup = this.hot(this.compiled.sql);
    if (this.lookup) return this.lookup(params) as MaybePromise<Values | undefined>;
    return this.db.executeQuery<Record<string, unknown>>({ ...this.compiled, parameters: params }).then((res) => {
      const row = res.rows[0];
      return row === undefined ? undefined : (this.columns.map((c) => row[c]) as unknown as Values);
    });
  }
}

/**
 * A pipeline of `wait` steps for `runMaybeSync`. What each step receives back
 * is typed by its own `wait`, so the generator's own "next" type is left open.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each `wait` types what it receives
export type Pipeline<T> = Generator<unknown, T, any>;

/** Waits for a value inside `runMaybeSync`: `const v = yield* wait(lookup())`. */
export function* wait<T>(value: MaybePromise<T>): Generator<MaybePromise<T>, T, T> {
  return yield value;
}

/**
 * Runs a pipeline written as a generator of `wait` steps, synchronously for as
 * long as every step answers at once (a prepared statement on an SQLite file)
 * and as a promise from the first step that does not. The redirect hot path
 * then reads like async code without paying for promise turns where the
 * database needs none.
 */
export function runMaybeSync<T>(pipeline: Pipeline<T>): MaybePromise<T> {
  return drive(pipeline, pipeline.next());
}

function drive<T>(pipeline: Pipeline<T>, first: IteratorResult<unknown, T>): MaybePromise<T> {
  let step = first;
  while (!step.done) {
    const value = step.value;
    if (value instanceof Promise) {
      return value.then(
        (v) => drive(pipeline, pipeline.next(v)),
        (e: unknown) => drive(pipeline, pipeline.throw(e)),
      );
    }
    step = pipeline.next(value);
  }
  return step.value;
}
