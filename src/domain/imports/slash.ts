import type { ImportedRecord, ImportFormat } from './format.js';
import { countOf, isObject, jsonRows, looseTime, optStringOf, rowRecord, stringOf } from './table.js';

/**
 * Slash (docs/import-formats.md#slash): yourselfhosted/slash has no export
 * file; its API's list is saved instead. 0.5's `GET /api/v2/shortcuts`
 * answers `{"shortcuts":[…]}` of its api/v2 `Shortcut` message as
 * grpc-gateway's default marshaler writes it (camelCase, every field, enums
 * by name, RFC 3339 times): `{id, creatorId, createdTime, updatedTime,
 * rowStatus, name, link, title, tags, description, visibility, viewCount,
 * ogMetadata}`; 1.0's `GET /api/v1/shortcuts` the same without `rowStatus`.
 * 0.4's `GET /api/v1/shortcut` answered a bare array of its Go `Shortcut`
 * struct (`createdTs` in seconds, `creator` with its email, `view`).
 * Clients that keep the proto names write snake_case.
 */

/** A field under its camelCase or snake_case name. */
function field(o: Record<string, unknown>, camel: string): unknown {
  return o[camel] ?? o[camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)];
}

/** Seconds since 1970 (older releases' `createdTs`) or an RFC 3339 time (`createdTime`). */
function timeOf(o: Record<string, unknown>, name: 'created' | 'updated'): number | undefined {
  const seconds = countOf(field(o, `${name}Ts`));
  if (seconds !== undefined && seconds > 0) return seconds * 1000;
  return looseTime(field(o, `${name}Time`));
}

/**
 * Slash's visibilities in ours (its `store.Visibility`): PUBLIC is public,
 * WORKSPACE (anyone signed in to the instance) internal, PRIVATE (its creator
 * only) secure. Access never widens.
 */
function visibilityOf(raw: string): { visibility?: string; notes: string[] } {
  switch (raw.toUpperCase()) {
    case 'PRIVATE':
      return { visibility: 'secure', notes: ['was private to its creator in Slash; imported secure (only its owners may follow it)'] };
    case 'PUBLIC':
      return { visibility: 'public', notes: [] };
    case 'WORKSPACE':
      return { visibility: 'internal', notes: [] };
    default:
      return { notes: [] };
  }
}

function shortcutRecord(item: unknown, line: number): ImportedRecord {
  if (!isObject(item)) return { line, error: 'expected a Slash shortcut object' };
  const { visibility, notes } = visibilityOf(stringOf(item.visibility));
  const archived = stringOf(field(item, 'rowStatus')).toUpperCase() === 'ARCHIVED';
  const created = timeOf(item, 'created');
  // Slash records when a shortcut last changed, not when it was archived; that is the nearest date.
  const archivedAt = archived ? (timeOf(item, 'updated') ?? created) : undefined;
  if (archived && archivedAt === undefined) notes.push('was archived in Slash, with no date to archive it at; imported as active');
  const creator = isObject(item.creator) ? stringOf(item.creator.email) : stringOf(field(item, 'creatorEmail'));
  return rowRecord({
    line,
    slug: stringOf(item.name),
    url: stringOf(item.link),
    title: optStringOf(item, 'title'),
    description: optStringOf(item, 'description'),
    tags: Array.isArray(item.tags) ? item.tags.map(stringOf).filter((t) => t !== '') : undefined,
    ...(visibility !== undefined && { visibility }),
    ...(creator.includes('@') && { owners: [creator] }),
    createdAt: created,
    ...(archivedAt !== undefined && { archivedAt }),
    sourceClicks: countOf(field(item, 'viewCount') ?? item.view),
    notes,
  });
}

/** Where the rows are: the answer's `shortcuts`, or a bare array of them. */
const SHORTCUTS = { paths: [[], ['shortcuts']] };

export const slash: ImportFormat = {
  name: 'slash',
  label: 'Slash (shortcuts API JSON)',
  sniff(head) {
    const h = head.trimStart();
    if (!h.startsWith('{') && !h.startsWith('[')) return 0;
    if (!h.includes('"link"') || !h.includes('"name"')) return 0;
    if (h.includes('"shortcuts"')) return 2;
    return /"(creatorId|creator_id|viewCount|view_count|rowStatus|row_status)"/.test(h) ? 2 : 0;
  },
  async *parse(chunks) {
    let n = 0;
    for await (const row of jsonRows(chunks, SHORTCUTS, 'expected Slash’s shortcut list: {"shortcuts":[{"name","link",…}]}')) {
      yield 'error' in row ? row.error : shortcutRecord(row.item, ++n);
    }
  },
};
