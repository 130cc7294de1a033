import type { Kysely } from 'kysely';
import type { Database, LinkClicksTable } from '../db/schema.js';

export type ClickRow = LinkClicksTable;

/**
 * Rows per INSERT statement: 4,000 rows × 7 columns = 28,000 bound
 * parameters, under SQLite's 32,766 (PostgreSQL and MySQL allow 65,535).
 */
export const CLICK_ROWS_PER_INSERT = 4_000;

/** Raw click rows. Aggregations live in the analytics store. */
export class ClickStore {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * One multi-row INSERT per batch (core.md §12.1); a batch longer than
   * CLICK_ROWS_PER_INSERT takes several, in one transaction, so a failed
   * batch stores nothing and can be retried whole.
   */
  async insertBatch(rows: readonly ClickRow[]): Promise<void> {
    if (rows.length === 0) return;
    if (rows.length <= CLICK_ROWS_PER_INSERT) {
      await this.db.insertInto('link_clicks').values(rows as ClickRow[]).execute();
      return;
    }
    await this.db.transaction().execute(async (trx) => {
      for (let i = 0; i < rows.length; i += CLICK_ROWS_PER_INSERT) {
        await trx.insertInto('link_clicks').values(rows.slice(i, i + CLICK_ROWS_PER_INSERT)).execute();
      }
    });
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
    const r = await this.db.selectFrom('link_clicks').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(r.n);
  }
}
