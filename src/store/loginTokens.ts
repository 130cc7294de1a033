import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { isRandomTokenShaped, randomToken, sha256Hex } from '../domain/secrets.js';
import type { Database } from '../db/schema.js';
import { toUser, USER_COLUMNS } from './rows.js';
import type { Clock, User } from './types.js';

/** A one-time sign-in link is good for this long (docs/auth.md#local-mode). */
export const LOGIN_TOKEN_TTL_MS = 15 * 60_000;

/**
 * Local-mode one-time sign-in links (`login_tokens`, docs/server.md#background-jobs-and-leases). Only the
 * SHA-256 of a link's token is stored, so a database dump cannot sign anyone in.
 */
export class LoginTokenStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: Clock,
  ) {}

  /** Issues a token for `userId` and returns its plaintext, which is never stored. */
  async create(userId: string, ttlMs = LOGIN_TOKEN_TTL_MS): Promise<string> {
    const token = randomToken();
    const now = this.now();
    await this.db
      .insertInto('login_tokens')
      .values({ id: randomUUID(), user_id: userId, token_hash: sha256Hex(token), expires_at: now + ttlMs, created_at: now, used_at: null })
      .execute();
    return token;
  }

  /**
   * The user a still-usable token would sign in, without using it up: link
   * previewers and mail scanners fetch URLs, and must not burn the link.
   */
  async peek(token: string): Promise<User | null> {
    if (!isRandomTokenShaped(token)) return null;
    const r = await this.db
      .selectFrom('login_tokens')
      .innerJoin('users', 'users.id', 'login_tokens.user_id')
      .select(USER_COLUMNS)
      .where('login_tokens.token_hash', '=', sha256Hex(token))
      .where('login_tokens.used_at', 'is', null)
      .where('login_tokens.expires_at', '>', this.now())
      .executeTakeFirst();
    return r ? toUser(r) : null;
  }

  /**
   * Uses the token up and returns its user id, or null when it is unknown,
   * used or expired. One conditional write decides: of two concurrent
   * attempts exactly one updates the row.
   */
  async consume(token: string): Promise<string | null> {
    if (!isRandomTokenShaped(token)) return null;
    const hash = sha256Hex(token);
    const now = this.now();
    const r = await this.db
      .updateTable('login_tokens')
      .set({ used_at: now })
      .where('token_hash', '=', hash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) !== 1) return null;
    const row = await this.db.selectFrom('login_tokens').select('user_id').where('token_hash', '=', hash).executeTakeFirst();
    return row?.user_id ?? null;
  }

  /** Removes used and expired tokens; they can never sign anyone in again. */
  async deleteSpent(): Promise<number> {
    const r = await this.db
      .deleteFrom('login_tokens')
      .where((eb) => eb.or([eb('used_at', 'is not', null), eb('expires_at', '<=', this.now())]))
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
