import type { ImportedRecord, ImportFormat } from './format.js';
import {
  countOf,
  caseSeparator,
  csvHeader,
  domainNoter,
  hasColumns,
  isObject,
  isTableRow,
  jsonRows,
  lifeTime,
  looseTime,
  missingColumns,
  optListOf,
  optStringOf,
  rowRecord,
  shortUrlParts,
  stringOf,
  tableRows,
} from './table.js';

/**
 * Shlink (docs/import-formats.md#shlink): the web client's "Export" CSV of
 * short URLs and the REST API's short-URL list.
 */

/**
 * The web client writes `createdAt,domain,shortCode,shortUrl,longUrl,title,tags,visits`
 * with tags joined by `|`; releases before it had domains wrote
 * `createdAt,shortUrl,longUrl,title,tags,visits` with tags joined by `,`.
 */
export const shlinkCsv: ImportFormat = {
  name: 'shlink-csv',
  label: 'Shlink (web client CSV export)',
  sniff(head) {
    const header = csvHeader(head);
    return hasColumns(header, 'shorturl', 'longurl', 'createdat') ? 2 : 0;
  },
  refusal(head) {
    const missing = missingColumns(csvHeader(head), 'shorturl', 'longurl', 'createdat');
    return `its first line is not the web client's CSV header (no ${missing.map((m) => `"${m}"`).join(', ')} column)`;
  },
  async *parse(chunks) {
    const noteDomain = domainNoter();
    const separate = caseSeparator('Shlink');
    for await (const row of tableRows(chunks)) {
      if (!isTableRow(row)) {
        yield row;
        continue;
      }
      const fromUrl = shortUrlParts(row.cell('shorturl'));
      const domain = row.cell('domain') || fromUrl?.domain;
      const code = row.cell('shortcode') || fromUrl?.key || '';
      // A domain column marks the newer export, which joins tags with `|`; tag names may then hold commas.
      const tags = row.opt('tags');
      const named = separate(code);
      yield rowRecord({
        line: row.line,
        slug: named.slug,
        url: row.cell('longurl'),
        title: row.opt('title'),
        tags: optListOf(tags, row.cell('domain') !== '' || tags?.includes('|') === true ? '|' : ','),
        createdAt: looseTime(row.cell('createdat')),
        // The CSV does not say; Shlink forwards the visitor's query unless a link turned it off.
        forwardPathAndQuery: true,
        sourceClicks: countOf(row.cell('visits')),
        notes: [...noteDomain(domain), ...named.notes],
      });
    }
  },
};

/** Where the rows are: the REST answer's `shortUrls.data`, or a bare array of its items. */
const SHORT_URLS = { paths: [[], ['shortUrls', 'data']] };

/**
 * One short URL of `GET /rest/v3/short-urls` (`shortUrls.data[]`), as Shlink's
 * `ShortUrlDataTransformer` writes it: `meta.validSince` / `meta.validUntil` /
 * `meta.maxVisits`, `forwardQuery` (absent before 2.9, when every link forwarded).
 */
function shortUrlRecord(
  item: unknown,
  line: number,
  noteDomain: (d: string | undefined) => string[],
  separate: ReturnType<typeof caseSeparator>,
): ImportedRecord {
  if (!isObject(item)) return { line, error: 'expected a short URL object' };
  const meta = isObject(item.meta) ? item.meta : {};
  const visits = isObject(item.visitsSummary) ? item.visitsSummary.total : item.visitsCount;
  const notes = noteDomain(stringOf(item.domain) || undefined);
  const created = looseTime(item.dateCreated);
  const until = lifeTime(meta.validUntil, 'meta.validUntil');
  if ('error' in until) return { line, slug: stringOf(item.shortCode), error: until.error };
  const validUntil = until.at;
  // A "valid since" written but unreadable refuses the row, as an unreadable expiry does: guessing could open the link early.
  const since = lifeTime(meta.validSince, 'meta.validSince');
  if ('error' in since) return { line, slug: stringOf(item.shortCode), error: since.error };
  const total = countOf(visits);
  // Shlink stops redirecting once maxVisits is reached: such a link arrives archived, never live.
  const maxVisits = countOf(meta.maxVisits);
  const spent = maxVisits !== undefined && total !== undefined && total >= maxVisits;
  if (maxVisits !== undefined && !spent) notes.push(`Shlink's limit of ${maxVisits} visits was dropped (joe-links has no visit limit)`);
  // The only date known to be past: its creation (Shlink does not record when the last visit came).
  const archiveAt = created;
  if (spent && archiveAt === undefined) {
    return {
      line,
      slug: stringOf(item.shortCode),
      error: `reached Shlink's limit of ${maxVisits} visits and has no date to archive it at`,
    };
  }
  if (spent) notes.push(`reached Shlink's limit of ${maxVisits} visits; imported archived`);
  // joe-links has no "valid from": a link Shlink does not redirect yet arrives archived, which the import decides by its clock.
  const liveFrom = spent || since.at === undefined ? undefined : validSince(since.at);
  const named = separate(stringOf(item.shortCode));
  notes.push(...named.notes);
  const record = rowRecord({
    line,
    slug: named.slug,
    url: stringOf(item.longUrl),
    title: optStringOf(item, 'title'),
    tags: Array.isArray(item.tags) ? item.tags.map(stringOf).filter((t) => t !== '') : undefined,
    createdAt: created,
    ...(validUntil !== undefined && { expiresAt: validUntil }),
    ...(spent && { archivedAt: archiveAt }),
    // Shlink appends the visitor's query unless forwardQuery is false; here that is the forwarding flag.
    forwardPathAndQuery: item.forwardQuery !== false,
    sourceClicks: total,
    notes,
  });
  return liveFrom === undefined || !record.record ? record : { ...record, liveFrom };
}

/** Shlink's `meta.validSince`, with the note its link gets when that date is still ahead at import time. */
const validSince = (at: number): { at: number; note: string } => ({
  at,
  note: `Shlink starts redirecting it at ${new Date(at).toISOString()} ("valid since"); imported archived: unarchive it then to make it live`,
});

/** The REST list (`{"shortUrls":{"data":[…],"pagination":{…}}}`, one page or all), or a bare array of its items. */
export const shlinkJson: ImportFormat = {
  name: 'shlink-json',
  label: 'Shlink (REST API short-URL list JSON)',
  sniff(head) {
    const h = head.trimStart();
    if (!h.startsWith('{') && !h.startsWith('[')) return 0;
    if (h.includes('"shortUrls"') && h.includes('"shortCode"')) return 2;
    return h.includes('"shortCode"') && h.includes('"longUrl"') ? 1 : 0;
  },
  async *parse(chunks) {
    const noteDomain = domainNoter();
    // A JSON document has no useful line numbers; rows are numbered by their place in the list.
    const separate = caseSeparator('Shlink');
    let n = 0;
    for await (const row of jsonRows(chunks, SHORT_URLS, 'expected Shlink\'s short-URL list: {"shortUrls":{"data":[…]}}')) {
      yield 'error' in row ? row.error : shortUrlRecord(row.item, ++n, noteDomain, separate);
    }
  },
};
