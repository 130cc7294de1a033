import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import { isPatShaped, newPersonalAccessToken, sha256Hex } from '../domain/secrets.js';
import type { ApiTokensTable, Database } from '../db/schema.js';
import { AppError } from '../domain/errors.js';
import { TOKEN_EXPIRY_CHOICES, validateTokenName } from '../domain/tokens.js';
import { toUser, USER_COLUMNS } from './rows.js';
import type { Clock, User } from './types.js';

/**
 * Personal access tokens (`api_tokens`, docs/auth.md#api-tokens). The plaintext exists only
 * in the value `create` returns; the table holds its SHA-256. Revocation is a
 * soft delete, so the row stays for audit.
 */

export interface ApiToken {
  id: string;
  userId: string;
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
  expiresAt: number | null;
  revokedAt: number | null;
}

export interface CreatedToken {
  token: ApiToken;
  /** `jl_…`: shown once, never recoverable. */
  plaintext: string;
}

const COLUMNS = ['id', 'user_id', 'name', 'created_at', 'last_used_at', 'expires_at', 'revoked_at'] as const;

const num = (v: number | string | null): number | null => (v === null ? null : Number(v));

function toToken(r: Pick<Selectable<ApiTokensTable>, (typeof COLUMNS)[number]>): ApiToken {
  return {
    id: r.id,
    userId: r.user_id,
    name: r.name,
    createdAt: Number(r.created_at),
    lastUsedAt: num(r.last_used_at),
    expiresAt: num(r.expires_at),
    revokedAt: num(r.revoked_at),
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class ApiTokenStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: Clock,
  ) {}

  /**
   * `expiresAt` null = never; a time not in the future is refused. A
   * `{ ttl }` expiry is counted from the token's own creation time, so a
   * 30-day token lasts exactly 30 days.
   */
  async create(userId: string, name: string, expiry: number | null | { ttl: number } = null): Promise<CreatedToken> {
    const n = validateTokenName(name);
    const now = this.now();
    const expiresAt = expiry !== null && typeof expiry === 'object' ? now + expiry.ttl : expiry;
    if (expiresAt !== null && (!Number.isSafeInteger(expiresAt) || expiresAt <= now)) {
      throw new AppError('BAD_REQUEST', 'expires_at must be in the future', 'expires_at');
    }
    const plaintext = newPersonalAccessToken();
    const row = {
      id: randomUUID(),
      user_id: userId,
      name: n,
      token_hash: sha256Hex(plaintext),
      created_at: now,
      last_used_at: null,
      expires_at: expiresAt,
      revoked_at: null,
    };
    await this.db.insertInto('api_tokens').values(row).execute();
    return { token: toToken(row), plaintext };
  }

  /** The web form's variant: `expiresIn` is one of TOKEN_EXPIRY_CHOICES. */
  async createWithExpiresIn(userId: string, name: string, expiresIn: string): Promise<CreatedToken> {
    if (!Object.hasOwn(TOKEN_EXPIRY_CHOICES, expiresIn)) {
      throw new AppError('BAD_REQUEST', 'expires_in must be one of: never, 720h, 2160h, 8760h', 'expires_in');
    }
    const ttl = TOKEN_EXPIRY_CHOICES[expiresIn]!;
    return this.create(userId, name, ttl === null ? null : { ttl });
  }

  /** Every token of the user, revoked ones included, newest first. */
  async listForUser(userId: string): Promise<ApiToken[]> {
    const rows = await this.db
      .selectFrom('api_tokens')
      .select(COLUMNS)
      .where('user_id', '=', userId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    return rows.map(toToken);
  }

  /** One of the user's own tokens; null for someone else's, so existence is never revealed. */
  async findForUser(userId: string, id: string): Promise<ApiToken | null> {
    if (!UUID.test(id)) return null;
    const r = await this.db.selectFrom('api_tokens').select(COLUMNS).where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
    return r ? toToken(r) : null;
  }

  async findById(id: string): Promise<ApiToken | null> {
    if (!UUID.test(id)) return null;
    const r = await this.db.selectFrom('api_tokens').select(COLUMNS).where('id', '=', id).executeTakeFirst();
    return r ? toToken(r) : null;
  }

  /**
   * Revokes one of the user's own tokens. True when the token is theirs (an
   * already revoked one stays revoked with its first time); false when it does
   * not exist or belongs to someone else.
   */
  async revoke(userId: string, id: string): Promise<boolean> {
    if (!UUID.test(id)) return false;
    await this.db
      .updateTable('api_tokens')
      .set({ revoked_at: this.now() })
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .execute();
    return (await this.findForUser(userId, id)) !== null;
  }

  /** Revokes any user's token (CLI, admins). False when no such token exists. */
  async revokeById(id: string): Promise<boolean> {
    const t = await this.findById(id);
    if (!t) return false;
    return this.revoke(t.userId, id);
  }

  /**
   * The owner of a presented token, or null when it is unknown, revoked,
   * expired, or its user is gone (the join drops those). One query.
   */
  async authenticate(plaintext: string): Promise<{ tokenId: string; user: User } | null> {
    if (!isPatShaped(plaintext)) return null;
    const now = this.now();
    const r = await this.db
      .selectFrom('api_tokens')
      .innerJoin('users', 'users.id', 'api_tokens.user_id')
      .select([...USER_COLUMNS, 'api_tokens.id as token_id'])
      .where('api_tokens.token_hash', '=', sha256Hex(plaintext))
      .where('api_tokens.revoked_at', 'is', null)
      .where((eb) => eb.or([eb('api_tokens.expires_at', 'is', null), eb('api_tokens.expires_at', '>', now)]))
      .executeTakeFirst();
    if (!r) return null;
    const { token_id, ...user } = r;
    return { tokenId: token_id, user: toUser(user) };
  }

  /** Records a use. Callers do not wait for it (docs/auth.md#bearer-authentication). */
  async touch(tokenId: string): Promise<void> {
    await this.db.updateTable('api_tokens').set({ last_used_at: this.now() }).where('id', '=', tokenId).execute();
  }
}
