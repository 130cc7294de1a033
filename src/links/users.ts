import { validateEmail } from '../domain/email.js';
import { AppError } from '../domain/errors.js';
import { refuseNul } from '../domain/nul.js';
import type { Store } from '../store/index.js';
import type { Role, User } from '../store/types.js';
import { isUuid } from './access.js';
import { requireAdministrator, type Actor } from './actor.js';

/** A local account as an admin or the operator asks for it. */
export interface NewAccount {
  email: string;
  /** Blank or absent: the part of the email before `@`. */
  displayName?: string;
  role?: Role;
}

/**
 * The accounts admins and the operator manage (docs/auth.md#local-mode,
 * docs/auth.md#roles-and-admin-grants): the one way a local account is added
 * by hand and a role is set by hand, whether through the web admin, REST or
 * the CLI. Sign-ins make and update their own accounts (auth/, store/identities.ts).
 */
export class UserService {
  constructor(private readonly store: Pick<Store, 'users'>) {}

  /** A local account: the email rule (domain/email.ts), one account per email, a role set by hand. */
  async create(actor: Actor, input: NewAccount): Promise<User> {
    requireAdministrator(actor, 'only an admin may add users');
    refuseNul([
      ['email', input.email],
      ['name', input.displayName],
    ]);
    const email = validateEmail(input.email);
    return this.store.users.create({
      email,
      displayName: input.displayName,
      role: input.role ?? 'user',
      roleSource: 'manual',
      provider: 'local',
    });
  }

  /** A role set by hand, which configured grants never undo at a later sign-in; NOT_FOUND for an unknown id. */
  async setRole(actor: Actor, userId: string, role: Role): Promise<User> {
    requireAdministrator(actor, 'only an admin may change roles');
    if (!isUuid(userId) || !(await this.store.users.setRole(userId, role, 'manual'))) throw new AppError('NOT_FOUND', 'user not found');
    const user = await this.store.users.findById(userId);
    if (!user) throw new AppError('NOT_FOUND', 'user not found');
    return user;
  }
}
