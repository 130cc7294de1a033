/**
 * How a visitor's value is written into a destination (docs/links.md#prefixes-and-variables):
 * percent-encoded as UTF-8 bytes, keeping what its place allows as it is.
 */

/** `value` with every character `keep` does not match written as its UTF-8 bytes, `%XX` each. */
function percentEncode(value: string, keep: RegExp): string {
  let out = '';
  for (const ch of value) {
    if (ch.length === 1 && keep.test(ch)) {
      out += ch;
      continue;
    }
    for (const byte of Buffer.from(ch, 'utf8')) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

const SEGMENT_SAFE = /[A-Za-z0-9\-_.~$&+:=@]/;
const ALL_SEGMENT_SAFE = /^[A-Za-z0-9\-_.~$&+:=@]*$/;

/** Re-encodes a decoded path segment for substitution into a template. */
export function encodeSegment(value: string): string {
  // Most values (`ABC-123`) need no escape: test before building a copy.
  return ALL_SEGMENT_SAFE.test(value) ? value : percentEncode(value, SEGMENT_SAFE);
}

const QUERY_SAFE = /^[A-Za-z0-9\-_.~]*$/;

/**
 * Encodes a decoded value for a query string: everything but the unreserved characters is
 * escaped, so `c++` becomes `c%2B%2B` (where a bare `+` reads as a space) and `a&b=c` stays
 * one value.
 */
export function encodeQueryValue(value: string): string {
  return QUERY_SAFE.test(value) ? value : percentEncode(value, QUERY_SAFE);
}
