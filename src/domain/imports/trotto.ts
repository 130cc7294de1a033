import { brokenFile } from './format.js';
import type { ImportedRecord, ImportFormat } from './format.js';
import { countOf, isObject, jsonDocument, literalDestination, looseTime, rowRecord, stringOf } from './table.js';

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

/** The namespace a Trotto instance puts links in unless told otherwise; its names need no prefix. */
const DEFAULT_NAMESPACE = 'go';

/**
 * A link of another namespace is reached in Trotto as `go/<namespace>/<shortpath>`
 * (`eng/1` is `go/eng/1`): here that is its name, of several segments.
 */
function namespacedSlug(namespace: string, slug: string): string {
  if (namespace === '' || namespace === DEFAULT_NAMESPACE) return slug;
  return slug === '' ? namespace : `${namespace}/${slug}`;
}

function linkRecord(item: unknown, line: number): ImportedRecord {
  if (!isObject(item)) return { line, error: 'expected a Trotto link object' };
  const shortpath = stringOf(item.shortpath);
  const destination = stringOf(item.destination_url);
  if (shortpath === '' || destination === '') {
    return rowRecord({ line, slug: shortpath, url: destination });
  }
  const link = trottoLink(shortpath, destination);
  if ('error' in link) return { line, slug: shortpath, error: link.error };
  const owner = stringOf(item.owner);
  const namespace = stringOf(item.namespace);
  const slug = namespacedSlug(namespace, link.slug);
  return rowRecord({
    line,
    slug,
    url: link.url,
    urlIsTemplate: true,
    // Trotto follows a link only for a signed-in member of the organisation, and lists an
    // unlisted one to its owner and admins only: internal is both (anyone signed in, never listed to others).
    visibility: 'internal',
    createdAt: looseTime(item.created),
    sourceClicks: countOf(item.visits_count),
    ...(owner !== '' && { owners: [owner] }),
    notes: [...(slug === link.slug ? [] : [`was ${shortpath} in Trotto’s ${namespace}/ namespace`]), ...link.notes],
  });
}

/** A saved `GET /_/api/links` answer, or the same array under `"links"`. */
function linksOf(doc: unknown): unknown[] | null {
  if (Array.isArray(doc)) return doc;
  return isObject(doc) && Array.isArray(doc.links) ? doc.links : null;
}

export const trotto: ImportFormat = {
  name: 'trotto',
  label: 'Trotto (links API JSON)',
  sniff(head) {
    const h = head.trimStart();
    if (!h.startsWith('[') && !h.startsWith('{')) return 0;
    return h.includes('"shortpath"') && h.includes('"destination_url"') ? 2 : 0;
  },
  async *parse(chunks) {
    const doc = await jsonDocument(chunks);
    if ('error' in doc) {
      yield doc.error;
      return;
    }
    const items = linksOf(doc.value);
    if (items === null) {
      yield brokenFile({ line: 1, error: 'expected Trotto’s link list: [{"shortpath","destination_url",…}]' });
      return;
    }
    for (const [i, item] of items.entries()) yield linkRecord(item, i + 1);
  },
};
