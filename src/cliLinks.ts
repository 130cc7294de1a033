import type { Command } from 'commander';
import { CliError, cliLinkService, cliOperator, withStore } from './cliSupport.js';
import { readFileSync } from 'node:fs';
import { isAppError } from './domain/errors.js';
import type { ParsedRecord } from './domain/linkRecords.js';
import { jsonLines, linksCsv } from './domain/imports/ours.js';
import { exportLines } from './links/index.js';

/**
 * `joe-links links export` and `joe-links links import` (docs/api.md#bulk-export-and-import): move
 * links between instances or restore them, as JSON Lines (the export's own
 * format) or CSV (`slug,url,title,description,tags`).
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

function readInput(file: string): string {
  try {
    return readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (e) {
    throw new CliError(`cannot read ${file}: ${(e as Error).message}`);
  }
}

async function parse(text: string, format: 'jsonl' | 'csv'): Promise<ParsedRecord[]> {
  const records: ParsedRecord[] = [];
  async function* whole() {
    yield text;
  }
  for await (const r of (format === 'jsonl' ? jsonLines : linksCsv).parse(whole())) records.push(r);
  return records;
}

const label = (r: ParsedRecord) => `line ${r.line}${r.slug ? ` (${r.slug})` : ''}`;

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
      'create or update links from a JSON Lines export or a CSV file (header slug,url,title,description,tags); ' +
        'links whose slug exists are updated when they differ and skipped when not, so importing twice changes nothing',
    )
    .argument('<file>', 'the file to read, or - for stdin')
    .option('--dry-run', 'check every record and report what would happen, writing nothing', false)
    .option('--owner <email>', 'owner of CSV rows and of links whose listed owners are not users here')
    .option('--format <format>', 'jsonl or csv (default: guessed from the content)')
    .option('--as <email>', 'the user the link history names as having made the changes (default: the CLI alone)')
    .action(async (file: string, o: { dryRun: boolean; owner?: string; format?: string; as?: string }) => {
      if (o.format !== undefined && o.format !== 'jsonl' && o.format !== 'csv') {
        throw new CliError(`unknown --format "${o.format}": use jsonl or csv`);
      }
      const text = readInput(file);
      const format = (o.format as 'jsonl' | 'csv' | undefined) ?? (/^\uFEFF?\s*\{/.test(text) ? 'jsonl' : 'csv');
      if (format === 'csv' && o.owner === undefined) throw new CliError('a CSV file names no owners: pass --owner <email>');
      const records = await parse(text, format);
      const counts = { created: 0, updated: 0, skipped: 0, refused: 0 };
      await withStore(async (store) => {
        let fallbackOwnerId: string | null = null;
        if (o.owner !== undefined) {
          const owner = await store.users.findByEmail(o.owner);
          if (!owner) throw new CliError(`no user with email ${o.owner} (create one with: joe-links users create --email ${o.owner})`);
          fallbackOwnerId = owner.id;
        }
        const service = cliLinkService(store);
        const operator = await cliOperator(store, o.as);
        for (const r of records) {
          if (!r.record) {
            counts.refused++;
            await write(`refused  ${label(r)}: ${r.error}\n`);
            continue;
          }
          try {
            const outcome = await service.importRecord(operator, r.record, { fallbackOwnerId, dryRun: o.dryRun, source: format });
            counts[outcome.action]++;
            const notes = outcome.notes.length > 0 ? ` (${outcome.notes.join('; ')})` : '';
            await write(`${outcome.action.padEnd(8)} ${r.record.slug}${notes}\n`);
          } catch (e) {
            // A broken record is reported and the rest go on; anything else (the database went away) stops the import.
            if (!isAppError(e)) throw e;
            counts.refused++;
            await write(`refused  ${label(r)}: ${e.message}\n`);
          }
        }
      });
      const summary = `${counts.created} created, ${counts.updated} updated, ${counts.skipped} skipped, ${counts.refused} refused`;
      process.stderr.write(`import ${o.dryRun ? '(dry run, nothing written)' : 'finished'}: ${summary}\n`);
      if (counts.refused > 0) process.exitCode = 1;
    });
}

export { CliError };
