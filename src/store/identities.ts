import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { emailLocalPart } from '../domain/displayName.js';
import { AppError, isAppError } from '../domain/errors.js';
import { isUniqueViolation } from './dbErrors.js';
import { toUser, USER_COLUMNS } from './rows.js';
import type { Clock, Role, RoleSource, User } from './types.js';
import type { UserStore } from './users.js';

/**
 * The writes a sign-in makes to `users` (docs/auth.md#user-records, docs/auth.md#roles-and-admin-grants, docs/auth.md#local-mode-and-forward-auth): the
 * OIDC upsert with adoption of a matching local account, forward-auth's
 * find-or-create, configuration role grants and the local-mode bootstrap
 * admin. Each write tolerates a concurrent sign-in of the same person on
 * another replica: a lost race is retried from a fresh read.
 */

export interface OidcIdentity {
  /** The ID token's `iss`. */
  issuer: string;
  subject: string;
  email: string;
  emailVerified: boolean;
  /** The `name` claim; may be empty. */
  name: string;
}

const ATTEMPTS = 5;

export class IdentityStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: Clock,
    private readonly users: UserStore,
  ) {}

  /**
   * Finds or creates the user of an OIDC login and refreshes its profile.
   * `initial` is the role a brand-new row starts with (the grant computed for
   * this login); an existing row's role is never touched here.
   */
  async upsertOidc(identity: OidcIdentity, initial: { role: Role; roleSource: RoleSource }): Promise<User> {
    const email = identity.email.trim();
    const name = identity.name.trim();
    for (let attempt = 1; ; attempt++) {
      try {
        const existing = await this.users.findByIdentity(identity.issuer, identity.subject);
        if (existing) {
          // An empty `name` claim keeps the name we have rather than blanking the profile.
          await this.refresh(existing.id, { email, displayName: name || existing.displayName });
          return (await this.users.findById(existing.id))!;
        }
        if (identity.emailVerified) {
          const local = await this.localByEmail(email);
          if (local) {
            if (await this.adopt(local, identity, email, name || local.displayName)) return (await this.users.findById(local.id))!;
            continue; // adopted by a concurrent login just now: read again
          }
        }
        return await this.insert({
          provider: identity.issuer,
          subject: identity.subject,
          email,
          displayName: name || emailLocalPart(email),
          ...initial,
        });
      } catch (e) {
        if (!isUniqueViolation(e) || attempt >= ATTEMPTS) throw e;
      }
    }
  }

  /**
   * The user a forward-auth proxy vouches for: the local account of that
   * email (subject = lower-cased email), else any account with that email,
   * else a new local one named after the part before `@`.
   */
  async findOrCreateLocal(email: string): Promise<User> {
    const e = email.trim();
    for (let attempt = 1; ; attempt++) {
      const found = (await this.users.findByIdentity('local', e.toLowerCase())) ?? (await this.users.findByEmail(e));
      if (found) return found;
      try {
        return await this.users.create({ email: e, provider: 'local', subject: e.toLowerCase() });
      } catch (err) {
        // Created by a concurrent request in between: read it.
        const raced = isUniqueViolation(err) || (isAppError(err) && /already exists/.test(err.message));
        if (!raced || attempt >= ATTEMPTS) throw err;
      }
    }
  }

  /** A role set by the configured grant rule (role_source = config). */
  async setRoleFromConfig(userId: string, role: Role): Promise<void> {
    await this.db.updateTable('users').set({ role, role_source: 'config', updated_at: this.now() }).where('id', '=', userId).execute();
  }

  /**
   * Local mode's first admin: when nobody holds admin, promotes the user with
   * `email` or creates it (provider local, role_source manual). Null when an
   * admin already exists.
   */
  async ensureBootstrapAdmin(email: string): Promise<{ user: User; action: 'created' | 'promoted' } | null> {
    if ((await this.users.countAdmins()) > 0) return null;
    const existing = await this.users.findByEmail(email);
    if (existing) {
      await this.users.setRole(existing.id, 'admin', 'manual');
      return { user: (await this.users.findById(existing.id))!, action: 'promoted' };
    }
    try {
      return { user: await this.users.create({ email, role: 'admin', roleSource: 'manual' }), action: 'created' };
    } catch (e) {
      // Another replica created it between our read and write; promote what it made.
      if (!isAppError(e)) throw e;
      const raced = await this.users.findByEmail(email);
      if (!raced) throw e;
      await this.users.setRole(raced.id, 'admin', 'manual');
      return { user: (await this.users.findById(raced.id))!, action: 'promoted' };
    }
  }

  private async localByEmail(email: string): Promise<User | null> {
    const r = await this.db
      .selectFrom('users')
      .select(USER_COLUMNS)
      .where('provider', '=', 'local')
      .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
      .orderBy('created_at')
      .orderBy('id')
      .executeTakeFirst();
    return r ? toUser(r) : null;
  }

  /** Profile fields refreshed at every login; the profile slug is re-derived from the name. */
  private async refresh(id: string, p: { email: string; displayName: string }): Promise<void> {
    const slug = await this.users.freeDisplayNameSlug(p.displayName, id);
    await this.db
      .updateTable('users')
      .set({ email: p.email, display_name: p.displayName, display_name_slug: slug, updated_at: this.now() })
      .where('id', '=', id)
      .execute();
  }

  /**
   * Moves a local account onto the OIDC identity, keeping its id and so its
   * links, shares and tokens. Conditional on the row still being local, so two
   * concurrent first logins cannot both adopt it.
   */
  private async adopt(local: User, identity: OidcIdentity, email: string, displayName: string): Promise<boolean> {
    const slug = await this.users.freeDisplayNameSlug(displayName, local.id);
    const r = await this.db
      .updateTable('users')
      .set({
        provider: identity.issuer,
        subject: identity.subject,
        email,
        display_name: displayName,
        display_name_slug: slug,
        updated_at: this.now(),
      })
      .where('id', '=', local.id)
      .where('provider', '=', 'local')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  private async insert(u: {
    provider: string;
    subject: string;
    email: string;
    displayName: string;
    role: Role;
    roleSource: RoleSource;
  }): Promise<User> {
    if (u.email === '' || u.email.length > 254) throw new AppError('BAD_REQUEST', 'the identity provider sent no usable email address');
    const id = randomUUID();
    const now = this.now();
    const slug = await this.users.freeDisplayNameSlug(u.displayName, id);
    await this.db
      .insertInto('users')
      .values({
        id,
        provider: u.provider,
        subject: u.subject,
        email: u.email,
        display_name: u.displayName,
        display_name_slug: slug,
        role: u.role,
        role_source: u.roleSource,
        created_at: now,
        updated_at: now,
      })
      .execute();
    return (await this.users.findById(id))!;
  }
}
