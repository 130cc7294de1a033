/**
 * An RFC 4180 CSV reader for `joe-links links import`. Fields are separated
 * by commas and records by CRLF or LF; a field in double quotes may hold
 * commas, line breaks and doubled quotes (`""` is one `"`). It is strict
 * where guessing would silently corrupt data: a quote inside an unquoted
 * field, text after a closing quote, or a quote left open at the end of the
 * file is an error naming the line, never a best-effort parse.
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

export function* readCsv(text: string): Generator<CsvRecord> {
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  const n = text.length;
  while (i < n) {
    const start = line;
    const fields: string[] = [];
    let quoted = false;
    // One record: fields until an unquoted line break or the end of the text.
    for (;;) {
      let value = '';
      if (text[i] === '"') {
        quoted = true;
        i++;
        for (;;) {
          if (i >= n) throw new CsvSyntaxError('quoted field is not closed', start);
          const c = text[i]!;
          if (c === '"') {
            if (text[i + 1] === '"') {
              value += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          if (c === '\n') line++;
          value += c;
          i++;
        }
        if (i < n && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r') {
          throw new CsvSyntaxError('unexpected text after a closing quote', line);
        }
      } else {
        const from = i;
        while (i < n && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r') {
          if (text[i] === '"') throw new CsvSyntaxError('a field containing " must be quoted (and the quote doubled)', line);
          i++;
        }
        value = text.slice(from, i);
      }
      fields.push(value);
      if (i < n && text[i] === ',') {
        i++;
        continue;
      }
      break;
    }
    // The line break ending the record: CRLF, LF, or a lone CR.
    if (text[i] === '\r') i++;
    if (text[i] === '\n') i++;
    line++;
    // An empty line is no record (a file may end with blank lines).
    if (fields.length === 1 && fields[0] === '' && !quoted) continue;
    yield { line: start, fields };
  }
}

/** Quotes a field when RFC 4180 requires it (the inverse of `readCsv` for one field). */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/**
 * readCsv over text arriving in chunks (an upload or a file read piece by
 * piece): only the records not yet complete are held, never the whole file.
 * A record ends at a line break outside quotes; each run of complete records
 * is read by readCsv, with its line numbers counted from the start of the file.
 */
export async function* readCsvChunks(chunks: AsyncIterable<string>): AsyncGenerator<CsvRecord> {
  let pending = '';
  let scanned = 0;
  let inQuotes = false;
  let linesBefore = 0;
  for await (const chunk of chunks) {
    pending += chunk;
    let boundary = -1;
    for (let i = scanned; i < pending.length; i++) {
      const c = pending.charCodeAt(i);
      // A doubled quote toggles twice, so the parity still says whether a field is open.
      if (c === 0x22) inQuotes = !inQuotes;
      else if (c === 0x0a && !inQuotes) boundary = i;
    }
    scanned = pending.length;
    if (boundary === -1) continue;
    const complete = pending.slice(0, boundary + 1);
    pending = pending.slice(boundary + 1);
    scanned = pending.length;
    yield* offsetLines(complete, linesBefore);
    linesBefore += countLineBreaks(complete);
  }
  if (pending !== '') yield* offsetLines(pending, linesBefore);
}

function* offsetLines(text: string, linesBefore: number): Generator<CsvRecord> {
  try {
    for (const r of readCsv(text)) yield { line: r.line + linesBefore, fields: r.fields };
  } catch (e) {
    if (e instanceof CsvSyntaxError) throw new CsvSyntaxError(e.message.replace(/^line \d+: /, ''), e.line + linesBefore);
    throw e;
  }
}

function countLineBreaks(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
