import type { ImportRequest, ImportRow, LinkService } from '../../src/links/index.js';

/**
 * One whole import through the links layer, as the surfaces run it: every row read, then the
 * events it published delivered (LinkEventBus.idle), so a test sees what subscribers saw.
 */
export async function runImport(
  service: LinkService,
  actor: Parameters<LinkService['importFile']>[0],
  source: AsyncIterable<Uint8Array>,
  request: Partial<ImportRequest> = {},
) {
  const started = await service.importFile(actor, source, { dryRun: false, fallbackOwner: null, keepFileOwners: false, ...request });
  const rows: ImportRow[] = [];
  for await (const row of started.rows) rows.push(row);
  await service.events.idle();
  return { format: started.format.name, rows, summary: started.summary };
}
