import type { ImportedRecord, ImportFormat } from './format.js';
import { caseSeparator, countOf, domainNoter, isObject, jsonRows, lifeTime, looseTime, optStringOf, rowRecord, stringOf } from './table.js';

/**
 * Kutt (docs/import-formats.md#kutt): it has no export, so links come from
 * its API's list, `GET /api/v2/links?limit=…&skip=…` (`{"limit","skip","total",
 * "data":[{id,address,target,description,visit_count,password,expire_in,
 * created_at,domain,link,…}]}`), saved as one page, or several pages as JSON
 * Lines or one array. `address` is the slug. A password-protected link
 * becomes a secure link (only its owners, until shared): a password cannot be
 * carried over, and importing it public would open it to everyone.
 */

function linkRecord(
  item: unknown,
  line: number,
  noteDomain: (d: string | undefined) => string[],
  separate: ReturnType<typeof caseSeparator>,
): ImportedRecord {
  if (!isObject(item)) return { line, error: 'expected a link object' };
  const named = separate(stringOf(item.address));
  const notes = [...noteDomain(stringOf(item.domain) || undefined), ...named.notes];
  const passworded = item.password === true;
  if (passworded) notes.push('was password-protected in Kutt; imported as secure: share it with the people who had the password');
  const expiry = lifeTime(item.expire_in, 'expire_in');
  if ('error' in expiry) return { line, slug: stringOf(item.address), error: expiry.error };
  const expires = expiry.at;
  const created = looseTime(item.created_at);
  // A banned link no longer redirects in Kutt: it arrives archived, never live. Kutt's last update is when it was banned.
  const banned = item.banned === true;
  const archivedAt = banned ? (looseTime(item.updated_at) ?? created) : undefined;
  if (banned && archivedAt === undefined) {
    return { line, slug: stringOf(item.address), error: 'was banned in Kutt and has no date to archive it at; it is not imported live' };
  }
  if (banned) notes.push('was banned in Kutt; imported archived');
  return rowRecord({
    line,
    slug: named.slug,
    url: stringOf(item.target),
    description: optStringOf(item, 'description'),
    ...(passworded && { visibility: 'secure' }),
    createdAt: created,
    ...(expires !== undefined && { expiresAt: expires }),
    ...(archivedAt !== undefined && { archivedAt }),
    sourceClicks: countOf(item.visit_count),
    notes,
  });
}

/**
 * Where the rows are: a page's `data`, or a bare array of pages or links;
 * several saved pages may follow one another (one per line).
 */
const PAGES = { paths: [[], ['data']], several: true };

/** A member of a bare array: a whole page (its links) or one link. */
const linksIn = (x: unknown): unknown[] => (isObject(x) && Array.isArray(x.data) ? x.data : [x]);

export const kuttJson: ImportFormat = {
  name: 'kutt',
  label: 'Kutt (API link list JSON)',
  sniff(head) {
    const h = head.trimStart();
    if (!h.startsWith('{') && !h.startsWith('[')) return 0;
    return h.includes('"address"') && h.includes('"target"') ? 2 : 0;
  },
  async *parse(chunks) {
    const noteDomain = domainNoter();
    const separate = caseSeparator('Kutt');
    let n = 0;
    for await (const row of jsonRows(chunks, PAGES, 'expected Kutt\'s link list: {"data":[{"address","target",…}]}')) {
      if ('error' in row) {
        yield row.error;
        return;
      }
      for (const item of linksIn(row.item)) yield linkRecord(item, ++n, noteDomain, separate);
    }
  },
};
