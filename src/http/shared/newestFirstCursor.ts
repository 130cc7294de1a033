import { decodeCursor, encodeCursor } from '../../domain/keysetCursor.js';
import type { CreatedKey } from '../../store/newestFirst.js';

/**
 * The cursor of a newest-first listing (notifications, a webhook's deliveries): a row's
 * (created_at, id) key, opaque to clients. REST's `cursor` / `next_cursor` and the web pages'
 * `older=` / `newer=` addresses carry the same string.
 */
export function newestFirstCursor(row: CreatedKey): string {
  return encodeCursor({ key: String(row.createdAt), id: row.id });
}

/** The key a cursor names, or undefined for anything this server did not issue. */
export function decodeNewestFirstCursor(raw: unknown): CreatedKey | undefined {
  const c = decodeCursor(raw);
  return c && /^\d{1,16}$/.test(c.key) ? { createdAt: Number(c.key), id: c.id } : undefined;
}
