import { AppError } from './errors.js';

/**
 * The NUL-character rule. PostgreSQL refuses NUL in text parameters, so a NUL
 * reaching a query would be an error on one database and stored data on the
 * others. No field has a use for it, so it is refused before anything is
 * written, alike on every database and with the same words on every surface:
 * the web and REST edges and MCP check whole requests, and the links layer
 * checks every link it is handed, which is how the CLI and imports meet it.
 */

const NUL = '\u0000';

export function hasNul(v: string): boolean {
  return v.includes(NUL);
}

/** The one message for a field holding a NUL; surfaces add only their own prefix or capital. */
export function nulMessage(field: string): string {
  return `${field} must not contain NUL characters`;
}

/** For showing submitted text again: a NUL becomes U+FFFD, which is what a browser would show anyway. */
export function visibleNul(v: string): string {
  return v.includes(NUL) ? v.replaceAll(NUL, '\uFFFD') : v;
}

/**
 * Where the first NUL sits in a value (strings, arrays, nested objects, keys
 * too): `tags[1]`, `link.title`; `value` for a bare string, `field name` for
 * a key. Null when there is none.
 */
export function firstNulKey(value: unknown, prefix = '', depth = 0): string | null {
  if (typeof value === 'string') return hasNul(value) ? prefix || 'value' : null;
  if (depth > 8 || typeof value !== 'object' || value === null) return null;
  const entries: Array<[string, unknown]> = Array.isArray(value)
    ? value.map((v, i) => [`${prefix}[${i}]`, v])
    : Object.entries(value).map(([k, v]) => [prefix ? `${prefix}.${k}` : k, v]);
  for (const [key, v] of entries) {
    if (hasNul(key)) return prefix || 'field name';
    const hit = firstNulKey(v, key, depth + 1);
    if (hit) return hit;
  }
  return null;
}

/** The name of the first field, in the order given, whose value holds a NUL anywhere; null when none does. */
export function firstNulField(fields: Iterable<readonly [string, unknown]>): string | null {
  for (const [name, value] of fields) if (firstNulKey(value) !== null) return name;
  return null;
}

/** Refuses the first field holding a NUL: BAD_REQUEST on that field. */
export function refuseNul(fields: Iterable<readonly [string, unknown]>): void {
  const field = firstNulField(fields);
  if (field !== null) throw new AppError('BAD_REQUEST', nulMessage(field), field);
}
