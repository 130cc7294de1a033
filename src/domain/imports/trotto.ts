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

/**
 * Trotto answers `go/drive` with a plain `drive` and `go/drive/roadmap` with `drive/%s` (the
 * exact keyword first, then a pattern with as many segments), so such a pair is one link here:
 * the pattern's template, with the plain link's destination as its default
 * (docs/links.md#default-destination). Of several patterns beside one plain keyword
 * (`looker/%s`, `looker/%s/%s`) only one can join it, since a link here takes one set of
 * values: the one Trotto counted the most visits of, so the most visits keep working (then the
 * fewest placeholders, then file order); the others are refused. `merged` maps a pattern's index
 * to its plain partner's; the partner's own row is then left out.
 */
interface Pairing {
  merged: Map<number, number>;
  absorbed: Set<number>;
  refused: Map<number, string>;
}

function pairPlainWithPatterns(items: readonly unknown[]): Pairing {
  const groups = new Map<string, Array<{ index: number; shortpath: string; placeholders: number; visits: number }>>();
  for (const [index, item] of items.entries()) {
    if (!isObject(item)) continue;
    const shortpath = stringOf(item.shortpath);
    const destination = stringOf(item.destination_url);
    if (shortpath === '' || destination === '') continue;
    const link = trottoLink(shortpath, destination);
    if ('error' in link) continue;
    const placeholders = shortpath.split('/').filter((p) => p === '%s').length;
    const slug = namespacedSlug(stringOf(item.namespace), link.slug);
    const group = groups.get(slug) ?? [];
    group.push({ index, shortpath, placeholders, visits: countOf(item.visits_count) ?? 0 });
    groups.set(slug, group);
  }
  const pairing: Pairing = { merged: new Map(), absorbed: new Set(), refused: new Map() };
  for (const group of groups.values()) {
    const plain = group.find((g) => g.placeholders === 0);
    const patterns = group.filter((g) => g.placeholders > 0);
    if (plain === undefined || patterns.length === 0) continue;
    const [chosen, ...others] = [...patterns].sort((x, y) => y.visits - x.visits || x.placeholders - y.placeholders || x.index - y.index);
    pairing.merged.set(chosen!.index, plain.index);
    pairing.absorbed.add(plain.index);
    for (const other of others) {
      pairing.refused.set(
        other.index,
        `Trotto’s ${other.shortpath} was not imported: ${plain.shortpath} and ${chosen!.shortpath} became one link here, which takes ${chosen!.placeholders === 1 ? 'one value' : `${chosen!.placeholders} values`}`,
      );
    }
  }
  return pairing;
}

/** A pattern's record with its plain partner's destination as the default, and the merge named. */
function mergedRecord(pattern: ImportedRecord, plain: ImportedRecord, plainItem: Record<string, unknown>): ImportedRecord {
  if (!pattern.record || !plain.record) return pattern;
  const owners = [...(pattern.record.owners ?? []), ...(plain.record.owners ?? [])].filter((o, i, all) => all.indexOf(o) === i);
  const created = [pattern.record.createdAt, plain.record.createdAt].filter((t): t is number => t !== undefined);
  const clicks = (pattern.sourceClicks ?? 0) + (plain.sourceClicks ?? 0);
  const plainPath = stringOf(plainItem.shortpath);
  return {
    ...pattern,
    record: {
      ...pattern.record,
      defaultUrl: plain.record.url,
      ...(owners.length > 0 && { owners }),
      ...(created.length > 0 && { createdAt: Math.min(...created) }),
    },
    ...(clicks > 0 && { sourceClicks: clicks }),
    notes: [
      ...(pattern.notes ?? []),
      ...(plain.notes ?? []),
      `merged with Trotto’s ${plainPath} (item ${plain.line}): its destination is where the link goes when no value is given`,
    ],
  };
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
    // Pairing needs every link of the file before the first is answered, so the list is
    // gathered (member by member, never as one string) and then walked in file order.
    const items: unknown[] = [];
    for await (const row of jsonRows(chunks, LINKS, 'expected Trotto’s link list: [{"shortpath","destination_url",…}]')) {
      if ('error' in row) {
        yield row.error;
        return;
      }
      items.push(row.item);
    }
    const pairing = pairPlainWithPatterns(items);
    for (const [i, item] of items.entries()) {
      if (pairing.absorbed.has(i)) continue;
      const refusal = pairing.refused.get(i);
      if (refusal !== undefined) {
        yield { line: i + 1, slug: stringOf((item as Record<string, unknown>).shortpath), error: refusal };
        continue;
      }
      const record = linkRecord(item, i + 1);
      const partner = pairing.merged.get(i);
      if (partner === undefined) yield record;
      else {
        const plainItem = items[partner] as Record<string, unknown>;
        yield mergedRecord(record, linkRecord(plainItem, partner + 1), plainItem);
      }
    }
  },
};
