import { AppError } from './errors.js';

/** `$name` placeholders of a link template (docs/links.md#prefixes-and-variables). Greedy: `$env_id` is one token. */
export const PLACEHOLDER = /\$[a-z][a-z0-9_]*/g;

/** Distinct placeholder names in order of first appearance, `$` included. */
export function placeholderNames(url: string): string[] {
  const seen: string[] = [];
  for (const m of url.matchAll(PLACEHOLDER)) if (!seen.includes(m[0])) seen.push(m[0]);
  return seen;
}

export function hasPlaceholders(url: string): boolean {
  return /\$[a-z]/.test(url);
}

/**
 * Validates a destination and returns it trimmed. http(s) only, with a host;
 * placeholders must be unique (docs/links.md#destinations-and-templates). Throws INVALID_URL.
 */
export function validateDestination(raw: string): string {
  const url = raw.trim();
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(url)?.[1]?.toLowerCase();
  if (scheme !== 'http' && scheme !== 'https') {
    throw new AppError('INVALID_URL', 'url must start with http:// or https://', 'url');
  }
  // `http:opaque` and `https:` have a scheme but no authority; `https:///path` has an empty
  // one that a WHATWG parser would skip, taking `path` for the host.
  const afterScheme = url.slice(scheme.length + 1);
  if (!/^\/\/[^/\\?#]/.test(afterScheme)) {
    throw new AppError('INVALID_URL', 'url must include a host (e.g. https://example.com)', 'url');
  }
  // A placeholder where only digits are allowed (`https://h.test:$port/`) stops a template
  // from parsing as written, so it is judged again with each placeholder standing in for a
  // plain value. Anything that still does not parse (a space or `<` in the host, an
  // unclosed `[`, a port out of range) has no usable host.
  const host = hostnameOf(url) ?? hostnameOf(url.replace(PLACEHOLDER, '0')) ?? '';
  if (host === '') {
    throw new AppError('INVALID_URL', 'url must include a host (e.g. https://example.com)', 'url');
  }
  const counts = new Map<string, number>();
  for (const m of url.matchAll(PLACEHOLDER)) {
    const n = (counts.get(m[0]) ?? 0) + 1;
    counts.set(m[0], n);
    if (n === 2) throw new AppError('INVALID_URL', `duplicate variable name in URL template: ${m[0]}`, 'url');
  }
  return url;
}

function hostnameOf(url: string): string | null {
  try {
    return new URL(url).hostname;
  } catch {
    return null;
  }
}

const SEGMENT_SAFE = /[A-Za-z0-9\-_.~$&+:=@]/;

/** Re-encodes a decoded path segment for substitution into a template (docs/links.md#prefixes-and-variables). */
export function encodeSegment(value: string): string {
  let out = '';
  for (const ch of value) {
    if (ch.length === 1 && SEGMENT_SAFE.test(ch)) {
      out += ch;
      continue;
    }
    for (const byte of Buffer.from(ch, 'utf8')) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * Substitutes segment values positionally into a template in one left-to-right
 * pass; substituted values are never re-scanned. Callers check arity first.
 */
export function fillTemplate(template: string, values: readonly string[]): string {
  const names = placeholderNames(template);
  const byName = new Map(names.map((n, i) => [n, encodeSegment(values[i] ?? '')]));
  return template.replace(PLACEHOLDER, (token) => byName.get(token) ?? token);
}

const AUTHORITY = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/([^/?#]*)/;

/**
 * Guards against an open redirect through substitution: a value may only
 * change the host where the template put a placeholder in its host, and even
 * then only in front of the template's literal host suffix
 * (`https://$team.example.com` stays under `.example.com`).
 */
export function isSafeSubstitution(template: string, result: string): boolean {
  let target: URL;
  try {
    target = new URL(result);
  } catch {
    return false;
  }
  if ((target.protocol !== 'http:' && target.protocol !== 'https:') || target.hostname === '') return false;
  const authority = AUTHORITY.exec(template)?.[1] ?? '';
  const tokens = [...authority.matchAll(PLACEHOLDER)];
  if (tokens.length === 0) {
    return authority.toLowerCase() === (AUTHORITY.exec(result)?.[1] ?? '').toLowerCase();
  }
  if (!authority.includes('@') && (target.username !== '' || target.password !== '')) return false;
  const last = tokens[tokens.length - 1]!;
  const suffix = authority
    .slice(last.index! + last[0].length)
    .replace(/:\d*$/, '')
    .toLowerCase();
  return target.hostname.endsWith(suffix) && target.hostname.length > suffix.length;
}
