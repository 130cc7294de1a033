import type { ImportFormat } from './format.js';
import {
  caseSeparator,
  countOf,
  csvHeader,
  domainNoter,
  hasColumns,
  isTableRow,
  listOf,
  looseTime,
  optListOf,
  rowRecord,
  shortUrlParts,
  tableRows,
} from './table.js';

/**
 * Bitly (docs/import-formats.md#bitly): the CSV that Links → Export mails or
 * downloads. Its columns have been renamed over the years, so each is looked
 * up under every name it has had: the bitlink (`Link`, `Bitlink`, `link`),
 * the branded back-half (`Custom Link`, `Custom Bitlinks`), the destination
 * (`Destination URL`, `Long URL`, `long_url`), `Title`, `Date Created` /
 * `created_at`, `Tags`, and clicks (`Clicks`, `Engagements`, `Total Clicks`).
 * The slug is the custom back-half when there is one, else the bitlink's
 * generated code.
 */

const LINK = ['link', 'bitlink', 'short link'];
const CUSTOM = ['custom link', 'custom links', 'custom bitlink', 'custom bitlinks', 'custom_bitlinks'];
const DESTINATION = ['destination url', 'long url', 'long_url'];

export const bitlyCsv: ImportFormat = {
  name: 'bitly-csv',
  label: 'Bitly (links CSV export)',
  sniff(head) {
    const header = csvHeader(head);
    if (header === null || header.includes('short link')) return 0; // Dub's export names its columns "Short link" / "Destination URL".
    const has = (names: string[]) => names.some((n) => header.includes(n));
    if (has(CUSTOM) && has(DESTINATION)) return 2;
    if (hasColumns(header, 'long_url', 'link') || (header.includes('bitlink') && has(DESTINATION))) return 2;
    return has(LINK) && has(DESTINATION) ? 1 : 0;
  },
  refusal(head) {
    const header = csvHeader(head) ?? [];
    const lacking = [LINK, DESTINATION].filter((names) => !names.some((n) => header.includes(n))).map((names) => `"${names[0]}"`);
    return `its first line is not Bitly's export header (no ${lacking.length > 0 ? lacking.join(' or ') : '"link" and "long url"'} column)`;
  },
  async *parse(chunks) {
    const noteDomain = domainNoter();
    const separate = caseSeparator('Bitly');
    for await (const row of tableRows(chunks)) {
      if (!isTableRow(row)) {
        yield row;
        continue;
      }
      // A custom link cell may list several back-halves; the first names the link.
      const custom = shortUrlParts(listOf(row.cell(...CUSTOM), /[,\s]+/)[0] ?? '');
      const bitlink = shortUrlParts(row.cell(...LINK));
      const chosen = custom ?? bitlink;
      const named = separate(chosen?.key ?? '');
      const notes = [...noteDomain(chosen?.domain), ...named.notes];
      if (!custom && bitlink) notes.push(`Bitly's generated code ${bitlink.key} became the slug`);
      yield rowRecord({
        line: row.line,
        slug: named.slug,
        url: row.cell(...DESTINATION),
        title: row.opt('title'),
        tags: optListOf(row.opt('tags'), ','),
        createdAt: looseTime(row.cell('date created', 'created', 'created_at', 'created at')),
        sourceClicks: countOf(row.cell('clicks', 'engagements', 'total clicks', 'total engagements')),
        notes,
      });
    }
  },
};
