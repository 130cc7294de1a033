import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Clock } from './types.js';

export interface SessionData {
  userId: string;
  role: string;
  createdAt: number;
}

/** Server-side sessions (api.md §2.6): any replica can serve any session. */
export class SessionStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: Clock,
  ) {}

  async create(token: string, data: SessionData, expiry: number): Promise<void> {
    await this.db
      .insertInto('sessions')
      .values({ token, data: Buffer.from(JSON.stringify(data)), expiry })
      .execute();
  }

  /** An expired row reads as absent even before the sweep removes it. */
  async get(token: string): Promise<SessionData | null> {
    const r = await this.db.selectFrom('sessions').select(['data', 'expiry']).where('token', '=', token).executeTakeFirst();
    if (!r || Number(r.expiry) <= this.now()) return null;
    try {
      const parsed = JSON.parse(Buffer.from(r.data).toString('utf8')) as SessionData;
      return typeof parsed?.userId === 'string' ? parsed : null;
    } catch {
      return null;
    }
  }

  async delete(token: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('token', '=', token).execute();
  }

  async deleteExpired(): Promise<number> {
    const r = await this.db.deleteFrom('sessions').where('expiry', '<=', this.now()).executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
