import type { ImportedRecord, ImportFormat } from './format.js';
import { countOf, isObject, jsonRows, literalDestination, looseTime, rowRecord, stringOf } from './table.js';

/**
 * Trotto (docs/import-formats.md#trotto): trotto/go-links has no export
 * button; its links API, `GET /_/api/links` (a signed-in session or an API
 * token), answers every link of the organisation as one JSON array of
 * `{id, created, modified, owner, namespace, shortpath, destination_url,
 * type, visits_count, mine}`. `created` is `YYYY-MM-DD HH:MM:SS[.ffffff]` in UTC.
 */

/**
 * A Trotto keyword and destination in our terms. Programmatic links put `%s`
 * in both (`gh/%s` → `https://github.com/acme/%s`), each standing for one
 * segment, in order: here the words before the first `%s` are the slug and
 * each `%s` of the destination a variable (`$arg`, or `$arg1`, `$arg2`…).
 */
export function trottoLink(shortpath: string, destination: string): { slug: string; url: string; notes: string[] } | { error: string } {
  const parts = shortpath.split('/').filter((p) => p !== '');
  const first = parts.indexOf('%s');
  const words = first === -1 ? parts : parts.slice(0, first);
  const placeholders = parts.length - words.length;
  if (parts.slice(words.length).some((p) => p !== '%s'))
    return { error: 'only %s placeholders may follow the first %s of a Trotto keyword' };
  const inDestination = destination.split('%s').length - 1;
  if (inDestination !== placeholders) {
    return { error: `the keyword has ${placeholders} %s placeholder(s) but the destination has ${inDestination}` };
  }
  const literal = literalDestination(destination);
  let n = 0;
  const name = () => (placeholders === 1 ? '$arg' : `$arg${++n}`);
  const url = literal.url.replace(/%s/g, name);
  const notes = [...literal.notes];
  if (placeholders > 0)
    notes.push(
      `Trotto’s ${shortpath} became a link whose destination has ${placeholders === 1 ? 'the variable $arg' : 'variables $arg1…'}`,
    );
  return { slug: words.join('/'), url, notes };
}

/** Notes a link outside the file's first namespace (go/, eng/…): here they share one set of slugs. */
function namespaceNoter(): (namespace: string | undefined) => string[] {
  let first: string | undefined;
  return (namespace) => {
    if (!namespace) return [];
    first ??= namespace;
    return namespace === first ? [] : [`was in Trotto’s ${namespace}/ namespace (the file’s first links were in ${first}/)`];
  };
}

function linkRecord(item: unknown, line: number, noteNamespace: (d: string | undefined) => string[]): ImportedRecord {
  if (!isObject(item)) return { line, error: 'expected a Trotto link object' };
  const shortpath = stringOf(item.shortpath);
  const destination = stringOf(item.destination_url);
  if (shortpath === '' || destination === '') {
    return rowRecord({ line, slug: shortpath, url: destination });
  }
  const link = trottoLink(shortpath, destination);
  if ('error' in link) return { line, slug: shortpath, error: link.error };
  const owner = stringOf(item.owner);
  return rowRecord({
    line,
    slug: link.slug,
    url: link.url,
    urlIsTemplate: true,
    // Trotto follows a link only for a signed-in member of the organisation, and lists an
    // unlisted one to its owner and admins only: internal is both (anyone signed in, never listed to others).
    visibility: 'internal',
    createdAt: looseTime(item.created),
    sourceClicks: countOf(item.visits_count),
    ...(owner !== '' && { owners: [owner] }),
    notes: [...noteNamespace(stringOf(item.namespace) || undefined), ...link.notes],
  });
}

/** Where the rows are: a saved `GET /_/api/links` answer, or the same array under `"links"`. */
const LINKS = { paths: [[], ['links']] };

export const trotto: ImportFormat = {
  name: 'trotto',
  label: 'Trotto (links API JSON)',
  sniff(head) {
    const h = head.trimStart();
    if (!h.startsWith('[') && !h.startsWith('{')) return 0;
    return h.includes('"shortpath"') && h.includes('"destination_url"') ? 2 : 0;
  },
  async *parse(chunks) {
    const noteNamespace = namespaceNoter();
    let n = 0;
    for await (const row of jsonRows(chunks, LINKS, 'expected Trotto’s link list: [{"shortpath","destination_url",…}]')) {
      yield 'error' in row ? row.error : linkRecord(row.item, ++n, noteNamespace);
    }
  },
};
