import { CsvSyntaxError, readCsv, type CsvRecord } from './csvRead.js';
import { splitTagList } from './tags.js';
import { parseRfc3339 } from './timeseries.js';

/**
 * The bulk formats of `joe-links links export|import` and
 * `GET /api/v1/links/export` (docs/api.md#bulk-export-and-import): JSON Lines with one link per
 * line, or CSV with the header `slug,url,title,description,tags`. Parsing
 * checks shapes only; the link rules themselves are applied by the store when
 * a record is imported, exactly as for any other write.
 */

/**
 * A link as a bulk file describes it. Fields the file does not carry are
 * undefined ("leave as is" on an update, empty on a create), so re-importing a
 * file never blanks what was set here since.
 */
export interface LinkRecord {
  slug: string;
  url: string;
  /** Undefined when the file does not carry it: an update keeps what is stored, a new link has none. */
  title?: string;
  description?: string;
  visibility?: string;
  tags?: string[];
  /** Emails, primary owner first. */
  owners?: string[];
  expiresAt?: number | null;
  archivedAt?: number | null;
  healthChecksDisabled?: boolean;
  createdAt?: number;
  /** More names of the link (docs/links.md#aliases); undefined: leave as is. */
  aliases?: string[];
  /** Append the visit's extra path and query to the destination (docs/links.md#path-and-query-forwarding). */
  forwardPathAndQuery?: boolean;
  /** A templated link's destination when visited with no value (docs/links.md#default-destination); null: none, undefined: leave as is. */
  defaultUrl?: string | null;
}

/** A record's text fields in the order its rules are checked: what the NUL rule (domain/nul.ts) looks at. */
export function recordText(r: LinkRecord): Array<readonly [string, unknown]> {
  return [
    ['slug', r.slug],
    ['url', r.url],
    ['default_url', r.defaultUrl],
    ['title', r.title],
    ['description', r.description],
    ['tags', r.tags],
    ['aliases', r.aliases],
    ['visibility', r.visibility],
    ['owners', r.owners],
  ];
}

export interface ParsedRecord {
  /** 1-based line where the record starts. */
  line: number;
  /** The slug as written, when one could be read (for the report). */
  slug?: string;
  record?: LinkRecord;
  error?: string;
}

/** The one line the export writes for a link. */
export interface LinkExportLine {
  slug: string;
  url: string;
  title: string;
  description: string;
  visibility: string;
  tags: string[];
  owners: string[];
  expires_at: string | null;
  archived_at: string | null;
  health_checks_disabled: boolean;
  aliases: string[];
  forward_path_and_query: boolean;
  default_url: string | null;
  created_at: string;
}

export const CSV_COLUMNS = ['slug', 'url', 'title', 'description', 'tags'] as const;

class FieldError extends Error {}

function str(o: Record<string, unknown>, key: string, required: boolean): string {
  const v = o[key];
  if (v === undefined || v === null) {
    if (required) throw new FieldError(`${key} is required`);
    return '';
  }
  if (typeof v !== 'string') throw new FieldError(`${key} must be a string`);
  return v;
}

/** An optional text field: undefined when the line does not have it, '' for null. */
function optStr(o: Record<string, unknown>, key: string): string | undefined {
  return o[key] === undefined ? undefined : str(o, key, false);
}

function strings(o: Record<string, unknown>, key: string): string[] | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw new FieldError(`${key} must be an array of strings`);
  return v as string[];
}

function time(o: Record<string, unknown>, key: string): number | null | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (v === null) return null;
  const t = typeof v === 'string' ? parseRfc3339(v) : null;
  if (t === null) throw new FieldError(`${key} must be an RFC 3339 date-time or null`);
  return t;
}

