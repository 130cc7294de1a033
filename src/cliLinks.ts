import type { Command } from 'commander';
import { createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import { CliError, cliLinkService, cliOperator, requireUser, withStore } from './cliSupport.js';
import { isAppError } from './domain/errors.js';
import { formatNames } from './domain/imports/registry.js';
import { exportLines, type ImportRow, type ImportSummary } from './links/index.js';

/**
 * `joe-links links export` and `joe-links links import` (docs/api.md#bulk-export-and-import):
 * move links between instances or restore them as JSON Lines, and bring them
 * in from other tools' exports (docs/import-formats.md).
 */

/** Writes respecting back-pressure, so a large export into a slow pipe stays flat in memory. */
function write(text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (process.stdout.write(text)) resolve();
    else {
      process.stdout.once('drain', resolve);
      process.stdout.once('error', reject);
    }
  });
}

async function openInput(file: string): Promise<AsyncIterable<Uint8Array>> {
  if (file === '-') return process.stdin;
  try {
    await access(file);
  } catch (e) {
    throw new CliError(`cannot read ${file}: ${(e as Error).message}`);
  }
  return createReadStream(file);
}

/** One line per row: the action and slug, with notes; a refused row with its line and the name the file gave it. */
export function rowLine(row: ImportRow): string {
  if (row.action === 'refused') {
    const name = row.written ?? row.slug;
    return `refused  line ${row.line}${name ? ` (${name})` : ''}: ${row.reason}`;
  }
  const notes = row.notes.length > 0 ? ` (${row.notes.join('; ')})` : '';
  return `${row.action.padEnd(8)} ${row.slug}${notes}`;
}

export function summaryLine(s: ImportSummary): string {
  const parts = [`${s.created} created, ${s.updated} updated, ${s.skipped} skipped, ${s.refused} refused`];
  if (s.sourceClicks > 0) parts.push(`${s.sourceClicks} clicks counted by the source (not stored)`);
  if (s.withoutAliases > 0) parts.push(`${s.withoutAliases} without their aliases`);
  if (s.withoutForwarding > 0) parts.push(`${s.withoutForwarding} without path forwarding`);
  return parts.join('; ');
}

export function registerLinkTransferCommands(links: Command): void {
  links
    .command('export')
    .description('write every link as JSON Lines to stdout, in slug order (e.g. joe-links links export > links.jsonl)')
    .action(async () => {
      await withStore(async (store) => {
        for await (const line of exportLines(store)) await write(`${JSON.stringify(line)}\n`);
      });
    });

  links
    .command('import')
    .description(
      'create or update links from a joe-links export, a CSV file or another tool’s export (golink, Trotto, Slash, Shlink, YOURLS, Bitly, Dub, Kutt); ' +
        'links whose slug exists are updated when they differ and skipped when not, so importing twice changes nothing',
    )
    .argument('<file>', 'the file to read, or - for stdin')
    .option('--from <format>', `the file's format (default: detected from its content): ${formatNames()}`)
    .option('--owner <email>', 'owner of links whose file names no owner, or owners who are not users here')
    .option('--dry-run', 'check every row and report what would happen, writing nothing', false)
    .option('--as <email>', 'the user the link history names as having made the changes (default: the CLI alone)')
    .action(async (file: string, o: { dryRun: boolean; owner?: string; from?: string; as?: string }) => {
      const input = await openInput(file);
      let ownerless = 0;
      const summary = await withStore(async (store) => {
        const owner = o.owner === undefined ? null : await requireUser(store, o.owner);
        const service = cliLinkService(store);
        const operator = await cliOperator(store, o.as);
        let run;
        try {
          run = await service.importFile(operator, input, {
            from: o.from,
            dryRun: o.dryRun,
            fallbackOwner: owner && { id: owner.id, label: 'the --owner user' },
            keepFileOwners: true,
          });
        } catch (e) {
          if (isAppError(e)) throw new CliError(`cannot import ${file}: ${e.message}`);
          throw e;
        }
        for await (const row of run.rows) {
          if (row.action === 'refused' && row.reason?.startsWith('no owner')) ownerless++;
          await write(`${rowLine(row)}\n`);
        }
        return run.summary;
      });
      process.stderr.write(
        `import from ${summary.format} ${summary.dryRun ? '(dry run, nothing written)' : 'finished'}: ${summaryLine(summary)}\n`,
      );
      if (ownerless > 0) {
        process.stderr.write('rows without an owner who is a user here need --owner <email>\n');
      }
      if (summary.refused > 0) process.exitCode = 1;
    });
}

export { CliError };
