import { stringify, type Options } from 'csv-stringify/sync';
import { formatRfc3339 } from './timeseries.js';
import { UserAgentClassifier } from './userAgent.js';

/**
 * The one CSV encoder of the click export (docs/analytics.md#csv-export); both
 * export routes stream its output, so their bytes cannot drift apart. The
 * quoting is csv-stringify's; the formula guard is ours.
 */

export const CLICK_CSV_COLUMNS = ['clicked_at', 'referrer', 'user_agent', 'browser', 'os', 'authenticated', 'user'] as const;

/** RFC 4180 line break. */
export const CSV_EOL = '\r\n';

const FORMULA_TRIGGERS = new Set(['=', '+', '-', '@']);

/**
 * Characters a spreadsheet may skip before deciding a cell is a formula:
 * controls, format characters (zero-width spaces, joiners, bidi marks, BOM)
 * and every kind of space. Counting more as skippable only ever adds a
 * harmless quote, never removes a needed one.
 */
const SKIPPABLE = /^[\p{Cc}\p{Cf}\p{Z}\s]$/u;

/**
 * Spreadsheet formula injection guard
 * (docs/analytics.md#csv-export): a cell that starts with TAB or CR, or whose first character
 * after any run of white space and control characters is `=`, `+`, `-` or
 * `@`, gets a leading `'` so spreadsheets read it as text. Referrers are
 * attacker-chosen by construction (any site sends any Referer), so every text
 * cell passes through here.
 */
export function neutralizeFormula(value: string): string {
  if (value.length === 0) return value;
  const first = value.charCodeAt(0);
  // The common case — a URL, a UA, a name — decides on its first character.
  if (first > 0x20 && first < 0x7f) return FORMULA_TRIGGERS.has(value[0]!) ? `'${value}` : value;
  if (first === 0x09 || first === 0x0d) return `'${value}`;
  for (const ch of value) {
    if (SKIPPABLE.test(ch)) continue;
    return FORMULA_TRIGGERS.has(ch) ? `'${value}` : value;
  }
  return value;
}

/**
 * RFC 4180 records: a field holding a quote, comma, CR or LF is quoted, with
 * inner quotes doubled, after the formula guard. `quote_record_delimiter`
 * must be said: csv-stringify drops it once a record delimiter is given, and
 * a lone LF or CR would then go out unquoted.
 */
const RECORDS: Options = {
  record_delimiter: CSV_EOL,
  quote_record_delimiter: true,
  cast: { string: neutralizeFormula },
};

/** One escaped, quoted cell. */
export function csvCell(value: string | null | undefined): string {
  return stringify([[value]], { ...RECORDS, eof: false });
}

/** One CSV record, CRLF-terminated. */
export function csvLine(cells: ReadonlyArray<string | null | undefined>): string {
  return stringify([cells], RECORDS);
}

/** Records, each CRLF-terminated, in one call (a batch of rows costs one set-up, not one per row). */
export function csvLines(rows: Array<ReadonlyArray<string | null | undefined>>): string {
  return rows.length === 0 ? '' : stringify(rows, RECORDS);
}

export const CLICK_CSV_HEADER = csvLine(CLICK_CSV_COLUMNS);

/** A click as the export reads it. */
export interface ExportClick {
  clickedAt: number;
  referrer: string | null;
  userAgent: string | null;
  userId: string | null;
  /** The clicker's display name; only read when the caller may see attribution. */
  userName: string | null;
}

/**
 * Encodes click rows in the export's column order. `attribution` is the
 * caller's CanManageShares: without it the `user_agent` and `user` columns
 * stay present but empty in every row, while `browser`/`os` (families, no
 * fingerprint) stay populated (Governing:
 * docs/analytics.md#csv-export, docs/analytics.md#who-sees-what).
 */
export class ClickCsvEncoder {
  private readonly agents = new UserAgentClassifier();

  constructor(readonly attribution: boolean) {}

  header(): string {
    return CLICK_CSV_HEADER;
  }

  line(c: ExportClick): string {
    return csvLine(this.cells(c));
  }

  /** The lines of several clicks, as one string. */
  lines(clicks: readonly ExportClick[]): string {
    return csvLines(clicks.map((c) => this.cells(c)));
  }

  private cells(c: ExportClick): Array<string | null> {
    const ua = this.agents.classify(c.userAgent);
    const authenticated = c.userId !== null && c.userId !== '';
    return [
      formatRfc3339(c.clickedAt),
      c.referrer,
      this.attribution ? c.userAgent : '',
      ua.browser,
      ua.os,
      authenticated ? 'true' : 'false',
      this.attribution && authenticated ? c.userName : '',
    ];
  }
}
