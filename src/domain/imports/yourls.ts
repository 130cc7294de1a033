import { readCsv } from '../csvRead.js';
import { linesOf, type ImportedRecord, type ImportFormat } from './format.js';
import {
  caseSeparator,
  countOf,
  csvHeader,
  hasColumns,
  isObject,
  isTableRow,
  jsonRows,
  looseTime,
  missingColumns,
  optStringOf,
  rowRecord,
  shortUrlParts,
  stringOf,
  tableRows,
} from './table.js';

/**
 * YOURLS (docs/import-formats.md#yourls): its `yourls_url` table exported as
 * CSV (`keyword,url,title,timestamp,ip,clicks`, phpMyAdmin's default leaves
 * the header out), as `mysql --batch` writes it (tab-separated), and the JSON
 * of its API's `stats` action (`{"links":{"link_1":{shorturl,url,title,timestamp,ip,clicks}},…}`),
 * which plugins' `list` actions answer in the same shape or as an array.
 * Its timestamps carry no zone and are read as UTC.
 */

/** The columns of `yourls_url` in table order (YOURLS' `yourls_create_sql_tables`). */
const TABLE = ['keyword', 'url', 'title', 'timestamp', 'ip', 'clicks'] as const;

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}$/;

/** A first row that is a `yourls_url` row itself, not a header: a URL second, a timestamp fourth, clicks last. */
function isTableData(cells: readonly string[]): boolean {
  return (
    cells.length === TABLE.length &&
    /^[a-z][a-z0-9+.-]*:/i.test(cells[1] ?? '') &&
    TIMESTAMP.test(cells[3] ?? '') &&
    /^\d+$/.test(cells[5] ?? '')
  );
}

function firstCsvRow(head: string): string[] {
  const first = head.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? '';
  try {
    for (const { fields } of readCsv(first)) return fields;
  } catch {
    // Not CSV at all: no cells.
  }
  return [];
}

export const yourlsCsv: ImportFormat = {
  name: 'yourls-csv',
  label: 'YOURLS (yourls_url table as CSV)',
  sniff(head) {
    const header = csvHeader(head);
    if (hasColumns(header, 'keyword', 'url', 'timestamp')) return 2;
    if (isTableData(firstCsvRow(head))) return 2;
    return hasColumns(header, 'keyword', 'url') ? 1 : 0;
  },
  refusal(head) {
    const missing = missingColumns(csvHeader(head), 'keyword', 'url');
    return `its first line is neither the yourls_url header (no ${missing.map((m) => `"${m}"`).join(' or ')} column) nor a row of that table (${TABLE.join(',')})`;
  },
  async *parse(chunks) {
    const separate = caseSeparator('YOURLS');
    for await (const row of tableRows(chunks, TABLE)) {
      if (!isTableRow(row)) {
        yield row;
        continue;
      }
      const named = separate(row.cell('keyword'));
      yield rowRecord({
        line: row.line,
        slug: named.slug,
        notes: named.notes,
        url: row.cell('url'),
        // `title` is NULL-able in yourls_url; phpMyAdmin and Adminer write SQL NULL as the word NULL.
        title: row.opt('title') === 'NULL' ? '' : row.opt('title'),
        createdAt: looseTime(row.cell('timestamp')),
        sourceClicks: countOf(row.cell('clicks')),
      });
    }
  },
};

/**
 * One value as `mysql --batch` writes it: tab, newline, carriage return,
 * backslash and NUL escaped with a backslash (mysql's `--raw` off), SQL NULL
 * as the bare word `NULL`, read here as blank.
 */
function batchValue(raw: string): string {
  if (raw === 'NULL') return '';
  return raw.replace(/\\(.)/g, (_, c: string) => ({ t: '\t', n: '\n', r: '\r', '0': '\u0000', '\\': '\\' })[c] ?? c);
}

/** The first line split on tabs, when it has any. */
const tabCells = (head: string): string[] | null => {
  const first = head.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? '';
  return first.includes('\t') ? first.split('\t').map((c) => c.trim()) : null;
};

/** `mysql --batch -e 'SELECT * FROM yourls_url'`: tab-separated, a header of column names unless --skip-column-names. */
export const yourlsTsv: ImportFormat = {
  name: 'yourls-tsv',
  label: 'YOURLS (yourls_url table from mysql --batch)',
  sniff(head) {
    const cells = tabCells(head);
    if (cells === null) return 0;
    const names = cells.map((c) => c.toLowerCase());
    if (names.includes('keyword') && names.includes('url')) return 2;
    return isTableData(cells) ? 2 : 0;
  },
  refusal() {
    return `it is not tab-separated with the yourls_url columns (${TABLE.join(', ')})`;
  },
  async *parse(chunks) {
    const separate = caseSeparator('YOURLS');
    let columns: Map<string, number> | null = null;
    for await (const { line, text } of linesOf(chunks)) {
      const cells = (line === 1 ? text.replace(/^\uFEFF/, '') : text).split('\t');
      if (columns === null) {
        const names = cells.map((c) => c.trim().toLowerCase());
        const isHeader = names.includes('keyword') || names.includes('url');
        columns = new Map((isHeader ? names : TABLE).map((name, i) => [name, i]));
        if (isHeader) continue;
      }
      if (text.trim() === '') continue;
      const index = columns;
      const cell = (name: string): string => {
        const i = index.get(name);
        return i === undefined ? '' : batchValue(cells[i] ?? '').trim();
      };
      const named = separate(cell('keyword'));
      yield rowRecord({
        line,
        slug: named.slug,
        notes: named.notes,
        url: cell('url'),
        ...(index.has('title') && { title: cell('title') }),
        createdAt: looseTime(cell('timestamp')),
        sourceClicks: countOf(cell('clicks')),
      });
    }
  },
};

function linkRecord(item: unknown, line: number, separate: ReturnType<typeof caseSeparator>): ImportedRecord {
  if (!isObject(item)) return { line, error: 'expected a link object' };
  const named = separate(stringOf(item.keyword) || shortUrlParts(stringOf(item.shorturl))?.key || '');
  return rowRecord({
    line,
    slug: named.slug,
    notes: named.notes,
    url: stringOf(item.url),
    title: optStringOf(item, 'title'),
    createdAt: looseTime(item.timestamp),
    sourceClicks: countOf(item.clicks),
  });
}

/** Where the rows are: `links`, an object of `link_1`, `link_2`… (in the file's order), or an array. */
const LINKS = { paths: [['links']], objects: true };

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
    const separate = caseSeparator('YOURLS');
    let n = 0;
    const expected = 'expected YOURLS API JSON with a "links" object (action=stats or list, format=json)';
    for await (const row of jsonRows(chunks, LINKS, expected)) yield 'error' in row ? row.error : linkRecord(row.item, ++n, separate);
  },
};