/** Parses one JSON line; unknown keys are ignored, as on the API. */
export function parseJsonRecord(text: string): LinkRecord {
  let o: unknown;
  try {
    o = JSON.parse(text);
  } catch {
    throw new FieldError('not valid JSON');
  }
  if (typeof o !== 'object' || o === null || Array.isArray(o)) throw new FieldError('expected a JSON object');
  const r = o as Record<string, unknown>;
  const hc = r.health_checks_disabled;
  if (hc !== undefined && hc !== null && typeof hc !== 'boolean') throw new FieldError('health_checks_disabled must be true or false');
  const forward = r.forward_path_and_query;
  if (forward !== undefined && forward !== null && typeof forward !== 'boolean') {
    throw new FieldError('forward_path_and_query must be true or false');
  }
  const visibility = r.visibility === undefined || r.visibility === null ? undefined : str(r, 'visibility', false);
  const createdAt = time(r, 'created_at');
  return {
    slug: str(r, 'slug', true),
    url: str(r, 'url', true),
    title: optStr(r, 'title'),
    description: optStr(r, 'description'),
    visibility,
    tags: r.tags === null ? [] : strings(r, 'tags'),
    owners: strings(r, 'owners'),
    expiresAt: time(r, 'expires_at'),
    archivedAt: time(r, 'archived_at'),
    healthChecksDisabled: typeof hc === 'boolean' ? hc : undefined,
    createdAt: createdAt ?? undefined,
    aliases: strings(r, 'aliases'),
    forwardPathAndQuery: typeof forward === 'boolean' ? forward : undefined,
    defaultUrl: r.default_url === undefined ? undefined : r.default_url === null ? null : str(r, 'default_url', false),
  };
}

const slugOf = (text: string): string | undefined => /"slug"\s*:\s*"([^"\\]{1,200})"/.exec(text)?.[1];

/** One line of a JSON Lines file: its record, or its error; null for a blank line. */
export function parseJsonLine(text: string, line: number): ParsedRecord | null {
  if (text.trim() === '') return null;
  try {
    const record = parseJsonRecord(text);
    return { line, slug: record.slug, record };
  } catch (e) {
    if (!(e instanceof FieldError)) throw e;
    return { line, slug: slugOf(text), error: e.message };
  }
}

/**
 * CSV with a header row naming the columns: `slug` and `url` are required,
 * `title`, `description` and `tags` (comma-separated inside the field)
 * optional, in any order. A malformed file throws CsvSyntaxError; a row
 * with the wrong number of fields is refused on its own.
 */
export function parseLinksCsv(text: string): ParsedRecord[] {
  const read = linksCsvReader();
  const out: ParsedRecord[] = [];
  for (const r of readCsv(text)) {
    const parsed = read(r);
    if (parsed) out.push(parsed);
  }
  return out;
}

/**
 * The reader behind parseLinksCsv, one CSV record at a time (so a file can be
 * read as it streams): the first record is the header, checked as described
 * there (null is returned for it); each later one is a ParsedRecord.
 */
export function linksCsvReader(): (record: CsvRecord) => ParsedRecord | null {
  let header: string[] | null = null;
  const col = (fields: string[], name: string) => {
    const i = header!.indexOf(name);
    return i === -1 ? '' : fields[i]!;
  };
  // A column the header does not name is not carried by the file: left undefined, so an update keeps it.
  const optional = (fields: string[], name: string) => (header!.includes(name) ? col(fields, name) : undefined);
  return ({ line, fields }) => {
    if (header === null) {
      header = checkedHeader(fields, line);
      return null;
    }
    const slug = col(fields, 'slug');
    if (fields.length !== header.length) {
      return { line, slug: fields[header.indexOf('slug')], error: `expected ${header.length} fields, found ${fields.length}` };
    }
    if (slug === '') return { line, error: 'slug is required' };
    const url = col(fields, 'url');
    if (url === '') return { line, slug, error: 'url is required' };
    return {
      line,
      slug,
      record: {
        slug,
        url,
        title: optional(fields, 'title'),
        description: optional(fields, 'description'),
        tags: header.includes('tags') ? splitTagList(col(fields, 'tags')) : undefined,
      },
    };
  };
}

function checkedHeader(fields: string[], line: number): string[] {
  const header = fields.map((h) => h.trim().toLowerCase());
  for (const h of header) {
    if (!(CSV_COLUMNS as readonly string[]).includes(h)) {
      throw new CsvSyntaxError(`unknown column "${h}" (the header is ${CSV_COLUMNS.join(',')})`, line);
    }
  }
  for (const required of ['slug', 'url']) {
    if (!header.includes(required)) throw new CsvSyntaxError(`the header has no "${required}" column`, line);
  }
  if (new Set(header).size !== header.length) throw new CsvSyntaxError('a column is named twice', line);
  return header;
}
