import type { Command } from 'commander';
import { asSystem, UserService } from '../links/index.js';
import { out, withStore } from './support.js';

/** `joe-links users create|list`: local accounts, made through the same UserService the web admin uses. */
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
}
