import { randomUUID } from 'node:crypto';
import type SqliteDatabase from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import type { Database, LinkClicksTable } from '../db/schema.js';
import { rollupWindow } from '../domain/rollupCoverage.js';
import { utcDayStart } from '../domain/timeseries.js';
import { isForeignKeyViolation } from './dbErrors.js';
import { markDirtyDays } from './rollupMarks.js';
import { inListChunks } from './sql.js';
import type { Clock } from './types.js';

export type ClickRow = LinkClicksTable;

/**
 * A batch of clicks to store: how many, and their rows. An array will do;
 * the click writer hands over rows that are built only as they are stored
 * (and built again if the batch is retried), so a large batch never sits
 * in memory as row objects.
 */
export type ClickRows = Iterable<ClickRow> & { readonly length: number };

/**
 * Rows per INSERT statement: 4,000 rows × 7 columns = 28,000 bound
 * parameters, under SQLite's 32,766 (PostgreSQL and MySQL allow 65,535).
 */
export const CLICK_ROWS_PER_INSERT = 4_000;

/**
 * The closed days of the rollup window a batch writes under, collected as its
 * rows go by: a batch of clicks stamped today (the usual case) costs one
 * comparison per row and marks nothing. A late click (stamped before today's
 * UTC midnight, as after a database outage) marks its day dirty in the
 * batch's transaction, so no read takes that day from a rollup that misses it
 * (docs/analytics.md#rollups).
 */
class LateDays {
  private readonly oldest: number;
  private readonly today: number;
  private readonly days = new Set<number>();

  constructor(now: number) {
    ({ oldest: this.oldest, today: this.today } = rollupWindow(now));
  }

  see(clickedAt: number): void {
    if (clickedAt < this.today && clickedAt >= this.oldest) this.days.add(utcDayStart(clickedAt));
  }

  get list(): number[] {
    return [...this.days];
  }
}

/** Raw click rows. Aggregations live in the analytics store. */
export class ClickStore {
  constructor(
    protected readonly db: Kysely<Database>,
    protected readonly now: Clock = Date.now,
  ) {}

  /**
   * One multi-row INSERT per batch (docs/analytics.md#click-capture); a batch longer than
   * CLICK_ROWS_PER_INSERT takes several, in one transaction, so a failed
   * batch stores nothing and can be retried whole.
   *
   * A link deleted (or an account removed) between its redirect and this
   * batch makes the INSERT fail its foreign key, and retrying the same rows
   * would fail forever while every later click queued up behind them. So on
   * that failure the batch is stored again as the deletion would have left it
   * had the rows landed first: the gone link's clicks dropped with it (the
   * cascade), the gone user's clicks kept without their user (SET NULL).
   */
  async insertBatch(rows: ClickRows): Promise<void> {
    try {
      await this.insertAll(rows);
    } catch (e) {
      if (!isForeignKeyViolation(e)) throw e;
      await this.insertAll(await this.withLiveReferences(rows));
    }
  }

  protected async insertAll(batch: ClickRows): Promise<void> {
    if (batch.length === 0) return;
    const rows = Array.from(batch);
    const late = new LateDays(this.now());
    for (const r of rows) late.see(r.clicked_at);
    if (rows.length <= CLICK_ROWS_PER_INSERT && late.list.length === 0) {
      await this.db.insertInto('link_clicks').values(rows).execute();
      return;
    }
    await this.db.transaction().execute(async (trx) => {
      for (let i = 0; i < rows.length; i += CLICK_ROWS_PER_INSERT) {
        await trx
          .insertInto('link_clicks')
          .values(rows.slice(i, i + CLICK_ROWS_PER_INSERT))
          .execute();
      }
      await markDirtyDays(trx, late.list);
    });
  }

  /** The rows whose link still exists, with user ids of removed accounts cleared. */
  private async withLiveReferences(batch: ClickRows): Promise<ClickRow[]> {
    const rows = Array.from(batch);
    const links = await this.existingIds(
      'links',
      rows.map((r) => r.link_id),
    );
    const users = await this.existingIds(
      'users',
      rows.flatMap((r) => (r.user_id ? [r.user_id] : [])),
    );
    return rows.filter((r) => links.has(r.link_id)).map((r) => (r.user_id && !users.has(r.user_id) ? { ...r, user_id: null } : r));
  }

