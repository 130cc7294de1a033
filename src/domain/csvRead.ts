import { CsvError, Parser, type Info, type Options } from 'csv-parse';
import { parse as parseWhole } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';

/**
 * The CSV reader of every CSV import (`joe-links links import`, the import
 * page and `POST /api/v1/links/import`), on csv-parse. RFC 4180: fields are
 * separated by commas and records by CRLF, LF or a lone CR; a field in double
 * quotes may hold commas, line breaks and doubled quotes (`""` is one `"`).
 * It is strict where guessing would silently corrupt data: a quote inside an
 * unquoted field, text after a closing quote, or a quote left open at the end
 * of the file is an error naming the line, never a best-effort parse. Rows
 * may differ in their number of fields (the formats refuse such a row on its
 * own), and empty lines are no records.
 */

export class CsvSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(`line ${line}: ${message}`);
    this.name = 'CsvSyntaxError';
  }
}

export interface CsvRecord {
  /** 1-based line on which the record starts (a quoted field may span several). */
  line: number;
  fields: string[];
}

const OPTIONS = {
  bom: true,
  record_delimiter: ['\r\n', '\n', '\r'],
  relax_column_count: true,
  skip_empty_lines: true,
} satisfies Options;

/** What each of the parser's syntax errors means to someone fixing the file. */
const MESSAGES: Partial<Record<string, string>> = {
  CSV_QUOTE_NOT_CLOSED: 'quoted field is not closed',
  CSV_INVALID_CLOSING_QUOTE: 'unexpected text after a closing quote',
  INVALID_OPENING_QUOTE: 'a field containing " must be quoted (and the quote doubled)',
};

/**
 * The line numbers of one parse. csv-parse's own line count (`info.lines`)
 * is where a record ends, and it counts every CR inside a quoted field as a
 * line of its own (a CRLF there as two), so a file with such a field would
 * be numbered wrongly from there on. Lines are counted here instead: a record
 * starts on the line after the previous one ended, past the empty lines the
 * parser skipped in between, and ends as many lines further as its fields
 * hold LFs (only a quoted field can hold one).
 */
class LineCounter {
  /** The line the last record ended on; 0 before the first. */
  private end = 0;
  /** The parser's line count and skipped empty lines as of that record. */
  private parserLines = 0;
  private emptyLines = 0;

  record(fields: string[], info: Info): CsvRecord {
    const line = this.end + 1 + (info.empty_lines - this.emptyLines);
    let breaks = 0;
    for (const field of fields) {
      for (let i = field.indexOf('\n'); i !== -1; i = field.indexOf('\n', i + 1)) breaks++;
    }
    this.end = line + breaks;
    this.parserLines = info.lines;
    this.emptyLines = info.empty_lines;
    return { line, fields };
  }

  /**
   * The error as our CsvSyntaxError. An unclosed quote names the line its
   * record starts on (the parser only notices at the end of the file); any
   * other error names the line the parser was on, counted from the start of
   * the broken record (exact unless that record has a CR in a quoted field
   * before the error).
   */
  error(e: CsvError): CsvSyntaxError {
    const skipped = Number(e.empty_lines) - this.emptyLines;
    const start = this.end + 1 + skipped;
    const into = Math.max(0, Number(e.lines) - (this.parserLines + 1 + skipped));
    return new CsvSyntaxError(MESSAGES[e.code] ?? e.message, e.code === 'CSV_QUOTE_NOT_CLOSED' ? start : start + into);
  }
}

/** The records of a whole text; a syntax error is thrown after the records before it. */
export function* readCsv(text: string): Generator<CsvRecord> {
  const lines = new LineCounter();
  const records: CsvRecord[] = [];
  let failure: unknown;
  try {
    // Each record is taken as the parser makes it, so those before an error are kept.
    parseWhole(text, {
      ...OPTIONS,
      on_record: (fields: string[], info) => {
        records.push(lines.record(fields, info));
        return null;
      },
    });
  } catch (e) {
    failure = e instanceof CsvError ? lines.error(e) : e;
  }
  yield* records;
  if (failure !== undefined) throw failure;
}

/** Quotes a field when RFC 4180 requires it (the inverse of `readCsv` for one field). */
export function csvField(value: string): string {
  return stringify([[value]], { eof: false, quote_record_delimiter: true });
}

/**
 * readCsv over text arriving in chunks (an upload or a file read piece by
 * piece), on csv-parse's stream parser: each chunk is parsed as it arrives
 * and its complete records are handed on before the next chunk is read, so
 * only an unfinished record is ever held, never the whole file.
 */
export async function* readCsvChunks(chunks: AsyncIterable<string>): AsyncGenerator<CsvRecord> {
  const lines = new LineCounter();
  let ready: CsvRecord[] = [];
  const parser = new Parser({
    ...OPTIONS,
    // Records are collected here rather than read from the stream: a stream that
    // fails drops what it had buffered, and the records before an error count.
    on_record: (fields: string[], info) => {
      ready.push(lines.record(fields, info));
      return null;
    },
  });
  // Failures reach the write and end callbacks below; the event would otherwise be unhandled.
  parser.on('error', () => {});
  const feed = (chunk: string | null) =>
    new Promise<void>((resolve, reject) => {
      const done = (e?: Error | null) => (e ? reject(e) : resolve());
      if (chunk === null) parser.end(done);
      else parser.write(chunk, done);
    });
  const take = (): CsvRecord[] => {
    const out = ready;
    ready = [];
    return out;
  };
  // The parser is handed UTF-8: a chunk cut between the halves of a surrogate
  // pair keeps its high half back for the next one, or both halves would be lost.
  let held = '';
  try {
    for await (const piece of chunks) {
      let chunk = held + piece;
      const last = chunk.charCodeAt(chunk.length - 1);
      held = last >= 0xd800 && last <= 0xdbff ? chunk.slice(-1) : '';
      if (held !== '') chunk = chunk.slice(0, -1);
      if (chunk === '') continue;
      await feed(chunk);
      yield* take();
    }
    if (held !== '') await feed(held);
    await feed(null);
    yield* take();
  } catch (e) {
    if (!(e instanceof CsvError)) throw e;
    yield* take();
    throw lines.error(e);
  } finally {
    parser.destroy();
  }
}
