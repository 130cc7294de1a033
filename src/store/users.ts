import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { displayNameSlug, emailLocalPart } from '../domain/displayName.js';
import { AppError } from '../domain/errors.js';
import { escapeLike } from '../domain/text.js';
import { isUniqueViolation } from './dbErrors.js';
import { like } from './sql.js';
import { andThen, HotQuery, type HotLookups, VIA_KYSELY, type MaybePromise } from './hotQuery.js';
import { toUser, USER_COLUMNS, USER_FIELDS, userFromValues } from './rows.js';
import type { Clock, Executor, Role, RoleSource, User } from './types.js';

export interface NewUser {
  email: string;
  displayName?: string;
  role?: Role;
  roleSource?: RoleSource;
  /** `local` for CLI, local-mode and forward-auth users; the OIDC issuer otherwise. */
  provider?: string;
  /** Defaults to the lower-cased email for local users. */
  subject?: string;
}

export class UserStore {
  private readonly localIdentityQuery: HotQuery<unknown[]>;
  private readonly emailQuery: HotQuery<unknown[]>;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: Clock,
    hot: HotLookups = VIA_KYSELY,
  ) {
    // Compiled once for the resolver, which finds a forward-auth visitor on every request.
    this.localIdentityQuery = new HotQuery(
      db,
      db.selectFrom('users').select(USER_COLUMNS).where('provider', '=', 'local').where('subject', '=', '').compile(),
      USER_FIELDS,
      hot,
    );
    this.emailQuery = new HotQuery(
      db,
      db
        .selectFrom('users')
        .select(USER_COLUMNS)
        .where((eb) => eb(eb.fn('lower', ['email']), '=', ''))
        .orderBy('created_at')
        .orderBy('id')
        .compile(),
      USER_FIELDS,
      hot,
    );
  }

  /**
   * The user a trusted proxy names, as forward-auth sign-in would find them
   * (local identity first, then the email rule), or null if they have never
   * been seen. Synchronous on an SQLite file.
   */
  forwardAuthUser(email: string): MaybePromise<User | null> {
    const e = email.trim().toLowerCase();
    return andThen(this.localIdentityQuery.first(['local', e]), (byIdentity) =>
      byIdentity ? userFromValues(byIdentity) : andThen(this.emailQuery.first([e]), (r) => (r ? userFromValues(r) : null)),
    );
  }

  async findById(id: string, db: Executor = this.db): Promise<User | null> {
    const r = await db.selectFrom('users').select(USER_COLUMNS).where('id', '=', id).executeTakeFirst();
    return r ? toUser(r) : null;
  }

  /** Which of these ids still name a user (an account deleted in the same transaction does not). */
  async existingIds(ids: readonly string[], db: Executor = this.db): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await db
      .selectFrom('users')
      .select('id')
      .where('id', 'in', [...new Set(ids)])
      .execute();
    return new Set(rows.map((r) => r.id));
  }

  /**
   * The one rule for finding a person by email (docs/links.md#finding-people-by-email):
   * trimmed, compared case-insensitively; the oldest account wins if an IdP ever produced two.
   */
  async findByEmail(email: string): Promise<User | null> {
    const r = await this.db
      .selectFrom('users')
      .select(USER_COLUMNS)
      .where((eb) => eb(eb.fn('lower', ['email']), '=', email.trim().toLowerCase()))
      .orderBy('created_at')
      .orderBy('id')
      .executeTakeFirst();
    return r ? toUser(r) : null;
  }

  async findByIdentity(provider: string, subject: string, db: Executor = this.db): Promise<User | null> {
    const r = await db
      .selectFrom('users')
      .select(USER_COLUMNS)
      .where('provider', '=', provider)
      .where('subject', '=', subject)
      .executeTakeFirst();
    return r ? toUser(r) : null;
  }

  async findByDisplayNameSlug(slug: string): Promise<User | null> {
    const r = await this.db.selectFrom('users').select(USER_COLUMNS).where('display_name_slug', '=', slug).executeTakeFirst();
    return r ? toUser(r) : null;
  }

  async count(): Promise<number> {
    const r = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  async countAdmins(): Promise<number> {
    const r = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('role', '=', 'admin')
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  async oldestAdmin(): Promise<User | null> {
    const r = await this.db
      .selectFrom('users')
      .select(USER_COLUMNS)
      .where('role', '=', 'admin')
      .orderBy('created_at')
      .orderBy('id')
      .executeTakeFirst();
    return r ? toUser(r) : null;
  }

  /** Every user ordered by display name then id (admin screens, CLI). */
  async listAll(): Promise<User[]> {
    const rows = await this.db.selectFrom('users').select(USER_COLUMNS).orderBy('display_name').orderBy('id').execute();
    return rows.map(toUser);
  }

  /**
   * A free profile slug: the derived base, or `base-2`, `base-3`… when taken
   * by someone else. The unique index stays the final judge of a race.
   */
  async freeDisplayNameSlug(displayName: string, userId: string, db: Executor = this.db): Promise<string> {
    const base = displayNameSlug(displayName);
    const rows = await db
      .selectFrom('users')
      .select(['display_name_slug', 'id'])
      .where((eb) => eb.or([eb('display_name_slug', '=', base), like('display_name_slug', `${escapeLike(base)}-%`)]))
      .execute();
    const taken = new Set(rows.filter((r) => r.id !== userId).map((r) => r.display_name_slug));
    if (!taken.has(base)) return base;
    for (let n = 2; ; n++) {
      const candidate = `${base}-${n}`;
      if (!taken.has(candidate)) return candidate;
    }
  }

  /**
   * Creates a user with the email as given (callers apply the email rule,
   * domain/email.ts); a duplicate email or identity is refused with a clear message.
   */
  async create(input: NewUser): Promise<User> {
    const email = input.email;
    const provider = input.provider ?? 'local';
    const subject = input.subject ?? email.toLowerCase();
    if (provider === 'local' && (await this.findByEmail(email))) {
      throw new AppError('BAD_REQUEST', `a user with email ${email} already exists`, 'email');
    }
    const displayName = (input.displayName ?? '').trim() || emailLocalPart(email);
    for (let attempt = 0; ; attempt++) {
      const id = randomUUID();
      const now = this.now();
      const slug = await this.freeDisplayNameSlug(displayName, id);
      try {
        await this.db
          .insertInto('users')
          .values({
            id,
            provider,
            subject,
            email,
            display_name: displayName,
            display_name_slug: slug,
            role: input.role ?? 'user',
            role_source: input.roleSource ?? 'manual',
            created_at: now,
            updated_at: now,
          })
          .execute();
        return (await this.findById(id))!;
      } catch (e) {
        if (!isUniqueViolation(e)) throw e;
        if (await this.findByIdentity(provider, subject)) {
          throw new AppError('BAD_REQUEST', `a user with email ${email} already exists`, 'email');
        }
        // Lost a race for the profile slug; derive again.
        if (attempt >= 5) throw e;
      }
    }
  }

  async setRole(id: string, role: Role, source: RoleSource): Promise<boolean> {
    const r = await this.db
      .updateTable('users')
      .set({ role, role_source: source, updated_at: this.now() })
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** One keyset page of users ordered by display name then id, fetching one extra row to know whether more exist. */
  async page(opts: { after?: { displayName: string; id: string }; limit: number }): Promise<{ users: User[]; hasMore: boolean }> {
    let q = this.db.selectFrom('users').select(USER_COLUMNS);
    const after = opts.after;
    if (after) {
      q = q.where((eb) =>
        eb.or([eb('display_name', '>', after.displayName), eb.and([eb('display_name', '=', after.displayName), eb('id', '>', after.id)])]),
      );
    }
    const rows = await q
      .orderBy('display_name')
      .orderBy('id')
      .limit(opts.limit + 1)
      .execute();
    return { users: rows.slice(0, opts.limit).map(toUser), hasMore: rows.length > opts.limit };
  }
}
