import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, test } from 'node:test';
import { ROOT } from '../helpers/paths.js';

/**
 * The house rules of docs/server.md#databases that a reviewer could miss: no SQL
 * date function anywhere in src/ (timestamps are epoch ms computed in TS), and
 * no query building outside src/store/ and src/db/.
 */

const SRC = join(ROOT, 'src');

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sourceFiles(p));
    else if (/\.(ts|tsx|mts|cts|js|mjs)$/.test(name)) out.push(p);
  }
  return out;
}

/**
 * SQL time functions that differ per database. `now()` only counts when it is
 * not a method call (`Date.now()`, `this.now()` are the application clock).
 */
const DATE_FUNCTIONS: Array<[string, RegExp]> = [
  ['strftime', /\bstrftime\s*\(/i],
  ['date_format', /\bdate_format\s*\(/i],
  ['to_char', /\bto_char\s*\(/i],
  ['date_trunc', /\bdate_trunc\s*\(/i],
  ['julianday', /\bjulianday\s*\(/i],
  ['unix_timestamp', /\bunix_timestamp\s*\(/i],
  ['datetime(', /\bdatetime\s*\(/i],
  ['current_timestamp', /\bcurrent_timestamp\b/i],
  ['now()', /(?<![\w.$])now\s*\(\s*\)/i],
];

/** Kysely entry points that build or run SQL. */
const QUERY_BUILDING: Array<[string, RegExp]> = [
  ['selectFrom(', /\.selectFrom\s*\(/],
  ['insertInto(', /\.insertInto\s*\(/],
  ['updateTable(', /\.updateTable\s*\(/],
  ['deleteFrom(', /\.deleteFrom\s*\(/],
  ['sql`', /\bsql\s*`/],
];

function findings(files: readonly string[], rules: Array<[string, RegExp]>): string[] {
  const out: string[] = [];
  for (const file of files) {
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, i) => {
      for (const [name, re] of rules) if (re.test(line)) out.push(`${relative(ROOT, file)}:${i + 1}: ${name}: ${line.trim()}`);
    });
  }
  return out;
}

describe('portable SQL house rules', () => {
  const files = sourceFiles(SRC);

  test('the scan sees the whole source tree', () => {
    const rel = files.map((f) => relative(SRC, f).split(sep).join('/'));
    for (const expected of ['store/links.ts', 'store/discovery.ts', 'db/connect.ts', 'cli.ts']) {
      assert.ok(rel.includes(expected), `${expected} not scanned`);
    }
  });

  test('the patterns catch what they are meant to catch, and not the application clock', () => {
    const hits = (text: string, rules: Array<[string, RegExp]>) => rules.filter(([, re]) => re.test(text)).map(([n]) => n);
    assert.deepEqual(hits("select strftime('%Y', x)", DATE_FUNCTIONS), ['strftime']);
    assert.deepEqual(hits('WHERE expiry < NOW()', DATE_FUNCTIONS), ['now()']);
    assert.deepEqual(hits('default CURRENT_TIMESTAMP', DATE_FUNCTIONS), ['current_timestamp']);
    assert.deepEqual(hits("DATE_FORMAT(clicked_at, '%Y')", DATE_FUNCTIONS), ['date_format']);
    assert.deepEqual(hits('const t = Date.now(); this.now(); store.now();', DATE_FUNCTIONS), []);
    assert.deepEqual(hits('db.selectFrom("links")', QUERY_BUILDING), ['selectFrom(']);
    assert.deepEqual(hits('await sql`select 1`.execute(db)', QUERY_BUILDING), ['sql`']);
  });

  test('no SQL date or time function appears anywhere in src/', () => {
    assert.deepEqual(findings(files, DATE_FUNCTIONS), []);
  });

  test('queries are built only in src/store/ and src/db/', () => {
    const outside = files.filter((f) => {
      const rel = relative(SRC, f).split(sep).join('/');
      return !rel.startsWith('store/') && !rel.startsWith('db/');
    });
    assert.ok(outside.length > 0, 'there are files outside the data layer to check');
    assert.deepEqual(findings(outside, QUERY_BUILDING), []);
  });
});
