import { AppError } from '../errors.js';
import { isGolinkTemplate } from '../golinkTemplate.js';
import type { LinkRecord } from '../linkRecords.js';
import { validateDestination } from '../url.js';
import { linesOf, type ImportedRecord, type ImportFormat } from './format.js';
import { countOf, isObject, literalDestination, looseTime, stringOf } from './table.js';

/**
 * golink (docs/import-formats.md#golink): tailscale/golink's `/.export`, one
 * JSON object per line, `{"Short","Long","Created","LastEdit","Owner"}`
 * (releases that kept click counts in the link add `"Clicks"`). `Long` is a
 * URL, a path on the go server or a Go text/template; see golinkDestination.
 */

/** What a golink destination becomes here, or why it cannot be carried over. */
export type GolinkDestination = { url: string; forwardPathAndQuery: boolean; notes: string[] } | { error: string };

/** `<url ending in />{{.Path}}`: golink's own rule for a plain URL, written out. */
const TRAILING_PATH = /^([^{}]*\/)\{\{-?\s*\.Path\s*-?\}\}$/;

/**
 * golink's destination rules (its `expandLink`) in ours:
 * - no template: golink appends the rest of the path and the visitor's query to the URL,
 *   so the link forwards its path and query; a destination without a scheme is a path on
 *   the go server (`rel` is `/rel`, docs/links.md#destinations-on-this-server);
 * - `…/{{.Path}}` at the very end: the same thing, written out;
 * - any other template is kept as written and run as golink runs it
 *   (docs/links.md#golink-templates), with forwarding on, since golink always appends the
 *   visitor's query; one that could not run here is refused with the reason.
 * Literal text of a plain URL keeps its meaning (a `$` becomes `%24`).
 */
export function golinkDestination(long: string): GolinkDestination {
  const trailing = TRAILING_PATH.exec(long)?.[1];
  if (isGolinkTemplate(long) && trailing === undefined) {
    try {
      return { url: validateDestination(long), forwardPathAndQuery: true, notes: [] };
    } catch (e) {
      if (e instanceof AppError) return { error: e.message.replace(/^url template: /, 'is a template that cannot run here: ') };
      throw e;
    }
  }
  const plain = trailing ?? long;
  const relative = !/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(plain) && !plain.startsWith('/');
  const { url, notes } = literalDestination(relative ? `/${plain}` : plain);
  return { url, forwardPathAndQuery: true, notes };
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
