import { AppError } from './errors.js';
import { expandGolinkTemplate, GolinkTemplateError, isGolinkTemplate, parseGolinkTemplate } from './golinkTemplate.js';
import { encodeQueryValue, encodeSegment } from './urlEncoding.js';
import { Memo } from './memo.js';

export { encodeQueryValue, encodeSegment } from './urlEncoding.js';

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
 * A destination on this server (`/meet`, docs/links.md#destinations-on-this-server): a path
 * that starts with one `/`, as golink's relative destinations do; a browser resolves it
 * against the go host, so it leads to another go link.
 */
export function isLocalDestination(url: string): boolean {
  return url.startsWith('/') && !isGolinkTemplate(url);
}

/**
 * Whether a destination is one fixed http(s) URL, the same for every visit: neither a
 * `$var` template, nor a golink template, nor a path on this server. Only those are
 * health-checked.
 */
export function isFixedDestination(url: string): boolean {
  return !hasPlaceholders(url) && !isGolinkTemplate(url) && !url.startsWith('/');
}

const LOCAL_PATH = /^\/(?![/\\])[^\s\p{C}]*$/u;

/**
 * A golink template (domain/golinkTemplate.ts) is accepted when it reads and, run for a
 * visit with and without a path, yields a destination whose scheme and host are the
 * author's. `{{.User}}` counts as known here: a visitor without one is asked to sign in.
 */
function validateGolinkDestination(url: string, field: string): string {
  try {
    parseGolinkTemplate(url);
  } catch (e) {
    if (e instanceof GolinkTemplateError) throw new AppError('INVALID_URL', `${field} template: ${e.message}`, field);
    throw e;
  }
  for (const path of ['', 'x']) {
    const run = expandGolinkTemplate(url, { path, user: 'user@example.com', now: new Date(0) });
    if (run.kind === 'error') throw new AppError('INVALID_URL', `${field} template: ${run.message}`, field);
  }
  return url;
}

/**
 * The longest destination, in UTF-8 bytes: what a request body (1 MiB on
 * every surface) can carry, so a destination that arrives another way (an
 * imported file) is held to the limit a POST meets.
 */
export const URL_MAX_BYTES = 1024 * 1024;

const utf8Length = (s: string): number => new TextEncoder().encode(s).length;

/**
 * Validates a destination and returns it trimmed. http(s) only, with a host;
 * placeholders may stand in the host only in front of a literal domain
 * (docs/links.md#placeholders-in-the-host) and must be unique
 * (docs/links.md#destinations-and-templates). Throws INVALID_URL. `field` names the
 * input in errors: a templated link's default destination meets the same rules.
 */
export function validateDestination(raw: string, field = 'url'): string {
  // A UTF-16 length is at most the UTF-8 one, and at least a third of it: most URLs are decided without encoding.
  if (raw.length > URL_MAX_BYTES || (raw.length > URL_MAX_BYTES / 3 && utf8Length(raw) > URL_MAX_BYTES)) {
    throw new AppError('INVALID_FIELD_LENGTH', `${field} must be at most ${URL_MAX_BYTES / 1024 / 1024} MiB`, field);
  }
  const url = raw.trim();
  if (isGolinkTemplate(url)) return validateGolinkDestination(url, field);
  // `//host/…` and `/\host/…` lead to another host: they meet the scheme rule below.
  if (url.startsWith('/') && !/^\/[/\\]/.test(url)) {
    if (!LOCAL_PATH.test(url)) throw new AppError('INVALID_URL', 'a destination on this server is a path such as /meet', field);
    return url;
  }
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(url)?.[1]?.toLowerCase();
  if (scheme !== 'http' && scheme !== 'https') {
    throw new AppError('INVALID_URL', `${field} must start with http:// or https://`, field);
  }
  // `http:opaque` and `https:` have a scheme but no authority; `https:///path` has an empty
  // one that a WHATWG parser would skip, taking `path` for the host.
  const afterScheme = url.slice(scheme.length + 1);
  if (!/^\/\/[^/\\?#]/.test(afterScheme)) {
    throw new AppError('INVALID_URL', `${field} must include a host (e.g. https://example.com)`, field);
  }
  // A placeholder where only digits are allowed (`https://h.test:$port/`) stops a template
  // from parsing as written, so it is judged again with each placeholder standing in for a
  // plain value (and then refused for where it stands, below). Anything that still does not
  // parse (a space or `<` in the host, an unclosed `[`, a port out of range) has no usable host.
  const host = hostnameOf(url) ?? hostnameOf(url.replace(PLACEHOLDER, '0')) ?? '';
  if (host === '') {
    throw new AppError('INVALID_URL', `${field} must include a host (e.g. https://example.com)`, field);
  }
  const hostError = templateHostError(url);
  if (hostError !== null) throw new AppError('INVALID_URL', hostError, field);
  const counts = new Map<string, number>();
  for (const m of url.matchAll(PLACEHOLDER)) {
    const n = (counts.get(m[0]) ?? 0) + 1;
    counts.set(m[0], n);
    if (n === 2) throw new AppError('INVALID_URL', `duplicate variable name in URL template: ${m[0]}`, field);
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

/** A value encoded for where its placeholder stands: the query, or a path segment. */
const encodeFor = (inQuery: boolean | undefined, value: string): string => (inQuery ? encodeQueryValue(value) : encodeSegment(value));

/**
 * Substitutes segment values positionally into a template in one left-to-right
 * pass; substituted values are never re-scanned. Callers check arity first.
 */
export function fillTemplate(template: string, values: readonly string[]): string {
  const { literals, slots, inQuery } = compiledTemplate(template, LINK_TEMPLATE);
  let result = literals[0]!;
  for (let i = 0; i < slots.length; i++) result += encodeFor(inQuery[i], values[slots[i]!] ?? '') + literals[i + 1]!;
  return result;
}

/**
 * How a kind of template writes its placeholders, and how its refusals name them:
 * link templates use `$name` (docs/links.md#prefixes-and-variables), keyword
 * templates `{slug}` (docs/links.md#keywords).
 */
export interface TemplateSyntax {
  pattern: RegExp;
  noun: string;
  example: string;
}

export const LINK_TEMPLATE: TemplateSyntax = { pattern: PLACEHOLDER, noun: 'a variable', example: 'https://$team.example.com/' };
export const KEYWORD_TEMPLATE: TemplateSyntax = { pattern: /\{slug\}/g, noun: '{slug}', example: 'https://{slug}.example.com/' };

/** The non-empty authority of an http(s) URL as written: it ends where the WHATWG parser ends it for special schemes. */
const AUTHORITY = /^https?:\/\/([^/\\?#]+)/i;

/**
 * Where a template's placeholders sit in its authority (docs/links.md#placeholders-in-the-host):
 * `fixed` when none do; `prefixed` when they only add to the host name in front of a literal
 * domain; otherwise the reason such a template is refused. `plain` is the template parsed
 * with every placeholder standing in for a plain label: what a result must keep.
 */
type HostShape =
  { kind: 'fixed'; authority: string; plain: URL } | { kind: 'prefixed'; domain: string; plain: URL } | { kind: 'refused'; reason: string };

/**
 * A template taken apart once: the literal text around its placeholders, which
 * value fills each placeholder, which placeholders stand in the authority, and
 * its host shape. Every redirect through a template or keyword fills one, so it
 * is remembered per template (a template's text never changes meaning): a
 * redirect then pays for a concatenation, not for scans and URL parses.
 */
interface CompiledTemplate {
  /** `literals[i]` comes before the i-th placeholder; one more literal ends the template. */
  literals: readonly string[];
  /** Distinct placeholders in order of first appearance, as placeholderNames gives them. */
  names: readonly string[];
  /** For each placeholder, the index of its name in `names`. */
  slots: readonly number[];
  /** For each placeholder, whether it stands in the authority. */
  inAuthority: readonly boolean[];
  /** For each placeholder, whether it stands in the query (after the `?`, before any `#`). */
  inQuery: readonly boolean[];
  shape: HostShape;
}

/** Templates remembered before the memo starts over. */
const TEMPLATE_MEMO_SIZE = 1_000;
const compiledTemplates = new Map<TemplateSyntax, Memo<string, CompiledTemplate>>();

function compiledTemplate(template: string, syntax: TemplateSyntax): CompiledTemplate {
  let memo = compiledTemplates.get(syntax);
  if (memo === undefined) {
    memo = new Memo(TEMPLATE_MEMO_SIZE);
    compiledTemplates.set(syntax, memo);
  }
  let compiled = memo.get(template);
  if (compiled === undefined) {
    compiled = memo.set(template, compileTemplate(template, syntax));
  }
  return compiled;
}

function compileTemplate(template: string, syntax: TemplateSyntax): CompiledTemplate {
  const authorityEnd = AUTHORITY.exec(template)?.[0].length ?? 0;
  const literals: string[] = [];
  const names: string[] = [];
  const slots: number[] = [];
  const inAuthority: boolean[] = [];
  const inQuery: boolean[] = [];
  // Placeholders hold neither `?` nor `#`, so the template's own delimiters say where the query is.
  const fragment = template.indexOf('#', authorityEnd);
  const fragmentStart = fragment === -1 ? template.length : fragment;
  const query = template.indexOf('?', authorityEnd);
  const queryStart = query === -1 || query > fragmentStart ? fragmentStart : query;
  let at = 0;
  for (const m of template.matchAll(syntax.pattern)) {
    literals.push(template.slice(at, m.index));
    if (!names.includes(m[0])) names.push(m[0]);
    slots.push(names.indexOf(m[0]));
    inAuthority.push(m.index < authorityEnd);
    inQuery.push(m.index > queryStart && m.index < fragmentStart);
    at = m.index + m[0].length;
  }
  literals.push(template.slice(at));
  return { literals, names, slots, inAuthority, inQuery, shape: computeHostShape(template, syntax) };
}

function hostShape(template: string, syntax: TemplateSyntax): HostShape {
  return compiledTemplate(template, syntax).shape;
}

function computeHostShape(template: string, syntax: TemplateSyntax): HostShape {
  const match = AUTHORITY.exec(template);
  if (!match) return { kind: 'refused', reason: 'url must start with http:// or https:// and a host' };
  const authority = match[1]!;
  const end = match[0].length;
  const start = end - authority.length;
  const inAuthority = [...template.matchAll(syntax.pattern)].filter((m) => m.index < end);
  // Placeholders contain neither `@` nor `:`, so the literal delimiters split the authority as the parser will.
  const hostStart = start + authority.lastIndexOf('@') + 1;
  const hostPort = template.slice(hostStart, end);
  const colon = hostPort.startsWith('[') ? hostPort.indexOf(':', hostPort.indexOf(']')) : hostPort.indexOf(':');
  const hostEnd = colon === -1 ? end : hostStart + colon;
  if (inAuthority.some((m) => m.index < hostStart || m.index >= hostEnd)) {
    return { kind: 'refused', reason: `${syntax.noun} may not stand in the url's user name, password or port` };
  }
  let plain: URL;
  try {
    plain = new URL(template.replace(syntax.pattern, 'x'));
  } catch {
    return { kind: 'refused', reason: 'url must include a host (e.g. https://example.com)' };
  }
  if (inAuthority.length === 0) return { kind: 'fixed', authority, plain };
  const last = inAuthority[inAuthority.length - 1]!;
  const suffix = template.slice(last.index + last[0].length, hostEnd);
  // The suffix's whole labels are the domain every result stays in: `-docs.example.com` keeps
  // results under `.example.com`; a suffix without a dot and a label after it keeps nothing.
  const normalised = hostnameOf(`https://x${suffix}/`) ?? '';
  const dot = normalised.indexOf('.');
  const domain = dot === -1 ? '' : normalised.slice(dot);
  if (!/[^.]/.test(domain)) {
    return {
      kind: 'refused',
      reason: `${syntax.noun} in the url's host must be followed by the rest of the host name (e.g. ${syntax.example})`,
    };
  }
  return { kind: 'prefixed', domain, plain };
}

/**
 * The write-time rule for placeholders in a template's authority
 * (docs/links.md#placeholders-in-the-host): null when the template obeys it,
 * else the message to refuse it with.
 */
export function templateHostError(template: string, syntax: TemplateSyntax = LINK_TEMPLATE): string | null {
  const shape = hostShape(template, syntax);
  return shape.kind === 'refused' ? shape.reason : null;
}

/** What a value may never carry into a host: anything that ends or rewrites the authority. */
const HOST_BREAKER = /[/\\?#@:%[\]]|\s|\p{C}/u;

function percentDecoded(value: string): string {
  if (!value.includes('%')) return value;
  const bytes: number[] = [];
  for (let i = 0; i < value.length; i++) {
    const hex = value[i] === '%' ? value.slice(i + 1, i + 3) : '';
    if (/^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else bytes.push(...Buffer.from(value[i]!, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

/**
 * Whether a value as inserted into a host may stand there: non-empty, and
 * neither its percent-decoding nor that one's compatibility form (`／` is `/`
 * to the host parser) holds a delimiter, `%`, whitespace or a control character.
 */
function isHostValue(value: string): boolean {
  if (value === '') return false;
  const decoded = percentDecoded(value);
  // A `%` left after decoding is no escape, or a second layer of one (`%2540`).
  return ![decoded, decoded.normalize('NFKC')].some((v) => HOST_BREAKER.test(v));
}

/**
 * Guards against an open redirect through substitution, judging the result
 * with a real URL parse (docs/links.md#placeholders-in-the-host): a template
 * with no placeholder in its authority must keep that authority exactly; one
 * with placeholders in its host must keep its user name, password and port,
 * and its host must still end in the template's literal domain suffix
 * (`https://$team.example.com` stays under `.example.com`). A template that
 * breaks the write-time rule never passes.
 */
export function isSafeSubstitution(template: string, result: string, syntax: TemplateSyntax = LINK_TEMPLATE): boolean {
  let target: URL;
  try {
    target = new URL(result);
  } catch {
    return false;
  }
  if ((target.protocol !== 'http:' && target.protocol !== 'https:') || target.hostname === '') return false;
  const shape = hostShape(template, syntax);
  if (shape.kind === 'refused') return false;
  const { plain } = shape;
  if (target.username !== plain.username || target.password !== plain.password || target.port !== plain.port) return false;
  if (shape.kind === 'fixed') {
    return target.hostname === plain.hostname && shape.authority.toLowerCase() === (AUTHORITY.exec(result)?.[1] ?? '').toLowerCase();
  }
  return target.hostname.endsWith(shape.domain) && target.hostname.length > shape.domain.length;
}

/**
 * The one substitution the resolver redirects through, for link and keyword
 * templates alike: the placeholder named `names[i]` of the compiled template
 * is replaced by `valueOf(i)` in one pass; a value that lands in the host must
 * pass isHostValue, and the result isSafeSubstitution. Null means the
 * substitution could change where the redirect goes, which the resolver
 * answers as a miss.
 *
 * A template with no placeholder in its authority (a `fixed` shape, nearly
 * every template) needs no parse of its result: every value lands after the
 * literal delimiter that ends the authority (`/`, `\`, `?` or `#`), so the
 * result's authority is the template's as written, which its shape already
 * judged, and nothing after that delimiter can make a special-scheme URL fail
 * to parse or change its host.
 */
function substituteSafely(template: string, syntax: TemplateSyntax, valueOf: (name: number, inQuery: boolean) => string): string | null {
  const { literals, slots, inAuthority, inQuery, shape } = compiledTemplate(template, syntax);
  if (shape.kind === 'refused') return null;
  let result = literals[0]!;
  for (let i = 0; i < slots.length; i++) {
    const value = valueOf(slots[i]!, inQuery[i]!);
    if (inAuthority[i] && !isHostValue(value)) return null;
    result += value + literals[i + 1]!;
  }
  return shape.kind === 'fixed' || isSafeSubstitution(template, result, syntax) ? result : null;
}

/** The distinct `$name` placeholders of a link template in order of first appearance, remembered per template. */
export function templateVariables(template: string): readonly string[] {
  return compiledTemplate(template, LINK_TEMPLATE).names;
}

/** A link template filled positionally (as fillTemplate does), or null when that would be unsafe. */
export function fillTemplateSafely(template: string, values: readonly string[]): string | null {
  return substituteSafely(template, LINK_TEMPLATE, (name, inQuery) => encodeFor(inQuery, values[name] ?? ''));
}

/** A keyword template with `{slug}` ← `slug` as received (docs/links.md#keywords), or null when that would be unsafe. */
export function fillKeywordTemplate(template: string, slug: string): string | null {
  return substituteSafely(template, KEYWORD_TEMPLATE, () => slug);
}

/**
 * A keyword's URL template as given, trimmed (docs/links.md#keywords): it
 * contains `{slug}` and obeys the host rule of every template. Throws
 * BAD_REQUEST naming `url_template`.
 */
export function validateKeywordTemplate(raw: string): string {
  const template = raw.trim();
  if (!template.includes('{slug}')) throw new AppError('BAD_REQUEST', 'URL template must contain {slug} placeholder.', 'url_template');
  const hostError = templateHostError(template, KEYWORD_TEMPLATE);
  if (hostError !== null) throw new AppError('BAD_REQUEST', hostError, 'url_template');
  return template;
}

/**
 * A destination with a visit's extra path segments and query appended
 * (docs/links.md#path-and-query-forwarding): each segment is the decoded
 * value re-encoded as one path segment (so `%2F`, `\`, `?` and `#` stay inside
 * it), appended after the destination's path; the visit's query parameters
 * follow the destination's own, which are kept as written. Only the path and
 * query are ever touched, through a URL parser, and the result must keep the
 * destination's scheme, user, password, host and port. Null when it cannot:
 * a `.` or `..` segment (a parser would walk up the destination's path) or a
 * destination that does not parse.
 */
export function forwardPathAndQuery(destination: string, segments: readonly string[], query: URLSearchParams | null): string | null {
  let url: URL;
  // A destination on this server is read against a stand-in origin and given back as a path.
  const local = destination.startsWith('/');
  try {
    url = local ? new URL(destination, LOCAL_ORIGIN) : new URL(destination);
  } catch {
    return null;
  }
  const { protocol, username, password, host } = url;
  if (segments.length > 0) {
    if (segments.some((s) => s === '.' || s === '..')) return null;
    const base = url.pathname.endsWith('/') ? url.pathname : `${url.pathname}/`;
    url.pathname = base + segments.map(encodeSegment).join('/');
  }
  const extra = query === null ? '' : query.toString();
  if (extra !== '') url.search = url.search === '' ? extra : `${url.search.slice(1)}&${extra}`;
  const out = url.href;
  const check = new URL(out);
  const same = check.protocol === protocol && check.username === username && check.password === password && check.host === host;
  if (!same) return null;
  return local ? out.slice(LOCAL_ORIGIN.length) : out;
}

const LOCAL_ORIGIN = 'http://local.invalid';
