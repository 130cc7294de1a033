import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { csvField, CsvSyntaxError, readCsv, readCsvChunks, type CsvRecord } from '../../src/domain/csvRead.js';
import { parseLinksCsv } from '../../src/domain/linkRecords.js';

describe('CSV reading (RFC 4180)', () => {
  test('quoted fields keep commas, line breaks and doubled quotes', () => {
    const text = '\uFEFFslug,description\r\nbob,"says ""hi"", then\nleaves"\r\n"a,b",\r\n\r\nlast,x';
    assert.deepEqual(
      [...readCsv(text)],
      [
        { line: 1, fields: ['slug', 'description'] },
        { line: 2, fields: ['bob', 'says "hi", then\nleaves'] },
        { line: 4, fields: ['a,b', ''] },
        { line: 6, fields: ['last', 'x'] },
      ],
    );
  });

  test('malformed CSV is an error naming the line, never a guess', () => {
    const fails = (text: string, line: number, message: RegExp) => {
      assert.throws(
        () => [...readCsv(text)],
        (e: unknown) => e instanceof CsvSyntaxError && e.line === line && message.test(e.message),
        text,
      );
    };
    fails('a,b\n"open,2', 2, /not closed/);
    fails('a,b\n"x"y,2', 2, /after a closing quote/);
    fails('a,b\nsay "hi",2', 2, /must be quoted/);
  });

  test('a line break inside a quoted field is one line, CRLF or LF, for the records and errors after it', () => {
    // Spreadsheets write CRLF between rows and often inside a cell too.
    const text = 'slug,description\r\na,"two\r\nlines"\r\n\r\nb,"three\nmore\r\nlines"\r\nc,x\r\n';
    assert.deepEqual(
      [...readCsv(text)].map((r) => r.line),
      [1, 2, 5, 8],
    );
    assert.throws(
      () => [...readCsv(`${text}d,"open\r\n`)],
      (e: unknown) => e instanceof CsvSyntaxError && e.line === 9 && /not closed/.test(e.message),
    );
    assert.throws(
      () => [...readCsv(`${text}d,say "hi"\r\n`)],
      (e: unknown) => e instanceof CsvSyntaxError && e.line === 9 && /must be quoted/.test(e.message),
    );
  });

  test('read in chunks cut anywhere, a file gives the records and the error it gives read whole', async () => {
    const unit = fc.constantFrom('a', ',', '"', '""', '\n', '\r\n', '\r', ' ', 'é', '🎉', '\uFEFF');
    const outcome = async (records: AsyncIterable<CsvRecord> | Iterable<CsvRecord>) => {
      const out: unknown[] = [];
      try {
        for await (const r of records) out.push(r);
      } catch (e) {
        if (!(e instanceof CsvSyntaxError)) throw e;
        out.push({ line: e.line, error: e.message });
      }
      return out;
    };
    await fc.assert(
      fc.asyncProperty(fc.string({ unit, maxLength: 40 }), fc.uniqueArray(fc.nat(80), { maxLength: 5 }), async (text, cuts) => {
        const at = [0, ...cuts.filter((c) => c < text.length).sort((x, y) => x - y), text.length];
        // Cuts fall between UTF-16 units, so a chunk may end inside a surrogate pair.
        async function* chunks() {
          for (let i = 1; i < at.length; i++) yield text.slice(at[i - 1], at[i]);
        }
        assert.deepEqual(await outcome(readCsvChunks(chunks())), await outcome(readCsv(text)));
      }),
      { numRuns: 500 },
    );
  });

  test('any table survives quoting and reading back', () => {
    const cell = fc.string({ unit: fc.constantFrom('a', 'b', ',', '"', '\n', '\r\n', ' ', 'é', '🎉') });
    fc.assert(
      fc.property(fc.array(fc.array(cell, { minLength: 2, maxLength: 5 }), { minLength: 1, maxLength: 8 }), (rows) => {
        const width = rows[0]!.length;
        const table = rows.map((r) => Array.from({ length: width }, (_, i) => r[i] ?? ''));
        const text = table.map((r) => r.map(csvField).join(',')).join('\r\n');
        assert.deepEqual(
          [...readCsv(text)].map((r) => r.fields),
          table,
        );
      }),
      { numRuns: 300 },
    );
  });

  test('the links CSV: header names columns, tags split on commas, bad rows refused alone', () => {
    const parsed = parseLinksCsv('url,slug,tags\nhttps://a.test,a,"x, y"\nhttps://b.test,b\n,c,\n');
    assert.deepEqual(parsed[0]!.record, { slug: 'a', url: 'https://a.test', title: undefined, description: undefined, tags: ['x', 'y'] });
    assert.match(parsed[1]!.error!, /expected 3 fields, found 2/);
    assert.equal(parsed[2]!.error, 'url is required');
    assert.throws(() => parseLinksCsv('slug,url,owner\n'), /unknown column "owner"/);
    assert.throws(() => parseLinksCsv('slug,title\n'), /no "url" column/);
  });
});
