import { CsvSyntaxError, readCsvChunks } from '../csvRead.js';
import { parseRfc3339 } from '../timeseries.js';
import { hasPlaceholders } from '../url.js';
import { brokenFile, type ImportedRecord } from './format.js';
import { jsonListMembers, JsonShapeError, JsonSyntaxError, type JsonListsSpec } from './jsonLists.js';

/**
 * What the CSV and JSON exports of other tools have in common
 * (docs/import-formats.md): columns found by their header names rather than
 * their position (tools reorder and add columns between versions), loose
 * dates, counts written as text, and the short code at the end of a short URL.
 */

/** One data row of a CSV file with a header, its cells found by column name. */
export interface TableRow {
  /** 1-based line on which the row starts. */
  line: number;
  /** The first non-empty cell among the named columns (case-insensitive), trimmed; '' when none. */
  cell(...names: string[]): string;
  /** As cell, but undefined when the file has none of the named columns: a field the file does not carry. */
  opt(...names: string[]): string | undefined;
}

const headerKey = (name: string): string => name.trim().toLowerCase();

/** The header names of a CSV file from its first line (lower-cased, unquoted); null when it has none. */
export function csvHeader(head: string): string[] | null {
  const first = head.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? '';
  if (!first.includes(',')) return null;
  return first.split(',').map((h) => headerKey(h.replace(/^\s*"|"\s*$/g, '')));
}

/** The first line's cells, split on commas and unquoted, as they are written (for header-less files). */
export function firstCells(head: string): string[] {
  const first = head.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? '';
  return first.split(',').map((h) => h.trim().replace(/^"|"$/g, ''));
}

/** The columns of `names` a header lacks, for refusing a file that is not the named tool's export. */
export function missingColumns(header: readonly string[] | null, ...names: string[]): string[] {
  return names.filter((n) => header === null || !header.includes(n));
}

/** True when every one of `names` is a column of the header. */
export function hasColumns(header: readonly string[] | null, ...names: string[]): boolean {
  return header !== null && names.every((n) => header.includes(n));
}

/**
 * The data rows of a CSV export, read as the chunks arrive (only an
 * unfinished record is held). A syntax error ends the file with one error
 * record naming its line, after the rows read before it.
 */
export async function* tableRows(
  chunks: AsyncIterable<string>,
  /**
   * The columns of a tool's table in their fixed order, for files written
   * without a header line (database exports often leave it out): a first row
   * naming none of them is data, read in this order.
   */
  headerless?: readonly string[],
): AsyncIterable<TableRow | ImportedRecord> {
  let columns: Map<string, number> | null = null;
  try {
    for await (const { line, fields } of readCsvChunks(chunks)) {
      if (columns === null) {
        const named = fields.map(headerKey);
        if (headerless === undefined || named.some((name) => headerless.includes(name))) {
          columns = new Map(named.map((name, i) => [name, i]));
          continue;
        }
        columns = new Map(headerless.map((name, i) => [name, i]));
      }
      if (fields.length === 1 && fields[0]!.trim() === '') continue;
      const index = columns;
      const cell = (...names: string[]) => {
        for (const name of names) {
          const i = index.get(name);
          const value = i === undefined ? undefined : fields[i]?.trim();
          if (value) return value;
        }
        return '';
      };
      yield { line, cell, opt: (...names: string[]) => (names.some((n) => index.has(n)) ? cell(...names) : undefined) };
    }
  } catch (e) {
    if (!(e instanceof CsvSyntaxError)) throw e;
    yield brokenFile({ line: e.line, error: `not valid CSV: ${e.message}` });
  }
}

export const isTableRow = (r: TableRow | ImportedRecord): r is TableRow => 'cell' in r;

/**
 * A date as these tools write it: RFC 3339 / ISO 8601 with `T` or a space,
 * with or without seconds and zone (no zone is read as UTC — YOURLS and SQL
 * dumps write the server's local time without saying which), or a date alone.
 * Undefined when blank or unreadable.
 */
