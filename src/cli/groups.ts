import type { Command } from 'commander';
import { isAppError } from '../domain/errors.js';
import { asSystem } from '../links/index.js';
import { CliError, cliLinkService, out, requireUser, withStore } from './support.js';

/**
 * `joe-links groups list|show|create|delete|add-member|remove-member` (docs/groups.md): the
 * operator manages groups as an admin does, through the links layer, so a group whose members
 * follow sign-in is refused here as on every surface (GROUP_SYNCED).
 */

const PAGE = 500;

/**
 * Runs one change, saying which group and person a refusal is about: the links layer
 * answers "group not found" or "user not found", which on a command line needs the name.
 */
async function about<T>(group: string, email: string | undefined, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (!isAppError(e)) throw e;
    if (e.code === 'NOT_FOUND' && e.field === 'email') throw new CliError(`no user with email ${email}`);
    if (e.code === 'NOT_FOUND' && e.message === 'group not found') throw new CliError(`no group named ${group}`);
    if (e.code === 'NOT_FOUND') throw new CliError(`${email} is not a member of ${group}`);
    if (e.code === 'DUPLICATE_MEMBER') throw new CliError(`${email} is already a member of ${group}`);
    throw new CliError(e.message);
  }
}

export function registerGroupCommands(program: Command): void {
  const groups = program.command('groups').description('manage groups of people that own links and receive shares');

  groups
    .command('list')
    .description('list every group by name (tab-separated: name, members, synced or manual, description)')
    .action(async () => {
      await withStore(async (store) => {
        let after: string | undefined;
        for (;;) {
          const page = await store.groups.page({ after, limit: PAGE });
          const counts = await store.groups.memberCounts(page.groups.map((g) => g.id));
          for (const g of page.groups) {
            out(`${g.name}\t${counts.get(g.id) ?? 0}\t${g.synced ? 'synced' : 'manual'}\t${g.description}`);
          }
          if (!page.hasMore) break;
          after = page.groups[page.groups.length - 1]!.name;
        }
      });
    });

  groups
    .command('show')
    .description('show a group and its members (tab-separated: email, role, name)')
    .argument('<name>', 'the group')
    .action(async (name: string) => {
      await withStore(async (store) => {
        const g = await about(name, undefined, () => cliLinkService(store).group(name));
        out(`${g.name}\t${g.synced ? 'members follow sign-in' : 'members managed by hand'}\t${g.description}`);
        for (const m of g.members) out(`${m.email}\t${m.role}\t${m.displayName}`);
      });
    });

  groups
    .command('create')
    .description('create a group')
    .argument('<name>', 'lowercase letters, digits and inner hyphens, e.g. platform-team')
    .option('--description <text>', 'what the group is')
    .option('--manager <email>', 'its first manager (default: none; admins manage it)')
    .action(async (name: string, o: { description?: string; manager?: string }) => {
      await withStore(async (store) => {
        const manager = o.manager === undefined ? undefined : await requireUser(store, o.manager);
        const g = await cliLinkService(store).createGroup(asSystem('cli'), { name, description: o.description }, manager);
        out(`created group ${g.name} (${g.id})${manager ? `, managed by ${manager.email}` : ''}`);
      });
    });

  groups
    .command('delete')
    .description('delete a group; the links it owned keep their other owners, its shares end')
    .argument('<name>', 'the group')
    .action(async (name: string) => {
      await withStore(async (store) => {
        await about(name, undefined, () => cliLinkService(store).deleteGroup(asSystem('cli'), name));
        out(`deleted group ${name}`);
      });
    });

  groups
    .command('add-member')
    .description('add someone to a group')
    .argument('<name>', 'the group')
    .argument('<email>', 'a user who exists here')
    .option('--role <role>', 'member or manager', 'member')
    .action(async (name: string, email: string, o: { role: string }) => {
      await withStore(async (store) => {
        const g = await about(name, email, () => cliLinkService(store).addGroupMember(asSystem('cli'), name, email, o.role));
        const m = g.members.find((x) => x.email.toLowerCase() === email.trim().toLowerCase());
        out(`added ${m?.email ?? email} to ${g.name} as ${m?.role ?? o.role}`);
      });
    });

  groups
    .command('remove-member')
    .description('remove someone from a group')
    .argument('<name>', 'the group')
    .argument('<email>', 'the member')
    .action(async (name: string, email: string) => {
      await withStore(async (store) => {
        await about(name, email, () => cliLinkService(store).removeGroupMember(asSystem('cli'), name, email));
        out(`removed ${email} from ${name}`);
      });
    });
}
