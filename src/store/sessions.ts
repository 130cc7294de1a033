import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { andThen, HotQuery, type HotLookups, VIA_KYSELY, type MaybePromise } from './hotQuery.js';
import { USER_COLUMNS, USER_FIELDS, userFromValues } from './rows.js';
import type { Clock, User } from './types.js';

export interface SessionData {
  userId: string;
  role: string;
  createdAt: number;
}

/**
 * Who a session cookie names, as the resolver needs it: nobody (no such live
 * session), a session whose user has since been deleted, or the user as the
 * database holds them now (so a role change applies on the next request).
 */
export type SessionViewer = { kind: 'none' } | { kind: 'orphaned' } | { kind: 'user'; user: User };

const NONE: SessionViewer = { kind: 'none' };
const ORPHANED: SessionViewer = { kind: 'orphaned' };

type ViewerRow = [expiry: number | string, userId: string | null, ...user: unknown[]];

/** Server-side sessions (docs/auth.md#sessions): any replica can serve any session. */
export class SessionStore {
  private readonly viewerQuery: HotQuery<ViewerRow>;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: Clock,
    hot: HotLookups = VIA_KYSELY,
  ) {
    // The session joined to its user in one compiled lookup: synchronous on an SQLite file.
    this.viewerQuery = new HotQuery(
      db,
      db
        .selectFrom('sessions')
        .leftJoin('users', 'users.id', 'sessions.user_id')
        .select(['sessions.expiry', 'sessions.user_id', ...USER_COLUMNS])
        .where('sessions.token', '=', '')
        .compile(),
      ['expiry', 'user_id', ...USER_FIELDS],
      hot,
    );
  }

  /** The viewer a session token names, checked against its expiry by this store's clock. */
  viewer(token: string): MaybePromise<SessionViewer> {
    return andThen(this.viewerQuery.first([token]), (r) => {
      if (!r || Number(r[0]) <= this.now() || r[1] === null) return NONE;
      const user = r.slice(2);
      if (user[0] === null || user[0] === undefined) return ORPHANED;
      return { kind: 'user', user: userFromValues(user) };
    });
  }

  async create(token: string, data: SessionData, expiry: number): Promise<void> {
    await this.db
      .insertInto('sessions')
      .values({ token, data: Buffer.from(JSON.stringify(data)), expiry, user_id: data.userId })
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
