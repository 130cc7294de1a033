import type { Kysely } from 'kysely';
import type { Database, LinkClicksTable } from '../db/schema.js';

export type ClickRow = LinkClicksTable;

/** Raw click rows. Aggregations live in the analytics store. */
export class ClickStore {
  constructor(private readonly db: Kysely<Database>) {}

  /** One multi-row INSERT per batch (core.md §12.1). */
  async insertBatch(rows: readonly ClickRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db.insertInto('link_clicks').values(rows as ClickRow[]).execute();
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
