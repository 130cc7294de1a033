import type { ImportFormat } from './format.js';
import {
  countOf,
  csvHeader,
  domainNoter,
  hasColumns,
  isTableRow,
  looseTime,
  missingColumns,
  optListOf,
  rowRecord,
  shortUrlParts,
  tableRows,
} from './table.js';

/**
 * Dub (docs/import-formats.md#dub): the CSV of Links → Export, whose columns
 * are the ones chosen in its dialog. Dub's `formatLinksForExport` labels them
 * from `exportLinksColumns`: `Short link`, `Destination URL`, `Clicks`,
 * `Leads`, `Conversions`, `Revenue`, `Created at`, `Link ID`, `Updated at`,
 * `Tags` (joined by ", "), `Archived` (`Yes` / `No`); before October 2025 the
 * export route wrote the fields' own names (`link`, `id`, `url`, `clicks`,
 * `createdAt`, `updatedAt`, `tags`, `archived` as `true` / `false`). The slug
 * is the key: the short link's path.
 */

export const dubCsv: ImportFormat = {
  name: 'dub-csv',
  label: 'Dub (links CSV export)',
  sniff(head) {
    const header = csvHeader(head);
    // Releases before October 2025 headed the columns with the fields' own names (link, url, createdAt…).
    const named = hasColumns(header, 'link', 'url') && (header!.includes('createdat') || header!.includes('clicks'));
    return hasColumns(header, 'short link', 'destination url') || named ? 2 : 0;
  },
  refusal(head) {
    const missing = missingColumns(csvHeader(head), 'short link', 'destination url');
    return `its first line is not Dub's export header (no ${missing.map((m) => `"${m}"`).join(' or ')} column)`;
  },
  async *parse(chunks) {
    const noteDomain = domainNoter();
    for await (const row of tableRows(chunks)) {
      if (!isTableRow(row)) {
        yield row;
        continue;
      }
      const short = shortUrlParts(row.cell('short link', 'link'));
      const key = row.cell('key') || short?.key || '';
      const archived = /^(true|yes|1)$/i.test(row.cell('archived'));
      const created = looseTime(row.cell('created at', 'createdat'));
      const notes = noteDomain(row.cell('domain') || short?.domain);
      // Dub only says that a link is archived; its last update is the best guess of when.
      const archivedAt = archived ? (looseTime(row.cell('updated at', 'updatedat')) ?? created) : undefined;
      if (archived && archivedAt === undefined) notes.push('was archived in Dub, with no date to archive it at; imported as active');
      yield rowRecord({
        line: row.line,
        slug: key,
        url: row.cell('destination url', 'url'),
        title: row.opt('title'),
        description: row.opt('description'),
        tags: optListOf(row.opt('tags'), ','),
        createdAt: created,
        sourceClicks: countOf(row.cell('clicks')),
        ...(archivedAt !== undefined && { archivedAt }),
        notes,
      });
    }
  },
};
