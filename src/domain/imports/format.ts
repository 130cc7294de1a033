import type { ParsedRecord } from '../linkRecords.js';

/**
 * One importable file format (docs/import-formats.md). A format only
 * reads: it turns the tool's export into link records in the source's own
 * terms (slug as written, its template syntax translated or refused), and the
 * links layer then applies every rule of ours to each record, exactly as for
 * any other write. Formats are pure: no I/O beyond the text they are handed.
 */
export interface ImportFormat {
  /** The `--from` / `?from=` value, e.g. `golink`, `shlink-csv`. */
  readonly name: string;
  /** What the web page and error messages call it, e.g. "Shlink (web client CSV export)". */
  readonly label: string;
  /**
   * How sure this format is that a file starting with `head` (its first
   * 64 KiB, BOM removed) is one of its files: 0 not at all, 1 it could be (a
   * generic shape), 2 certain (a header or field names only this tool writes).
   * Detection picks the one format scoring highest; a tie at the top is refused
   * with the candidates named.
   */
  sniff(head: string): 0 | 1 | 2;
  /**
   * Why a file that `--from` says is this tool's is not one of its files
   * (e.g. the header a CSV export starts with is missing), when sniff gave 0.
   */
  refusal?(head: string): string;
  /**
   * The records of a whole file, in file order, one per link (or one error
   * per row that cannot be read). Reads its input in chunks as they come, so
   * line-based formats never hold the whole file; whole-document JSON formats
   * may buffer (uploads are size-limited before this runs).
   */
  parse(chunks: AsyncIterable<string>): AsyncIterable<ImportedRecord>;
}

/** A record as a format read it, with what the source knew that we do not store. */
export interface ImportedRecord extends ParsedRecord {
  /** The source's click total for this link, reported in the summary, never stored as clicks. */
  sourceClicks?: number;
  /** Things worth telling the operator about this row (e.g. a field that was dropped). */
  notes?: string[];
}

/** Splits text chunks into lines (without their `\r\n` / `\n`), each with its 1-based number. */
export async function* linesOf(chunks: AsyncIterable<string>): AsyncIterable<{ line: number; text: string }> {
  let rest = '';
  let line = 0;
  for await (const chunk of chunks) {
    rest += chunk;
    let nl: number;
    while ((nl = rest.indexOf('\n')) !== -1) {
      const text = rest.slice(0, nl);
      rest = rest.slice(nl + 1);
      yield { line: ++line, text: text.endsWith('\r') ? text.slice(0, -1) : text };
    }
  }
  if (rest !== '') yield { line: line + 1, text: rest.endsWith('\r') ? rest.slice(0, -1) : rest };
}

/** The whole input as one string (for whole-document JSON formats). */
export async function textOf(chunks: AsyncIterable<string>): Promise<string> {
  let text = '';
  for await (const chunk of chunks) text += chunk;
  return text;
}

/** The input is not UTF-8 text; `at` is the byte offset where decoding failed, roughly. */
export class NotUtf8Error extends Error {
  constructor(readonly at: number) {
    super('the file is not UTF-8 text');
  }
}

/**
 * Bytes as text chunks, strictly UTF-8 (a byte-order mark is kept for the
 * formats to drop): anything else is a NotUtf8Error, never replacement
 * characters in someone's links. `read` tells how many bytes were consumed
 * so far (for progress).
 */
export function decodeUtf8(bytes: AsyncIterable<Uint8Array | string>): { chunks: AsyncIterable<string>; read: () => number } {
  let read = 0;
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const decode = (piece?: Uint8Array): string => {
    try {
      return piece === undefined ? decoder.decode() : decoder.decode(piece, { stream: true });
    } catch {
      throw new NotUtf8Error(read);
    }
  };
  async function* chunks(): AsyncIterable<string> {
    for await (const piece of bytes) {
      if (typeof piece === 'string') {
        read += Buffer.byteLength(piece);
        yield piece;
        continue;
      }
      const text = decode(piece);
      read += piece.byteLength;
      if (text !== '') yield text;
    }
    const rest = decode();
    if (rest !== '') yield rest;
  }
  return { chunks: chunks(), read: () => read };
}
