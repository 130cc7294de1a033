import { brokenFile } from './format.js';
import type { ImportedRecord, ImportFormat } from './format.js';
import {
  countOf,
  csvHeader,
  hasColumns,
  isObject,
  isTableRow,
  jsonDocument,
  looseTime,
  rowRecord,
  shortUrlParts,
  stringOf,
  tableRows,
} from './table.js';

/**
 * YOURLS (docs/import-formats.md#yourls): its `yourls_url` table exported as
 * CSV (`keyword,url,title,timestamp,ip,clicks`), and the JSON of its API's
 * `stats` action (`{"links":{"link_1":{shorturl,url,title,timestamp,ip,clicks}},…}`),
 * which plugins' `list` actions answer in the same shape or as an array.
 * YOURLS keywords are already lower-case-friendly; its timestamps carry no
 * zone and are read as UTC.
 */

export const yourlsCsv: ImportFormat = {
  name: 'yourls-csv',
  label: 'YOURLS (yourls_url table as CSV)',
  sniff(head) {
    const header = csvHeader(head);
    if (hasColumns(header, 'keyword', 'url', 'timestamp')) return 2;
    return hasColumns(header, 'keyword', 'url') ? 1 : 0;
  },
  async *parse(chunks) {
    for await (const row of tableRows(chunks)) {
      if (!isTableRow(row)) {
        yield row;
        continue;
      }
      yield rowRecord({
        line: row.line,
        slug: row.cell('keyword'),
        url: row.cell('url'),
        title: row.cell('title'),
        createdAt: looseTime(row.cell('timestamp')),
        sourceClicks: countOf(row.cell('clicks')),
      });
    }
  },
};

function linkRecord(item: unknown, line: number): ImportedRecord {
  if (!isObject(item)) return { line, error: 'expected a link object' };
  const keyword = stringOf(item.keyword) || shortUrlParts(stringOf(item.shorturl))?.key || '';
  return rowRecord({
    line,
    slug: keyword,
    url: stringOf(item.url),
    title: stringOf(item.title),
    createdAt: looseTime(item.timestamp),
    sourceClicks: countOf(item.clicks),
  });
}

export const yourlsJson: ImportFormat = {
  name: 'yourls-json',
  label: 'YOURLS (API stats / list JSON)',
  sniff(head) {
    const h = head.trimStart();
    if (!h.startsWith('{')) return 0;
    if (h.includes('"links"') && /"link_\d+"/.test(h)) return 2;
    return h.includes('"links"') && h.includes('"shorturl"') ? 2 : 0;
  },
  async *parse(chunks) {
    const doc = await jsonDocument(chunks);
    if ('error' in doc) {
      yield doc.error;
      return;
    }
    const links = isObject(doc.value) ? doc.value.links : undefined;
    const items = Array.isArray(links) ? links : isObject(links) ? Object.values(links) : null;
    if (items === null) {
      yield brokenFile({ line: 1, error: 'expected YOURLS API JSON with a "links" object (action=stats or list, format=json)' });
      return;
    }
    for (const [i, item] of items.entries()) yield linkRecord(item, i + 1);
  },
};
