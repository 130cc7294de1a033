import { parseRfc3339 } from './timeseries.js';

/**
 * Keyset positions over `link_clicks` (clicked_at, id), as opaque cursors
 * (docs/api.md#pagination): URL-safe base64, padded, of `<sort key>` NUL `<id>`. The
 * sort key is the exact stored `clicked_at` (epoch ms), so a resume across
 * rows sharing one timestamp is exact — a bare timestamp could not say which
 * of the tied rows came last.
 */
export interface ClickPosition {
  clickedAt: number;
  id: string;
}

export function encodeClickCursor(p: ClickPosition): string {
  return Buffer.from(`${p.clickedAt}\u0000${p.id}`, 'utf8').toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
}

/** The position a cursor encodes, or null when it is not one this server issued. Padding is optional. */
export function decodeClickCursor(raw: string): ClickPosition | null {
  if (raw.length === 0 || raw.length > 200 || !/^[A-Za-z0-9_-]+={0,2}$/.test(raw)) return null;
  const bytes = Buffer.from(raw, 'base64url');
  // Node's decoder ignores trailing garbage bits; a cursor must be the canonical encoding of its bytes.
  if (bytes.toString('base64url') !== raw.replace(/=+$/, '')) return null;
  const text = bytes.toString('utf8');
  const nul = text.indexOf('\u0000');
  if (nul < 0) return null;
  const key = text.slice(0, nul);
  const id = text.slice(nul + 1);
  if (!/^-?\d{1,16}$/.test(key) || !/^[A-Za-z0-9-]{1,64}$/.test(id)) return null;
  const clickedAt = Number(key);
  return Number.isSafeInteger(clickedAt) ? { clickedAt, id } : null;
}

/**
 * The `before` parameter of the recent-clicks list (docs/analytics.md#per-link-stats): a legacy
 * bare RFC 3339 timestamp (tried first) means "strictly earlier than t"; a
 * cursor means "strictly after this position in newest-first order".
 */
export type ClicksBefore = { kind: 'time'; clickedAt: number } | { kind: 'position'; position: ClickPosition };

export function parseClicksBefore(raw: string): ClicksBefore | null {
  const t = parseRfc3339(raw);
  if (t !== null) return { kind: 'time', clickedAt: t };
  const position = decodeClickCursor(raw);
  return position ? { kind: 'position', position } : null;
}

/** `limit` of the recent-clicks list: default 50, non-numeric/zero/negative → 50, above 200 → 200. */
export function clampClicksLimit(raw: string | number | undefined | null): number {
  const n = typeof raw === 'number' ? raw : raw === undefined || raw === null || !/^\s*-?\d+\s*$/.test(raw) ? NaN : Number(raw);
  if (!Number.isFinite(n) || n <= 0) return 50;
  return Math.min(Math.floor(n), 200);
}
