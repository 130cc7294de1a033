import type { LinkRecord } from '../linkRecords.js';
import { linesOf, type ImportedRecord, type ImportFormat } from './format.js';
import { countOf, isObject, literalDestination, looseTime, stringOf } from './table.js';

/**
 * golink (docs/import-formats.md#golink): tailscale/golink's `/.export`, one
 * JSON object per line, `{"Short","Long","Created","LastEdit","Owner"}`
 * (releases that kept click counts in the link add `"Clicks"`). `Long` is a
 * URL or a Go text/template; see golinkDestination for what each becomes.
 */

/** What a golink destination becomes here, or why it cannot be carried over. */
export type GolinkDestination = { url: string; forwardPathAndQuery: boolean; notes: string[] } | { error: string };

/** One `{{ … }}` action of a golink template, by what it does. */
type Action = 'path' | 'path-escaped' | 'query-escaped' | { error: string };

const ACTION = /\{\{-?\s*([\s\S]*?)\s*-?\}\}/g;

function actionOf(body: string): Action {
  const words = body.trim().split(/\s+/);
  if (body.trim() === '.Path') return 'path';
  if (words.length === 2 && words[1] === '.Path' && words[0] === 'PathEscape') return 'path-escaped';
  if (words.length === 2 && words[1] === '.Path' && words[0] === 'QueryEscape') return 'query-escaped';
  if (/^(if|with|else|end|range)\b/.test(words[0] ?? '')) {
    return {
      error:
        'chooses its destination with {{if}} or {{with}}; a joe-links link has one destination, so make two links (one plain, one with a $variable)',
    };
  }
  if (/\.User\b/.test(body)) return { error: 'uses {{.User}} (the visitor’s login), which joe-links templates have no equivalent for' };
  if (/\.Now\b/.test(body)) return { error: 'uses {{.Now}} (the current time), which joe-links templates have no equivalent for' };
  if (/\.Query\b/.test(body)) {
    return { error: 'uses {{.Query}}, which golink’s templates do not define (golink appends the visitor’s query by itself)' };
  }
  return { error: `uses the template action {{${body.trim()}}}, which has no joe-links equivalent` };
}

/**
 * golink's destination rules (its `expandLink`) in ours:
 * - no template: golink appends the rest of the path (and always the
 *   visitor's query) to the URL — a link with path and query forwarding;
 * - `…/{{.Path}}` at the very end: the same thing, written out;
 * - one `{{.Path}}`, `{{PathEscape .Path}}` or `{{QueryEscape .Path}}`
 *   elsewhere: the `$path` variable, which takes one path segment;
 * - anything else (`.User`, `.Now`, `if`/`with`, other functions): refused
 *   with the reason.
 * Literal text keeps its meaning (a `$` becomes `%24`).
 */
export function golinkDestination(long: string): GolinkDestination {
  const literals: string[] = [];
  const actions: Action[] = [];
  let at = 0;
  for (const m of long.matchAll(ACTION)) {
    literals.push(long.slice(at, m.index));
    actions.push(actionOf(m[1]!));
    at = m.index + m[0].length;
  }
  literals.push(long.slice(at));
  const refused = actions.find((a): a is { error: string } => typeof a === 'object');
  if (refused) return refused;
  if (long.slice(at).includes('{{')) return { error: 'has an unclosed {{ in its destination' };
  const escaped = literals.map(literalDestination);
  const notes = escaped.some((e) => e.notes.length > 0) ? escaped.find((e) => e.notes.length > 0)!.notes : [];
  const text = escaped.map((e) => e.url);
  if (actions.length === 0) return { url: text[0]!, forwardPathAndQuery: true, notes };
  if (actions.length > 1) return { error: 'uses the rest of the path more than once; a joe-links variable stands in one place' };
  if (actions[0] === 'path' && text[1] === '' && text[0]!.endsWith('/')) return { url: text[0]!, forwardPathAndQuery: true, notes };
  return {
    url: `${text[0]}$path${text[1]}`,
    forwardPathAndQuery: false,
    notes: [
      ...notes,
      'golink’s {{.Path}} took the whole rest of the path; $path takes one path segment, and the visitor’s query is not appended',
    ],
  };
}

/** golink writes Go's zero time for a link it never dated. */
const golinkTime = (raw: unknown): number | undefined =>
  typeof raw === 'string' && raw.startsWith('0001-01-01') ? undefined : looseTime(raw);

function linkRecord(text: string, line: number): ImportedRecord | null {
  if (text.trim() === '') return null;
  let item: unknown;
  try {
    item = JSON.parse(text);
  } catch {
    return { line, error: 'not valid JSON' };
  }
  if (!isObject(item)) return { line, error: 'expected a golink link object' };
  const slug = stringOf(item.Short);
  if (slug === '') return { line, error: 'no Short name in this line' };
  const long = stringOf(item.Long);
  if (long === '') return { line, slug, error: 'no Long destination in this line' };
  const destination = golinkDestination(long);
  if ('error' in destination) return { line, slug, error: `the destination ${destination.error}` };
  const owner = stringOf(item.Owner);
  const notes = [...destination.notes];
  if (owner === 'tagged-devices') notes.push('was owned by tagged devices in golink');
  const created = golinkTime(item.Created);
  const record: LinkRecord = {
    slug,
    url: destination.url,
    // golink's export carries no title or tags (its Description only in some forks): left as they are here.
    ...(item.Description !== undefined && { description: stringOf(item.Description) }),
    ...(owner.includes('@') && { owners: [owner] }),
    ...(created !== undefined && { createdAt: created }),
    forwardPathAndQuery: destination.forwardPathAndQuery,
  };
  const clicks = countOf(item.Clicks);
  return { line, slug, record, ...(clicks !== undefined && { sourceClicks: clicks }), ...(notes.length > 0 && { notes }) };
}

export const golink: ImportFormat = {
  name: 'golink',
  label: 'golink (/.export JSON Lines)',
  sniff(head) {
    const line = head.trimStart().split('\n', 1)[0] ?? '';
    return line.startsWith('{') && /"Short"\s*:/.test(line) && /"Long"\s*:/.test(line) ? 2 : 0;
  },
  async *parse(chunks) {
    for await (const { line, text } of linesOf(chunks)) {
      const record = linkRecord(line === 1 ? text.replace(/^\uFEFF/, '') : text, line);
      if (record) yield record;
    }
  },
};
