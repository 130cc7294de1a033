import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { andThen, HotQuery, type HotLookups, VIA_KYSELY, type MaybePromise, type ValuesOf } from './hotQuery.js';
import type { Database, KeywordsTable } from '../db/schema.js';
import { AppError } from '../domain/errors.js';
import { isUniqueViolation } from './dbErrors.js';
import type { Clock, Keyword } from './types.js';

/** What the resolver reads of a keyword (HotQuery's values). */
const TEMPLATE_COLUMNS = ['url_template'] as const;

/** Root-forward keywords (docs/links.md#keywords): admin-managed, effective immediately. */
export class KeywordStore {
  private readonly templateQuery: HotQuery<ValuesOf<KeywordsTable, typeof TEMPLATE_COLUMNS>>;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: Clock,
    hot: HotLookups = VIA_KYSELY,
  ) {
    this.templateQuery = new HotQuery(
      db,
      db.selectFrom('keywords').select(TEMPLATE_COLUMNS).where('keyword', '=', '').compile(),
      TEMPLATE_COLUMNS,
      hot,
    );
  }

  /**
   * The template for an exact, case-sensitive keyword; read on every resolver
   * request that could match. Synchronous on an SQLite file (the redirect
   * fast path relies on it); a promise elsewhere.
   */
  templateFor(keyword: string): MaybePromise<string | null> {
    return andThen(this.templateQuery.first([keyword]), (r) => r?.[0] ?? null);
  }

  async list(): Promise<Keyword[]> {
    const rows = await this.db.selectFrom('keywords').selectAll().orderBy('keyword').execute();
    return rows.map((r) => ({
      id: r.id,
      keyword: r.keyword,
      urlTemplate: r.url_template,
      description: r.description,
      createdAt: Number(r.created_at),
    }));
  }

  /** Stores a keyword as given (the links layer's KeywordService checks it first); a taken name is refused. */
  async create(input: { keyword: string; urlTemplate: string; description?: string }): Promise<Keyword> {
    const { keyword, urlTemplate } = input;
    const description = input.description ?? '';
    const row = { id: randomUUID(), keyword, url_template: urlTemplate, description, created_at: this.now() };
    try {
      await this.db.insertInto('keywords').values(row).execute();
    } catch (e) {
      if (isUniqueViolation(e)) throw new AppError('BAD_REQUEST', `Keyword "${keyword}" already exists.`, 'keyword');
      throw e;
    }
    return { id: row.id, keyword, urlTemplate, description, createdAt: row.created_at };
  }

  async delete(id: string): Promise<boolean> {
    const r = await this.db.deleteFrom('keywords').where('id', '=', id).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }
}
