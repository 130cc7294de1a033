import { brokenFile } from './format.js';
import type { ImportedRecord, ImportFormat } from './format.js';
import {
  countOf,
  csvHeader,
  domainNoter,
  hasColumns,
  isObject,
  isTableRow,
  jsonDocument,
  listOf,
  looseTime,
  rowRecord,
  shortUrlParts,
  stringOf,
  tableRows,
} from './table.js';

/**
 * Shlink (docs/import-formats.md#shlink): the web client's "Export" CSV of
 * short URLs and the REST API's short-URL list.
 */

/**
 * The web client writes `createdAt,domain,shortCode,shortUrl,longUrl,title,tags,visits`
 * with tags joined by `|`; releases before it had domains wrote
 * `createdAt,shortUrl,longUrl,title,tags,visits` with tags joined by `,`.
 */
export const shlinkCsv: ImportFormat = {
  name: 'shlink-csv',
  label: 'Shlink (web client CSV export)',
  sniff(head) {
    const header = csvHeader(head);
    return hasColumns(header, 'shorturl', 'longurl', 'createdat') ? 2 : 0;
  },
  async *parse(chunks) {
    const noteDomain = domainNoter();
    for await (const row of tableRows(chunks)) {
      if (!isTableRow(row)) {
        yield row;
        continue;
      }
      const fromUrl = shortUrlParts(row.cell('shorturl'));
      const domain = row.cell('domain') || fromUrl?.domain;
      const code = row.cell('shortcode') || fromUrl?.key || '';
      // A domain column marks the newer export, which joins tags with `|`; tag names may then hold commas.
      const tags = row.cell('tags');
      yield rowRecord({
        line: row.line,
        slug: code,
        url: row.cell('longurl'),
        title: row.cell('title'),
        tags: listOf(tags, row.cell('domain') !== '' || tags.includes('|') ? '|' : ','),
        createdAt: looseTime(row.cell('createdat')),
        sourceClicks: countOf(row.cell('visits')),
        notes: noteDomain(domain),
      });
    }
  },
};

function shortUrlsOf(doc: unknown): unknown[] | null {
  if (Array.isArray(doc)) return doc;
  if (isObject(doc) && isObject(doc.shortUrls) && Array.isArray(doc.shortUrls.data)) return doc.shortUrls.data;
  return null;
}

/** One short URL of `GET /rest/v3/short-urls` (`shortUrls.data[]`). */
function shortUrlRecord(item: unknown, line: number, noteDomain: (d: string | undefined) => string[]): ImportedRecord {
  if (!isObject(item)) return { line, error: 'expected a short URL object' };
  const meta = isObject(item.meta) ? item.meta : {};
  const visits = isObject(item.visitsSummary) ? item.visitsSummary.total : item.visitsCount;
  const notes = noteDomain(stringOf(item.domain) || undefined);
  if (typeof meta.maxVisits === 'number') notes.push(`Shlink's limit of ${meta.maxVisits} visits was dropped`);
  if (meta.validSince) notes.push('Shlink\'s "valid since" date was dropped');
  const validUntil = looseTime(meta.validUntil);
  return rowRecord({
    line,
    slug: stringOf(item.shortCode),
    url: stringOf(item.longUrl),
    title: stringOf(item.title),
    tags: Array.isArray(item.tags) ? item.tags.map(stringOf).filter((t) => t !== '') : [],
    createdAt: looseTime(item.dateCreated),
    ...(validUntil !== undefined && { expiresAt: validUntil }),
    sourceClicks: countOf(visits),
    notes,
  });
}

/** The REST list (`{"shortUrls":{"data":[…],"pagination":{…}}}`, one page or all), or a bare array of its items. */
export const shlinkJson: ImportFormat = {
  name: 'shlink-json',
  label: 'Shlink (REST API short-URL list JSON)',
  sniff(head) {
    const h = head.trimStart();
    if (!h.startsWith('{') && !h.startsWith('[')) return 0;
    if (h.includes('"shortUrls"') && h.includes('"shortCode"')) return 2;
    return h.includes('"shortCode"') && h.includes('"longUrl"') ? 1 : 0;
  },
  async *parse(chunks) {
    const doc = await jsonDocument(chunks);
    if ('error' in doc) {
      yield doc.error;
      return;
    }
    const items = shortUrlsOf(doc.value);
    if (items === null) {
      yield brokenFile({ line: 1, error: 'expected Shlink\'s short-URL list: {"shortUrls":{"data":[…]}}' });
      return;
    }
    const noteDomain = domainNoter();
    // A JSON document has no useful line numbers; rows are numbered by their place in the list.
    for (const [i, item] of items.entries()) yield shortUrlRecord(item, i + 1, noteDomain);
  },
};