export function looseTime(raw: unknown): number | undefined {
  if (typeof raw !== 'string' || raw.trim() === '') return undefined;
  const m = /^(\d{4}-\d{2}-\d{2})(?:[Tt ](\d{2}:\d{2})(:\d{2}(?:\.\d+)?)?\s*([Zz]|[+-]\d{2}:?\d{2}|UTC)?)?$/.exec(raw.trim());
  if (!m) return undefined;
  const [, date, hm, sec, zone] = m;
  const offset = !zone || zone === 'UTC' || zone === 'z' ? 'Z' : zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone;
  return parseRfc3339(`${date}T${hm ?? '00:00'}${sec ?? ':00'}${offset}`) ?? undefined;
}

/**
 * A date that decides whether a link is live (an expiry): blank is none, but
 * one written and unreadable refuses the row, as the API refuses it, rather
 * than importing the link without it and so keeping it live for ever.
 */
export function lifeTime(raw: unknown, what: string): { at: number | undefined } | { error: string } {
  if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) return { at: undefined };
  const at = looseTime(raw);
  return at === undefined ? { error: `${what} ${JSON.stringify(raw)} is not a date and time` } : { at };
}

/** A click count written as a number or as text; undefined when absent or not a whole number ≥ 0. */
export function countOf(raw: unknown): number | undefined {
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN;
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/** The host and the path after it of a short URL (`https://dub.sh/Abc` → dub.sh, `Abc`); the scheme may be missing. */
export function shortUrlParts(raw: string): { domain: string; key: string } | null {
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `https://${raw}`);
  } catch {
    return null;
  }
  const key = decodeURIComponent(url.pathname.replace(/^\/+|\/+$/g, ''));
  return key === '' ? null : { domain: url.hostname, key };
}

/**
 * Notes the domain of a row's short link when it differs from the first
 * domain seen in the file: the same key on two domains was two links in the
 * source and is one slug here.
 */
export function domainNoter(): (domain: string | undefined) => string[] {
  let first: string | undefined;
  return (domain) => {
    if (!domain) return [];
    first ??= domain;
    return domain === first ? [] : [`was a short link on ${domain} (the file's first links were on ${first})`];
  };
}

/**
 * Keeps short codes that differ only in case apart. Shlink, YOURLS, Kutt and
 * Bitly tell `abc` from `ABC`; our slugs are case-insensitive, so the first
 * code of a file keeps its name and each later one differing only in case is
 * renamed `<code>-2`, `-3`… (the first free one), with a note naming the
 * rename so the report says where it went.
 */
export function caseSeparator(tool: string): (code: string) => { slug: string; notes: string[] } {
  const seen = new Map<string, string>();
  const taken = new Set<string>();
  return (code) => {
    const folded = code.toLowerCase();
    const first = seen.get(folded);
    if (first === undefined || first === code) {
      seen.set(folded, code);
      taken.add(folded);
      return { slug: code, notes: [] };
    }
    let n = 2;
    while (taken.has(`${folded}-${n}`) || seen.has(`${folded}-${n}`)) n++;
    const slug = `${code}-${n}`;
    taken.add(slug.toLowerCase());
    return {
      slug,
      notes: [`renamed ${slug}: ${tool}'s ${code} differs from ${first} only in case, and joe-links names are case-insensitive`],
    };
  };
}

/** A list cell split on `separator`, trimmed, blanks dropped. */
export function listOf(raw: string, separator: string | RegExp): string[] {
  return raw
    .split(separator)
    .map((t) => t.trim())
    .filter((t) => t !== '');
}

/**
 * The rows of a JSON export, read as the text arrives (jsonLists.ts): each
 * member of the list `spec` names, or at the end an error record for the
 * whole file, `expected` when the document has no such list. Rows are
 * numbered by their place in the list, so a broken document is line 1.
 */
