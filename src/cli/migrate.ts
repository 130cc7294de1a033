import type { Command } from 'commander';
import { migrateDownOne, migrateUp, migrationStatus } from '../db/migrate.js';
import { CliError, out, withStore } from './support.js';

/** `joe-links migrate [up|status|down]` (docs/server.md#migrations). */
export function registerMigrateCommand(program: Command): void {
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
}
