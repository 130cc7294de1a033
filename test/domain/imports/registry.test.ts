import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { ImportedRecord, ImportFormat } from '../../../src/domain/imports/format.js';
import { chooseFormat, SNIFF_BYTES, TOOL_NAMES } from '../../../src/domain/imports/registry.js';
import { kuttJson } from '../../../src/domain/imports/kutt.js';
import { shlinkJson } from '../../../src/domain/imports/shlink.js';
import { yourlsCsv, yourlsTsv } from '../../../src/domain/imports/yourls.js';
import { IMPORT_FIXTURES } from '../../helpers/paths.js';

/**
 * `--from` with a tool's plain name: the variant is read from the content,
 * and a file that is none of the tool's variants is refused saying what it
 * lacks. The YOURLS fixtures reproduce `mysql --batch` (its escaping of tab,
 * newline and backslash, NULL as a word) and phpMyAdmin's CSV export of
 * `yourls_url` (columns in the order of YOURLS' `yourls_create_sql_tables`:
 * keyword, url, title, timestamp, ip, clicks), which leaves the header out by default.
 */

const fixture = (name: string): string => readFileSync(new URL(name, IMPORT_FIXTURES), 'utf8');

async function* chunked(text: string, size = 23): AsyncIterable<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

async function parse(format: ImportFormat, text: string): Promise<ImportedRecord[]> {
  const out: ImportedRecord[] = [];
  for await (const r of format.parse(chunked(text))) out.push(r);
  return out;
}

const chosen = (from: string | undefined, text: string): string => {
  const d = chooseFormat(from, text.slice(0, SNIFF_BYTES));
  return 'format' in d ? d.format.name : `error: ${d.error}`;
};

describe('--from a tool name', () => {
  test('every tool has a plain name', () => {
    for (const tool of ['golink', 'trotto', 'slash', 'shlink', 'yourls', 'bitly', 'dub', 'kutt']) {
      assert.ok(TOOL_NAMES.includes(tool), tool);
    }
  });

  test('the variant comes from the content', () => {
    assert.equal(chosen('shlink', fixture('shlink.csv')), 'shlink-csv');
    assert.equal(chosen('shlink', fixture('shlink.json')), 'shlink-json');
    assert.equal(chosen('yourls', fixture('yourls.csv')), 'yourls-csv');
    assert.equal(chosen('yourls', fixture('yourls.json')), 'yourls-json');
    assert.equal(chosen('yourls', fixture('yourls-batch.tsv')), 'yourls-tsv');
    assert.equal(chosen('yourls', fixture('yourls-headerless.csv')), 'yourls-csv');
    assert.equal(chosen('bitly', fixture('bitly.csv')), 'bitly-csv');
    assert.equal(chosen('dub', fixture('dub.csv')), 'dub-csv');
    assert.equal(chosen('kutt', fixture('kutt.json')), 'kutt');
    assert.equal(chosen('golink', fixture('golink.jsonl')), 'golink');
    assert.equal(chosen(undefined, fixture('yourls-batch.tsv')), 'yourls-tsv');
    assert.equal(chosen('shlink-csv', 'anything'), 'shlink-csv', "a format's own name still forces it");
  });

  test('a file that is none of the tool’s variants is refused naming the missing header', () => {
    const headerless = 'https://bit.ly/abc,https://example.com/,Example\n';
    assert.match(chosen('bitly', headerless), /^error: the file is not a bitly export: .*\(no "link" or "destination url" column\)/);
    assert.match(
      chosen('dub', 'Link,URL\nx,https://a.example/\n'),
      /^error: the file is not a dub export: .*no "short link" or "destination url" column/,
    );
    assert.match(chosen('shlink', 'code,url\nx,https://a.example/\n'), /no "shorturl", "longurl", "createdat" column/);
    assert.match(chosen('yourls', 'code,link\nx,https://a.example/\n'), /neither the yourls_url header \(no "keyword" or "url" column\)/);
    assert.match(chosen('nope', 'x'), /^error: unknown format "nope"; the formats are: jsonl, csv, golink/);
  });

  test('a header-less CSV without --from is refused saying its header is missing', () => {
    assert.match(chosen(undefined, 'go,https://a.example/,Title\n'), /CSV without a header line/);
  });
});

describe('YOURLS table exports', () => {
  test('mysql --batch: tab-separated, backslash escapes undone, NULL blank, a header of column names', async () => {
    const rows = await parse(yourlsTsv, fixture('yourls-batch.tsv'));
    assert.deepEqual(rows[0], {
      line: 2,
      slug: 'ozh',
      record: { slug: 'ozh', url: 'http://ozh.org/', title: 'Ozh\tblog\\ and more', createdAt: Date.parse('2009-06-23T18:08:07Z') },
      sourceClicks: 12,
    });
    assert.equal(rows[1]!.record!.title, '', 'NULL is no title');
    assert.equal(rows[2]!.record!.title, 'About\nOzh');
    assert.equal(rows.length, 3);
  });

  test('mysql --batch --skip-column-names: rows in table order', async () => {
    const text = fixture('yourls-batch.tsv').split('\n').slice(1).join('\n');
    assert.equal(chosen('yourls', text), 'yourls-tsv');
    const rows = await parse(yourlsTsv, text);
    assert.equal(rows[0]!.line, 1);
    assert.equal(rows[0]!.record!.url, 'http://ozh.org/');
    assert.equal(rows[0]!.sourceClicks, 12);
  });

  test('CSV without a header (phpMyAdmin’s default): the first row is a link, read in table order', async () => {
    const rows = await parse(yourlsCsv, fixture('yourls-headerless.csv'));
    assert.equal(rows.length, 3);
    assert.equal(rows[2]!.record!.title, '', "phpMyAdmin's NULL is no title");
    assert.deepEqual(rows[0], {
      line: 1,
      slug: 'ozh',
      record: { slug: 'ozh', url: 'http://ozh.org/', title: "Ozh's blog, and more", createdAt: Date.parse('2009-06-23T18:08:07Z') },
      sourceClicks: 12,
    });
  });
});

describe('dates that keep a link live', () => {
  test('an unreadable expiry refuses its row instead of importing the link without one', async () => {
    const kutt = await parse(
      kuttJson,
      JSON.stringify({ data: [{ address: 'x', target: 'https://x.example/', expire_in: 'next tuesday' }] }),
    );
    assert.deepEqual(kutt, [{ line: 1, slug: 'x', error: 'expire_in "next tuesday" is not a date and time' }]);
    const shlink = await parse(
      shlinkJson,
      JSON.stringify({
        shortUrls: { data: [{ shortCode: 'y', longUrl: 'https://y.example/', meta: { validUntil: '2031-02-30T00:00:00Z' } }] },
      }),
    );
    assert.deepEqual(shlink, [{ line: 1, slug: 'y', error: 'meta.validUntil "2031-02-30T00:00:00Z" is not a date and time' }]);
  });
});
