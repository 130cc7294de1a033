import { CsvSyntaxError, readCsvChunks } from '../csvRead.js';
import { linksCsvReader, parseJsonLine } from '../linkRecords.js';
import { brokenFile, linesOf, type ImportFormat } from './format.js';
import { csvHeader } from './table.js';

/**
 * joe-links' own bulk formats (docs/api.md#bulk-export-and-import) as import
 * formats, so they go through the same detection, mapping and report as any
 * other tool's: the JSON Lines of `links export`, and CSV with the header
 * `slug,url,title,description,tags`. Both are read line by line as they arrive.
 */

const firstLine = (head: string): string => head.trimStart().split('\n', 1)[0] ?? '';

export const jsonLines: ImportFormat = {
  name: 'jsonl',
  label: 'joe-links (JSON Lines export)',
  sniff(head) {
    const line = firstLine(head);
    if (!line.startsWith('{')) return 0;
    return /"slug"\s*:/.test(line) && /"url"\s*:/.test(line) ? 2 : 0;
  },
  async *parse(chunks) {
    for await (const { line, text } of linesOf(chunks)) {
      const parsed = parseJsonLine(line === 1 ? text.replace(/^\uFEFF/, '') : text, line);
      if (parsed) yield parsed;
    }
  },
};

const OUR_COLUMNS = new Set(['slug', 'url', 'title', 'description', 'tags']);

export const linksCsv: ImportFormat = {
  name: 'csv',
  label: 'joe-links (CSV: slug,url,title,description,tags)',
  sniff(head) {
    const header = csvHeader(head);
    if (header === null || !header.includes('slug') || !header.includes('url')) return 0;
    return header.every((h) => OUR_COLUMNS.has(h)) ? 2 : 0;
  },
  async *parse(chunks) {
    const read = linksCsvReader();
    try {
      for await (const record of readCsvChunks(chunks)) {
        const parsed = read(record);
        if (parsed) yield parsed;
      }
    } catch (e) {
      if (!(e instanceof CsvSyntaxError)) throw e;
      yield brokenFile({ line: e.line, error: `not valid CSV: ${e.message}` });
    }
  },
};