export async function* jsonRows(
  chunks: AsyncIterable<string>,
  spec: JsonListsSpec,
  expected: string,
): AsyncIterable<{ item: unknown } | { error: ImportedRecord }> {
  try {
    for await (const item of jsonListMembers(chunks, spec)) yield { item };
  } catch (e) {
    if (e instanceof JsonSyntaxError) yield { error: brokenFile({ line: 1, error: 'not valid JSON' }) };
    else if (e instanceof JsonShapeError) yield { error: brokenFile({ line: e.rowsBefore + 1, error: expected }) };
    else throw e;
  }
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export const stringOf = (v: unknown): string => (typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : '');

/** A text field of a JSON object, undefined when the object does not have it (a field the file does not carry). */
export const optStringOf = (o: Record<string, unknown>, key: string): string | undefined =>
  o[key] === undefined ? undefined : stringOf(o[key]);

/** A list cell split on `separator`, or undefined when the file has no such column. */
export const optListOf = (raw: string | undefined, separator: string | RegExp): string[] | undefined =>
  raw === undefined ? undefined : listOf(raw, separator);

/** The pieces of a link a source row gave; a field the file does not carry stays undefined. */
export interface RowLink {
  line: number;
  slug: string;
  url: string;
  /** The url is already in our syntax (a format translated the tool's templates): its `$variables` are meant. */
  urlIsTemplate?: boolean;
  title?: string;
  description?: string;
  tags?: string[];
  visibility?: string;
  /** Emails, primary owner first. */
  owners?: string[];
  createdAt?: number;
  expiresAt?: number | null;
  archivedAt?: number | null;
  /** Append the visit's extra path and query (docs/links.md#path-and-query-forwarding). */
  forwardPathAndQuery?: boolean;
  sourceClicks?: number;
  notes?: string[];
}

/** One imported record from a source row, or a row error when the row lacks a short code or destination. */
export function rowRecord(row: RowLink): ImportedRecord {
  if (row.slug === '') return { line: row.line, error: 'no short code in this row' };
  if (row.url === '') return { line: row.line, slug: row.slug, error: 'no destination URL in this row' };
  const destination = row.urlIsTemplate ? { url: row.url, notes: [] } : literalDestination(row.url);
  const notes = [...(row.notes ?? []), ...destination.notes];
  return {
    line: row.line,
    slug: row.slug,
    record: {
      slug: row.slug,
      url: destination.url,
      ...(row.title !== undefined && { title: row.title }),
      ...(row.description !== undefined && { description: row.description }),
      ...(row.tags !== undefined && { tags: row.tags }),
      ...(row.visibility !== undefined && { visibility: row.visibility }),
      ...(row.owners !== undefined && row.owners.length > 0 && { owners: row.owners }),
      ...(row.createdAt !== undefined && { createdAt: row.createdAt }),
      ...(row.expiresAt !== undefined && { expiresAt: row.expiresAt }),
      ...(row.archivedAt !== undefined && { archivedAt: row.archivedAt }),
      ...(row.forwardPathAndQuery !== undefined && { forwardPathAndQuery: row.forwardPathAndQuery }),
    },
    ...(row.sourceClicks !== undefined && { sourceClicks: row.sourceClicks }),
    ...(notes.length > 0 && { notes }),
  };
}

/**
 * A destination from a tool without templates, made to mean here what it
 * meant there (docs/import-formats.md#dollar-signs): a `$name` in it would be
 * read as a variable, so such a `$` is written `%24`, which servers read alike.
 */
export function literalDestination(url: string): { url: string; notes: string[] } {
  if (!hasPlaceholders(url)) return { url, notes: [] };
  return {
    url: url.replace(/\$(?=[a-z])/g, '%24'),
    notes: ['a $ in the destination was written %24, so that it is not read as a variable'],
  };
}
