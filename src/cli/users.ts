import type { Command } from 'commander';
import { isAppError } from '../domain/errors.js';
import { asSystem, UserService, type UserDeletion } from '../links/index.js';
import type { Store } from '../store/index.js';
import type { User } from '../store/types.js';
import { CliError, cliLinkService, out, withStore } from './support.js';

/**
 * `joe-links users create|list|delete`: local accounts, made through the same UserService the
 * web admin uses, and removed through the same deletion as the admin pages and REST
 * (docs/auth.md#deleting-a-user).
 */

async function userByEmailOrId(store: Store, who: string): Promise<User> {
  const user = who.includes('@') ? await store.users.findByEmail(who) : await store.users.findById(who.trim());
  if (!user) throw new CliError(`no user with ${who.includes('@') ? 'email' : 'id'} ${who}`);
  return user;
}

/** Where the deleted user's links went, one line each, as the REST answer counts them. */
export function deletionLines(user: User, d: UserDeletion): string[] {
  const lines = [`deleted ${user.email} (${user.id})`];
  if (d.linkAction === 'reassign') {
    lines.push(`${d.toSuccessor} link(s) they were primary owner of went to ${d.successor?.email ?? 'the successor'}`);
    lines.push(`${d.toCoOwners} link(s) they were primary owner of went to a co-owner`);
    lines.push(`${d.groupsHandedOver} group(s) they managed alone are now managed by ${d.successor?.email ?? 'the successor'}`);
  } else {
    lines.push(`${d.deletedLinks} link(s) they were primary owner of were deleted`);
  }
  lines.push(`${d.coOwnedLinks} link(s) they co-owned lost them as co-owner`);
  return lines;
}
export function registerUserCommands(program: Command): void {
  const users = program.command('users').description('manage users');
  users
    .command('create')
    .description('create a local user')
    .requiredOption('--email <email>', 'email address')
    .option('--name <name>', 'display name (default: the part of the email before @)')
    .option('--admin', 'grant the admin role', false)
    .action(async (o: { email: string; name?: string; admin: boolean }) => {
      await withStore(async (store) => {
        const user = await new UserService(store).create(asSystem('cli'), {
          email: o.email,
          displayName: o.name,
          role: o.admin ? 'admin' : 'user',
        });
        out(`created ${user.role} ${user.email} (${user.id})`);
      });
    });
  users
    .command('list')
    .description('list users')
    .action(async () => {
      await withStore(async (store) => {
        for (const u of await store.users.listAll()) out(`${u.email}\t${u.role}\t${u.displayName}\t${u.id}`);
      });
    });
  users
    .command('delete')
    .description('delete a user; the links they were primary owner of go to a co-owner or the successor, or are deleted')
    .argument('<email-or-id>', 'the user to delete')
    .option('--successor <email>', 'who takes over their links no other person owns, their shares and the groups they managed alone')
    .option('--delete-links', 'delete the links they were primary owner of instead', false)
    .action(async (who: string, o: { successor?: string; deleteLinks: boolean }) => {
      if (o.deleteLinks && o.successor !== undefined) {
        throw new CliError('--successor and --delete-links exclude each other: a successor takes over the links');
      }
      await withStore(async (store) => {
        const user = await userByEmailOrId(store, who);
        let result: UserDeletion;
        try {
          result = await cliLinkService(store).deleteUser(asSystem('cli'), user.id, {
            linkAction: o.deleteLinks ? 'delete' : o.successor !== undefined ? 'reassign' : undefined,
            successor: o.successor,
          });
        } catch (e) {
          if (!isAppError(e)) throw e;
          if (e.field === 'link_action') {
            throw new CliError(
              `${user.email} is primary owner of links: pass --successor <email> to hand them on, or --delete-links to delete them`,
            );
          }
          if (e.field === 'successor' && e.code === 'NOT_FOUND') throw new CliError(`no user with email ${o.successor} (--successor)`);
          throw new CliError(e.field === 'successor' ? `--successor: ${e.message}` : e.message);
        }
        for (const line of deletionLines(user, result)) out(line);
      });
    });
}
