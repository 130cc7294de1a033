/**
 * Opaque keyset cursors of the REST list endpoints (docs/api.md#pagination): URL-safe
 * base64, padded, of `<sort key>` NUL `<id>`. The next page holds the rows
 * strictly after that position in (sort key, id) order, so rows inserted or
 * deleted between two requests never shift a page boundary the way an
 * OFFSET would.
 */

export interface KeysetPosition {
  /** The sort column's value of the last row returned (slug, tag name, display name). */
  key: string;
  id: string;
}

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

/** Far longer than any cursor this server issues (sort keys are at most a few hundred characters). */
const MAX_CURSOR_LENGTH = 4096;

export function encodeCursor(p: KeysetPosition): string {
  return Buffer.from(`${p.key}\u0000${p.id}`, 'utf8').toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
}

/**
 * The position a cursor encodes, or null when it is not one this server could
 * have issued. The lists treat null as "start at the first page"
 * (docs/api.md#pagination), so a mangled cursor never errors and never grants anything: the
 * caller's scope is applied to every page regardless.
 */
export function decodeCursor(raw: unknown): KeysetPosition | null {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > MAX_CURSOR_LENGTH) return null;
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(raw)) return null;
  const bytes = Buffer.from(raw, 'base64url');
  // Node's decoder skips stray bits and bad padding; only the canonical encoding is a cursor.
  if (bytes.toString('base64url') !== raw.replace(/=+$/, '')) return null;
  const text = bytes.toString('utf8');
  // Invalid UTF-8 turns into U+FFFD on decoding and would not encode back to the same bytes.
  if (!Buffer.from(text, 'utf8').equals(bytes)) return null;
  const nul = text.lastIndexOf('\u0000');
  // An empty key is legitimate: a user may have an empty display name.
  if (nul < 0) return null;
  const key = text.slice(0, nul);
  const id = text.slice(nul + 1);
  // Ids are UUIDs; a NUL inside the key would be refused by PostgreSQL as a parameter.
  if (!/^[0-9A-Za-z-]{1,64}$/.test(id) || key.includes('\u0000')) return null;
  return { key, id };
}

/**
 * `limit` of the keyset lists: 50 when absent, not an integer, zero or
 * negative; values above 200 are capped silently (docs/api.md#pagination).
 */
export function pageLimit(raw: unknown): number {
  if (typeof raw !== 'string' || !/^\d{1,15}$/.test(raw)) return DEFAULT_PAGE_SIZE;
  const n = Number(raw);
  if (n <= 0) return DEFAULT_PAGE_SIZE;
  return Math.min(n, MAX_PAGE_SIZE);
}

export const SUGGEST_DEFAULT_LIMIT = 5;
export const SUGGEST_MAX_LIMIT = 10;

/**
 * `limit` of the autocomplete endpoint (docs/links.md#autocomplete-and-search): default 5, above 10
 * clamped to 10; anything that is not a positive integer is refused (null).
 */
export function suggestLimit(raw: unknown): number | null {
  if (raw === undefined) return SUGGEST_DEFAULT_LIMIT;
  if (typeof raw !== 'string' || !/^\d{1,15}$/.test(raw)) return null;
  const n = Number(raw);
  if (n < 1) return null;
  return Math.min(n, SUGGEST_MAX_LIMIT);
}
