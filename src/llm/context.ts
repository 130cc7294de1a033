import { DESCRIPTION_MAX, TITLE_MAX } from '../domain/linkInput.js';
import { truncateCodePoints } from '../domain/text.js';
import type { GuardedClient } from '../net/guardedClient.js';

/**
 * Page context for a suggestion (docs/agents.md#llm-suggestions): the
 * destination's `<title>` and meta description, fetched only through the
 * SSRF-guarded client with the bounds below. The page is untrusted: only
 * those two strings are kept, as plain text, and any refusal or failure just
 * leaves them empty — a suggestion never fails because a page could not be read.
 */

export const CONTEXT_TIMEOUT_MS = 5_000;
export const CONTEXT_MAX_REDIRECTS = 5;
export const CONTEXT_MAX_BYTES = 64 * 1024;

export interface PageContext {
  title: string;
  description: string;
}

export const EMPTY_CONTEXT: PageContext = Object.freeze({ title: '', description: '' });

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,8});/gi, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[ref.toLowerCase()] ?? whole;
  });
}

function clean(text: string, max: number): string {
  return truncateCodePoints(decodeEntities(text).replace(/\s+/g, ' ').trim(), max);
}

/**
 * The first `<title>` element's text. Found with `indexOf` rather than a lazy
 * regular expression, so a page full of unclosed `<title` tags costs one pass.
 */
function titleOf(html: string, lower: string): string {
  const open = lower.indexOf('<title');
  if (open === -1) return '';
  const start = lower.indexOf('>', open);
  if (start === -1) return '';
  const end = lower.indexOf('</title', start);
  return html.slice(start + 1, end === -1 ? undefined : end);
}

/** Attribute names must follow a delimiter, which keeps the scan linear in the tag's length. */
const ATTRIBUTE = /(?:^|[\s"'/])([a-z][a-z0-9:_-]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/gi;
/** Longer "tags" are not meta tags anyone wrote; they are skipped unparsed. */
const MAX_TAG = 8 * 1024;

function attributes(tag: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of tag.matchAll(ATTRIBUTE)) {
    const name = m[1]!.toLowerCase();
    if (!out.has(name)) out.set(name, m[2] ?? m[3] ?? m[4] ?? '');
  }
  return out;
}

/**
 * `<meta name="description">`, else the Open Graph description. Tags are
 * found with `indexOf` and each one's end only once, so the whole page is
 * scanned a constant number of times whatever it holds.
 */
function descriptionOf(html: string, lower: string): string {
  let og = '';
  for (let at = lower.indexOf('<meta'); at !== -1;) {
    const end = lower.indexOf('>', at);
    // No `>` left: no later tag can be complete either.
    if (end === -1) break;
    if (end - at <= MAX_TAG && /^<meta[\s/]/.test(lower.slice(at, at + 6))) {
      const attrs = attributes(html.slice(at + 5, end));
      const key = (attrs.get('name') ?? attrs.get('property') ?? '').toLowerCase();
      const content = attrs.get('content');
      if (content !== undefined && key === 'description') return content;
      if (content !== undefined && key === 'og:description' && og === '') og = content;
    }
    at = lower.indexOf('<meta', end + 1);
  }
  return og;
}

export function extractPageContext(html: string): PageContext {
  // ASCII-only lower-casing keeps every index valid in `html` too (full Unicode folding can change lengths).
  const lower = html.replace(/[A-Z]+/g, (c) => c.toLowerCase());
  return {
    title: clean(titleOf(html, lower), TITLE_MAX),
    description: clean(descriptionOf(html, lower), DESCRIPTION_MAX),
  };
}

function decodeBody(body: Buffer, contentType: string): string {
  const charset = /charset\s*=\s*"?([\w-]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

/** Title and description of `url`, or empty strings when the page is refused, fails or is not HTML. */
export async function fetchPageContext(client: GuardedClient, url: string, opts: { timeoutMs?: number } = {}): Promise<PageContext> {
  try {
    const res = await client.fetch(url, {
      method: 'GET',
      timeoutMs: opts.timeoutMs ?? CONTEXT_TIMEOUT_MS,
      maxRedirects: CONTEXT_MAX_REDIRECTS,
      maxBodyBytes: CONTEXT_MAX_BYTES,
      keepBody: true,
    });
    if (res.status < 200 || res.status >= 300 || !res.body) return EMPTY_CONTEXT;
    const header = res.headers['content-type'];
    const contentType = (Array.isArray(header) ? header[0] : header) ?? '';
    if (contentType !== '' && !/html|xml/i.test(contentType)) return EMPTY_CONTEXT;
    return extractPageContext(decodeBody(res.body, contentType));
  } catch {
    return EMPTY_CONTEXT;
  }
}
