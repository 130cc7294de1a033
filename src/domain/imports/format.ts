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
   * no format holds the whole file: line formats read line by line, JSON
   * documents member by member of their list (jsonLists.ts).
   */
  parse(chunks: AsyncIterable<string>): AsyncIterable<ImportedRecord>;
}

/** A record as a format read it, with what the source knew that we do not store. */
export interface ImportedRecord extends ParsedRecord {
  /** The source's click total for this link, reported in the summary, never stored as clicks. */
  sourceClicks?: number;
  /** Things worth telling the operator about this row (e.g. a field that was dropped). */
  notes?: string[];
  /**
   * When the source starts redirecting the link (Shlink's `validSince`).
   * A format has no clock, so the import decides: still ahead, the link
   * arrives archived with `note` (access never widens); past, it is dropped.
   */
  liveFrom?: { at: number; note: string };
}

/** The error records that say the file itself is broken (its structure, not one row): see brokenFile. */
const BROKEN = new WeakSet<ImportedRecord>();

/** Marks an error record as the file's own: the whole import is then refused and nothing of it is written. */
export function brokenFile(record: ImportedRecord): ImportedRecord {
  BROKEN.add(record);
  return record;
}

export const isBrokenFile = (record: ImportedRecord): boolean => BROKEN.has(record);

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

/** The input is not UTF-8 text; `line` is the 1-based line holding the first byte that is not. */
export class NotUtf8Error extends Error {
  constructor(readonly line: number) {
    super(`the file is not UTF-8 text (line ${line})`);
  }
}

const continuation = (b: number): boolean => b >= 0x80 && b <= 0xbf;

/**
 * Where the first byte that starts no valid UTF-8 sequence is, from `from`
 * on (the rules of the WHATWG decoder: no overlong forms, no surrogates,
 * nothing past U+10FFFF); `bytes.length` when a sequence is cut off at the
 * end, -1 when every byte is valid. Only asked once the decoder has refused.
 */
export function firstInvalidUtf8(bytes: Uint8Array, from = 0): number {
  let i = from;
  while (i < bytes.length) {
    const c = bytes[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) need = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      need = 2;
      if (c === 0xe0) lo = 0xa0;
      if (c === 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      need = 3;
      if (c === 0xf0) lo = 0x90;
      if (c === 0xf4) hi = 0x8f;
    } else return i;
    for (let k = 1; k <= need; k++) {
      if (i + k >= bytes.length) return bytes.length;
      const b = bytes[i + k]!;
      if (k === 1 ? b < lo || b > hi : !continuation(b)) return i;
    }
    i += need + 1;
  }
  return -1;
}

const countNewlines = (bytes: Uint8Array, end: number): number => {
  let n = 0;
  for (let i = 0; i < end; i++) if (bytes[i] === 0x0a) n++;
  return n;
};

/**
 * Bytes as text chunks, strictly UTF-8 (a byte-order mark is kept for the
 * formats to drop): anything else is a NotUtf8Error naming its line, never
 * replacement characters in someone's links. `read` tells how many bytes
 * were consumed so far (for progress).
 */
export function decodeUtf8(bytes: AsyncIterable<Uint8Array | string>): { chunks: AsyncIterable<string>; read: () => number } {
  let read = 0;
  let newlines = 0;
  // The last bytes decoded, which may hold the start of a sequence the next piece ends.
  let tail: Uint8Array = new Uint8Array(0);
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const refuse = (piece: Uint8Array): never => {
    // Decoding again from the last byte that starts a sequence in the tail: a byte 0x0A is always a line break.
    const joined = new Uint8Array(tail.length + piece.length);
    joined.set(tail);
    joined.set(piece, tail.length);
    let from = 0;
    while (from < tail.length && continuation(tail[from]!)) from++;
    const bad = firstInvalidUtf8(joined, from);
    const at = bad === -1 ? joined.length : bad;
    throw new NotUtf8Error(newlines + countNewlines(joined, at) - countNewlines(tail, tail.length) + 1);
  };
  const decode = (piece?: Uint8Array): string => {
    try {
      return piece === undefined ? decoder.decode() : decoder.decode(piece, { stream: true });
    } catch {
      return refuse(piece ?? new Uint8Array(0));
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
      for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) newlines++;
      tail = piece.subarray(Math.max(0, piece.length - 3));
      if (text !== '') yield text;
    }
    const rest = decode();
    if (rest !== '') yield rest;
  }
  return { chunks: chunks(), read: () => read };
}
