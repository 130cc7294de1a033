import type { Command } from 'commander';
import { createReadStream, createWriteStream } from 'node:fs';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { CliError, cliLinkService, cliOperator, out, requireUser, withStore } from './support.js';
import { splitAliasList } from '../domain/aliases.js';
import { isAppError } from '../domain/errors.js';
import { TOOL_NAMES } from '../domain/imports/registry.js';
import { splitTagList } from '../domain/tags.js';
import { exportLines, type ImportRow, type ImportSummary } from '../links/index.js';

/**
 * `joe-links links create|list|export|import`: create and list links through the links layer,
 * export and import them (docs/api.md#bulk-export-and-import) to move links between instances
 * or restore them as JSON Lines, and bring them in from other tools' exports
 * (docs/import-formats.md).
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

/**
 * The file to import, readable as often as the import needs (it reads the
 * whole file once to check it before writing): a path is opened again;
 * stdin is copied to a temporary file first, removed by `dispose`.
 */
async function openInput(file: string): Promise<{ open: () => AsyncIterable<Uint8Array>; dispose: () => Promise<void> }> {
  if (file === '-') {
    const dir = await mkdtemp(join(tmpdir(), 'joe-links-import-'));
    const dispose = () => rm(dir, { recursive: true, force: true });
    const path = join(dir, 'stdin');
    try {
      await pipeline(process.stdin, createWriteStream(path));
    } catch (e) {
      await dispose();
      throw e;
    }
    return { open: () => createReadStream(path), dispose };
  }
  try {
    await access(file);
  } catch (e) {
    throw new CliError(`cannot read ${file}: ${(e as Error).message}`);
  }
  return { open: () => createReadStream(file), dispose: async () => {} };
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
  return parts.join('; ');
}

export function registerLinkCommands(program: Command): void {
  const links = program.command('links').description('manage links');
  links
    .command('create')
    .description('create a link')
    .requiredOption('--slug <slug>', 'short name, e.g. jira')
    .requiredOption('--url <url>', 'destination (http/https; may contain $variables)')
    .option('--default-url <url>', 'with $variables in --url: where the link goes when visited with no value')
    .requiredOption('--owner <email>', 'email of the owning user')
    .option('--title <title>', 'title')
    .option('--description <text>', 'description')
    .option('--visibility <mode>', 'public | private | secure | internal', 'public')
    .option('--tags <list>', 'comma-separated tags')
    .option('--as <email>', 'the user the link history names as having made the change (default: the CLI alone)')
    .option('--aliases <list>', 'comma-separated more names for the link (at most 10)')
    .option('--forward', 'append a visit’s extra path and query to the destination', false)
    .action(
      async (o: {
        slug: string;
        url: string;
        defaultUrl?: string;
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
            defaultUrl: o.defaultUrl,
            title: o.title,
            description: o.description,
            visibility: o.visibility,
            tags: o.tags ? splitTagList(o.tags) : [],
            aliases: o.aliases ? splitAliasList(o.aliases) : [],
            forwardPathAndQuery: o.forward,
            ownerId: owner.id,
          });
          const aka = link.aliases.length > 0 ? `, also ${link.aliases.join(', ')}` : '';
          const fallback = link.defaultUrl !== null ? `, with no value → ${link.defaultUrl}` : '';
          out(`created ${link.slug} → ${link.url} (${link.visibility}, ${link.id}${aka}${fallback})`);
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
    .option(
      '--from <tool>',
      `the tool that wrote the file (default: detected from its content): ${TOOL_NAMES.join(', ')}; the variant (CSV, JSON…) is read from the content`,
    )
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
          run = await service.importFile(operator, input.open, {
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
      }).finally(input.dispose);
      process.stderr.write(
        `import from ${summary.format} ${summary.dryRun ? '(dry run, nothing written)' : 'finished'}: ${summaryLine(summary)}\n`,
      );
      if (ownerless > 0) {
        process.stderr.write('rows without an owner who is a user here need --owner <email>\n');
      }
      if (summary.refused > 0) process.exitCode = 1;
    });
}
