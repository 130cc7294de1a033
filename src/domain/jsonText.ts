/**
 * What makes JSON text acceptable input (docs/api.md#request-bodies): UTF-8
 * without a malformed sequence, and no string (value or object key) that a
 * `\uXXXX` escape left holding half a surrogate pair. Such text has no
 * Unicode meaning; each database would store it differently (SQLite keeps
 * the bytes, PostgreSQL one U+FFFD), so it is refused instead.
 */

// Fatal: a malformed sequence is an error, not U+FFFD. ignoreBOM keeps a
// leading BOM in the text, so the JSON parser decides about it as before.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The bytes as text, or null when they are not valid UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

/** Whether the bytes hold JSON whitespace (space, tab, CR, LF) only, or nothing. */
export function isBlankJson(bytes: Uint8Array): boolean {
  for (const b of bytes) if (b !== 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d) return false;
  return true;
}

/**
 * Whether any string in a parsed JSON value, or any key of its objects, at
 * any depth, holds a lone surrogate. Walks with its own stack, so nesting as
 * deep as the parser allows cannot overflow the call stack.
 */
export function holdsLoneSurrogate(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const v = pending.pop();
    if (typeof v === 'string') {
      if (!v.isWellFormed()) return true;
    } else if (Array.isArray(v)) {
      for (const item of v) pending.push(item);
    } else if (typeof v === 'object' && v !== null) {
      for (const [key, item] of Object.entries(v)) {
        if (!key.isWellFormed()) return true;
        pending.push(item);
      }
    }
  }
  return false;
}
