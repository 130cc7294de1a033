import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { CLICK_CSV_HEADER, ClickCsvEncoder, csvCell, csvLine, neutralizeFormula } from '../../src/domain/csv.js';
import { parseCsv } from '../store/analyticsFixtures.js';

/**
 * The export's CSV encoder (docs/analytics.md#csv-export, Security
 * Requirements "CSV Injection"): RFC 4180 quoting plus the formula guard.
 * Checked by parsing the output back with an independent RFC 4180 parser.
 */

/** What a spreadsheet skips before deciding a cell is a formula (a deliberately broad reading). */
const LEADING_SKIPPABLE = /^[\p{Cc}\p{Cf}\p{Z}\s]*/u;

/** True when a spreadsheet could read the cell as a formula. */
function formulaRisk(cell: string): boolean {
  if (cell.startsWith("'")) return false;
  if (cell.startsWith('\t') || cell.startsWith('\r')) return true;
  const rest = cell.replace(LEADING_SKIPPABLE, '');
  return rest.length > 0 && '=+-@'.includes(rest[0]!);
}

describe('CSV encoder (docs/analytics.md)', () => {
  test('the header is exactly the seven columns, CRLF-terminated', () => {
    assert.equal(CLICK_CSV_HEADER, 'clicked_at,referrer,user_agent,browser,os,authenticated,user\r\n');
  });

  test('formula triggers are neutralised with a leading quote', () => {
    for (const v of ['=SUM(A1)', '+1', '-1+2', '@cmd', '=HYPERLINK("http://evil")', '\t=1', '\r=1', ' \n =1', '\u200b=1', '\u00a0@x']) {
      assert.equal(neutralizeFormula(v), `'${v}`, JSON.stringify(v));
    }
    for (const v of ['\tplain', '\rplain']) assert.equal(neutralizeFormula(v), `'${v}`, 'a cell starting with TAB or CR is escaped');
    for (const v of ['https://a.example/x', 'Mozilla/5.0', 'Alice', 'a=b', '1-2', '', ' plain', '\nplain']) {
      assert.equal(neutralizeFormula(v), v, JSON.stringify(v));
    }
  });

  test('RFC 4180 quoting applies after the guard', () => {
    assert.equal(csvCell('a,b'), '"a,b"');
    assert.equal(csvCell('say "hi"'), '"say ""hi"""');
    assert.equal(csvCell('line\r\nbreak'), '"line\r\nbreak"');
    assert.equal(csvCell('=1,2'), `"'=1,2"`);
    assert.equal(csvCell(null), '');
    assert.equal(csvLine(['a', null, 'b"c']), 'a,,"b""c"\r\n');
  });

  test('a row: UTC RFC 3339 time, families, and attribution only for managers', () => {
    const click = {
      clickedAt: Date.UTC(2026, 6, 16, 23, 30, 0, 5),
      referrer: '=cmd|"/C calc"!A0',
      userAgent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:125.0) Gecko/20100101 Firefox/125.0',
      userId: 'u1',
      userName: '@Alice',
    };
    const manager = parseCsv(new ClickCsvEncoder(true).line(click))[0]!;
    assert.deepEqual(manager, ['2026-07-16T23:30:00.005Z', `'=cmd|"/C calc"!A0`, click.userAgent, 'Firefox', 'Windows', 'true', "'@Alice"]);
    const recipient = parseCsv(new ClickCsvEncoder(false).line(click))[0]!;
    assert.deepEqual(recipient, ['2026-07-16T23:30:00.005Z', `'=cmd|"/C calc"!A0`, '', 'Firefox', 'Windows', 'true', '']);
    const anonymous = parseCsv(
      new ClickCsvEncoder(true).line({ ...click, userId: null, userName: null, userAgent: null, referrer: null }),
    )[0]!;
    assert.deepEqual(anonymous, ['2026-07-16T23:30:00.005Z', '', '', 'Unknown', 'Unknown', 'false', '']);
  });

  test('fuzz: hostile values round-trip through a real CSV parse and never open with a formula trigger', () => {
    const hostile = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 300 }),
      fc
        .tuple(
          fc.stringMatching(/^[\s\t\r\n\u0000-\u001f\u00a0\u200b\u2028\ufeff]{0,4}$/),
          fc.constantFrom('=', '+', '-', '@', '"', ',', '\r\n', '\n', '\r', "'", ''),
          fc.string({ unit: 'grapheme', maxLength: 60 }),
        )
        .map(([ws, trigger, rest]) => ws + trigger + rest),
      fc.constantFrom('=SUM(A1)', '-2+3', '@SUM(1)', '+cmd', '=1"2,3\r\n4', '\u0000=1', '\u202e=1'),
    );
    const row = fc.record({
      clickedAt: fc.integer({ min: 0, max: Date.UTC(2100, 0, 1) }),
      referrer: fc.option(hostile, { nil: null }),
      userAgent: fc.option(hostile, { nil: null }),
      userId: fc.option(fc.uuid(), { nil: null }),
      userName: fc.option(hostile, { nil: null }),
    });
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 8 }), fc.boolean(), (rows, attribution) => {
        const enc = new ClickCsvEncoder(attribution);
        const text = enc.header() + rows.map((r) => enc.line(r)).join('');
        // Lone surrogates cannot survive UTF-8 on the wire; compare what a client receives.
        const wire = Buffer.from(text, 'utf8').toString('utf8');
        const parsed = parseCsv(wire);
        assert.equal(parsed.length, rows.length + 1);
        assert.deepEqual(parsed[0], ['clicked_at', 'referrer', 'user_agent', 'browser', 'os', 'authenticated', 'user']);
        rows.forEach((r, i) => {
          const cells = parsed[i + 1]!;
          assert.equal(cells.length, 7);
          const back = (cell: string, original: string | null) => {
            const expected = Buffer.from(original ?? '', 'utf8').toString('utf8');
            assert.ok(cell === expected || cell === `'${expected}`, `${JSON.stringify(cell)} vs ${JSON.stringify(expected)}`);
          };
          back(cells[1]!, r.referrer);
          back(cells[2]!, attribution ? r.userAgent : null);
          back(cells[6]!, attribution && r.userId ? r.userName : null);
          assert.equal(cells[5], r.userId ? 'true' : 'false');
          for (const cell of cells) assert.ok(!formulaRisk(cell), `formula risk in ${JSON.stringify(cell)}`);
        });
      }),
      { numRuns: 1_000 },
    );
  });
});