  private async existingIds(table: 'links' | 'users', ids: readonly string[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (const chunk of inListChunks([...new Set(ids)])) {
      for (const r of await this.db.selectFrom(table).select('id').where('id', 'in', chunk).execute()) found.add(r.id);
    }
    return found;
  }

  async countForLink(linkId: string): Promise<number> {
    const r = await this.db
      .selectFrom('link_clicks')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('link_id', '=', linkId)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  async countAll(): Promise<number> {
    const r = await this.db
      .selectFrom('link_clicks')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }
}

const CLICK_COLUMNS = ['id', 'link_id', 'user_id', 'ip_hash', 'user_agent', 'referrer', 'clicked_at'] as const;

/**
 * ClickStore on the SQLite click writer's own connection (clickSinkWorker.ts):
 * one single-row INSERT, compiled by Kysely and prepared once, run for every
 * row, in the order given, inside one transaction. A multi-row INSERT through Kysely builds and
 * compiles a tree of thousands of values and SQLite prepares a statement of
 * 28,000 parameters for every batch — about a fifth of the thread's time
 * under load — while stepping a prepared statement per row costs SQLite no more.
 */
export class SqliteClickStore extends ClickStore {
  private readonly insertEach: (rows: ClickRows) => void;

  constructor(db: Kysely<Database>, sqlite: SqliteDatabase.Database, now: Clock = Date.now) {
    super(db, now);
    const one = Object.fromEntries(CLICK_COLUMNS.map((c) => [c, null])) as unknown as ClickRow;
    const insert = sqlite.prepare(db.insertInto('link_clicks').values(one).compile().sql);
    const mark = sqlite.prepare(db.insertInto('click_rollup_dirty_days').values({ day: 0, mark_id: '' }).compile().sql);
    const values: unknown[] = [];
    this.insertEach = sqlite.transaction((rows: ClickRows) => {
      const late = new LateDays(this.now());
      for (const r of rows) {
        for (let i = 0; i < CLICK_COLUMNS.length; i++) values[i] = r[CLICK_COLUMNS[i]!];
        insert.run(values);
        late.see(r.clicked_at);
      }
      for (const day of late.list) mark.run(day, randomUUID());
    });
  }

  protected override async insertAll(rows: ClickRows): Promise<void> {
    this.insertEach(rows);
  }
}

/** Each click column's PostgreSQL array type, in CLICK_COLUMNS order. */
const PG_ARRAY_TYPES: Record<(typeof CLICK_COLUMNS)[number], string> = {
  id: 'text[]',
  link_id: 'text[]',
  user_id: 'text[]',
  ip_hash: 'text[]',
  user_agent: 'text[]',
  referrer: 'text[]',
  clicked_at: 'bigint[]',
};

/**
 * ClickStore on PostgreSQL: a whole batch in one INSERT of seven array
 * parameters unnested into rows. PostgreSQL parses and plans a statement of
 * seven parameters instead of one of thousands: inserting 500-row batches
 * into a table of 2,000 links, 17 µs per row against 42 µs with a multi-row
 * VALUES list (one connection, wall time per row). One statement, so a
 * failed batch stores nothing.
 */
export class PostgresClickStore extends ClickStore {
  protected override async insertAll(batch: ClickRows): Promise<void> {
    if (batch.length === 0) return;
    const columns = CLICK_COLUMNS.map(() => [] as unknown[]);
    const late = new LateDays(this.now());
    for (const r of batch) {
      for (let i = 0; i < CLICK_COLUMNS.length; i++) columns[i]!.push(r[CLICK_COLUMNS[i]!]);
      late.see(r.clicked_at);
    }
    const names = sql.join(CLICK_COLUMNS.map((c) => sql.ref(c)));
    const arrays = sql.join(columns.map((values, i) => sql`${values}::${sql.raw(PG_ARRAY_TYPES[CLICK_COLUMNS[i]!])}`));
    const insert = sql`INSERT INTO link_clicks (${names}) SELECT * FROM unnest(${arrays})`;
    if (late.list.length === 0) {
      await insert.execute(this.db);
      return;
    }
    await this.db.transaction().execute(async (trx) => {
      await insert.execute(trx);
      await markDirtyDays(trx, late.list);
    });
  }
}
