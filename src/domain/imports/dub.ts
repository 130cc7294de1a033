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
 * are the ones chosen in its dialog, labelled `Short link`, `Destination URL`,
 * `Clicks`, `Created at`, `Updated at`, `Tags` (joined by ", "), `Archived`,
 * and in newer releases `Title`, `Description`, `Link ID`, `Domain`, `Key`.
 * The slug is the key: the short link's path.
 */

export const dubCsv: ImportFormat = {
  name: 'dub-csv',
  label: 'Dub (links CSV export)',
  sniff(head) {
    return hasColumns(csvHeader(head), 'short link', 'destination url') ? 2 : 0;
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
      const short = shortUrlParts(row.cell('short link'));
      const key = row.cell('key') || short?.key || '';
      const archived = /^(true|yes|1)$/i.test(row.cell('archived'));
      const created = looseTime(row.cell('created at', 'createdat'));
      const notes = noteDomain(row.cell('domain') || short?.domain);
      // Dub only says that a link is archived; its last update is the best guess of when.
      const archivedAt = archived ? (looseTime(row.cell('updated at')) ?? created) : undefined;
      if (archived && archivedAt === undefined) notes.push('was archived in Dub, with no date to archive it at; imported as active');
      yield rowRecord({
        line: row.line,
        slug: key,
        url: row.cell('destination url'),
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
