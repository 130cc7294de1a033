#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { registerAuthCommands } from './cliAuth.js';
import { registerDoctorCommand } from './cliDoctor.js';
import { registerLinkTransferCommands } from './cliLinks.js';
import { registerMaintenanceCommands } from './cliMaintenance.js';
import { ConfigError, loadConfig } from './config.js';
import { MigrationError, migrateDownOne, migrateUp, migrationStatus } from './db/migrate.js';
import { splitAliasList } from './domain/aliases.js';
import { isAppError } from './domain/errors.js';
import { splitTagList } from './domain/tags.js';
import { asSystem, UserService } from './links/index.js';
import { CliError, cliLinkService, cliOperator, out, requireUser, withStore } from './cliSupport.js';
import type { RunningServer } from './server.js';
import { tuneV8ForServing } from './v8Tuning.js';

export function buildCli(): Command {
  const program = new Command('joe-links')
    .description('Self-hosted go links: short memorable slugs that redirect to long URLs.')
    .showHelpAfterError()
    .exitOverride();

  program
    .command('serve')
    .description('apply pending migrations and start the HTTP server')
    .action(async () => {
      const config = loadConfig();
      tuneV8ForServing();
      // Listened for from the start: as a container's PID 1 the process has no default action for
      // SIGTERM, so a stop during migrations would otherwise go unheard (docs/operations.md#shutdown).
      let server: RunningServer | null = null;
      let signalledDuringStart: string | null = null;
      const stop = (signal: string) => {
        if (!server) {
          signalledDuringStart = signal;
          return;
        }
        const running = server;
        running.app.log.info(`${signal} received, shutting down`);
        running.close().then(
          () => process.exit(0),
          (e) => {
            running.app.log.error(`shutdown failed: ${(e as Error).message}`);
            process.exit(1);
          },
        );
      };
      process.once('SIGTERM', () => stop('SIGTERM'));
      process.once('SIGINT', () => stop('SIGINT'));
      // Loaded only here: the other commands start in a fraction of the time without the web stack.
      const { startServer } = await import('./server.js');
      const { consoleStyle, serverLoggerOptions } = await import('./logging.js');
      const style = consoleStyle(config.logFormat, process.stdout);
      server = await startServer(config, {
        localBootstrap: true,
        logger: serverLoggerOptions(config.logLevel, style),
        bannerStyle: { decorated: style.format === 'pretty', colors: style.colors },
      });
      if (signalledDuringStart) stop(`${signalledDuringStart} (during startup)`);
    });

  program
    .command('migrate')
    .description('apply pending migrations (up), list them (status), or revert the latest (down)')
    .argument('[action]', 'up | status | down', 'up')
    .action(async (action: string) => {
      await withStore(
        async (_store, db) => {
          if (action === 'up') {
            const applied = await migrateUp(db);
            for (const name of applied) out(`applied ${name}`);
            out('migrations complete');
          } else if (action === 'status') {
            const s = await migrationStatus(db);
            for (const name of s.applied) out(`applied  ${name}`);
            for (const name of s.pending) out(`pending  ${name}`);
            for (const name of s.unknown) out(`unknown  ${name} (recorded by a newer build)`);
          } else if (action === 'down') {
            const reverted = await migrateDownOne(db);
            out(reverted.length ? `reverted ${reverted.join(', ')}` : 'no migration to revert');
          } else {
            throw new CliError(`unknown migrate action "${action}": use up, status or down`);
          }
        },
        { migrate: false },
      );
    });

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

  const links = program.command('links').description('manage links');
  links
    .command('create')
    .description('create a link')
    .requiredOption('--slug <slug>', 'short name, e.g. jira')
    .requiredOption('--url <url>', 'destination (http/https; may contain $variables)')
    .requiredOption('--owner <email>', 'email of the owning user')
    .option('--title <title>', 'title')
    .option('--description <text>', 'description')
    .option('--visibility <mode>', 'public | private | secure', 'public')
    .option('--tags <list>', 'comma-separated tags')
    .option('--as <email>', 'the user the link history names as having made the change (default: the CLI alone)')
    .option('--aliases <list>', 'comma-separated more names for the link (at most 10)')
    .option('--forward', 'append a visit’s extra path and query to the destination', false)
    .action(
      async (o: {
        slug: string;
        url: string;
        owner: string;
        title?: string;
        description?: string;
        visibility: string;
        tags?: string;
        as?: string;
        aliases?: string;
        forward: boolean;
      }) => {
        await withStore(async (store) => {
          const owner = await requireUser(store, o.owner);
          const link = await cliLinkService(store).create(await cliOperator(store, o.as), {
            slug: o.slug,
            url: o.url,
            title: o.title,
            description: o.description,
            visibility: o.visibility,
            tags: o.tags ? splitTagList(o.tags) : [],
            aliases: o.aliases ? splitAliasList(o.aliases) : [],
            forwardPathAndQuery: o.forward,
            ownerId: owner.id,
          });
          const aka = link.aliases.length > 0 ? `, also ${link.aliases.join(', ')}` : '';
          out(`created ${link.slug} → ${link.url} (${link.visibility}, ${link.id}${aka})`);
        });
      },
    );
  links
    .command('list')
    .description('list every link')
    .action(async () => {
      await withStore(async (store) => {
        let after: string | undefined;
        for (;;) {
          const page = await store.links.list({ scope: 'all', viewer: null, afterSlug: after, limit: 500 });
          for (const l of page.links) {
            const owner = l.owners.find((o) => o.isPrimary)?.email ?? '';
            out(`${l.slug}\t${l.visibility}\t${l.url}\t${owner}\t${l.tags.map((t) => t.name).join(',')}`);
          }
          if (!page.hasMore) break;
          after = page.links[page.links.length - 1]!.slug;
        }
      });
    });

  registerLinkTransferCommands(links);
  registerMaintenanceCommands(program);
  registerAuthCommands(program);
  registerDoctorCommand(program);
  return program;
}

/** Turns any failure into one clear line on stderr. */
export function describeError(e: unknown): string {
  if (e instanceof ConfigError || e instanceof CliError || e instanceof MigrationError) return e.message;
  if (isAppError(e)) return e.message;
  const err = e as NodeJS.ErrnoException;
  if (err?.code === 'ECONNREFUSED') return `cannot connect to the database: ${err.message}`;
  return err?.message ?? String(e);
}

async function main(argv: string[]): Promise<void> {
  try {
    await buildCli().parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) process.exit(e.exitCode);
    process.stderr.write(`joe-links: ${describeError(e)}\n`);
    process.exit(1);
  }
}

await main(process.argv);
