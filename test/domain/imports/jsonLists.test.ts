import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { jsonListMembers, JsonShapeError, JsonSyntaxError, type JsonListsSpec } from '../../../src/domain/imports/jsonLists.js';

/**
 * The streaming reader of JSON exports: it must agree with JSON.parse on
 * every text, cut into chunks anywhere (inside a key, an escape, a number),
 * so that a file JSON.parse refuses is refused and one it reads gives the
 * same rows in the same order.
 */

async function* chunked(text: string, sizes: readonly number[]): AsyncIterable<string> {
  let i = 0;
  for (let k = 0; i < text.length; k++) {
    const size = Math.max(1, sizes[k % Math.max(1, sizes.length)] ?? 7);
    yield text.slice(i, i + size);
    i += size;
  }
}

async function read(text: string, spec: JsonListsSpec, sizes: readonly number[] = [7]): Promise<unknown[] | 'syntax' | 'shape'> {
  const out: unknown[] = [];
  try {
    for await (const m of jsonListMembers(chunked(text, sizes), spec)) out.push(m);
    return out;
  } catch (e) {
    if (e instanceof JsonSyntaxError) return 'syntax';
    if (e instanceof JsonShapeError) return 'shape';
    throw e;
  }
}

/** What JSON.parse makes of the text, as the reader with the list at the top should answer. */
function expected(text: string): unknown[] | 'syntax' | 'shape' {
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    return 'syntax';
  }
  return Array.isArray(value) ? value : 'shape';
}

const ROOT: JsonListsSpec = { paths: [[]] };
const SHLINK: JsonListsSpec = { paths: [[], ['shortUrls', 'data']] };

describe('reading the rows of a JSON document as it arrives', () => {
  test('agrees with JSON.parse on any JSON text and on texts one character off, in chunks of any size', async () => {
    const mutated = fc
      .tuple(
        fc.json(),
        fc.nat(),
        fc.constantFrom('delete', 'insert', 'none'),
        fc.constantFrom(',', ']', '}', '"', '\\', ' ', 'x', '1', '[', '{', ':'),
      )
      .map(([text, at, how, ch]) => {
        const i = text.length === 0 ? 0 : at % text.length;
        return how === 'delete' ? text.slice(0, i) + text.slice(i + 1) : how === 'insert' ? text.slice(0, i) + ch + text.slice(i) : text;
      });
    const arrays = fc.array(fc.jsonValue(), { maxLength: 6 }).map((a) => JSON.stringify(a, null, 1));
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(mutated, arrays),
        fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 5 }),
        async (text, sizes) => {
          assert.deepEqual(await read(text, ROOT, sizes), expected(text), text);
        },
      ),
      { numRuns: 1500 },
    );
  });

  test('finds the list where the tool puts it, after and before anything else, and checks the rest', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.jsonValue(), { maxLength: 5 }),
        fc.jsonValue(),
        fc.integer({ min: 1, max: 11 }),
        async (rows, other, size) => {
          const text = JSON.stringify({ before: other, shortUrls: { pagination: other, data: rows, 'da\\"ta': other }, after: other });
          assert.deepEqual(await read(text, SHLINK, [size]), JSON.parse(JSON.stringify(rows)));
        },
      ),
      { numRuns: 500 },
    );
  });

  test('a document broken after its rows is refused; one with no list where the tool writes it is a shape error', async () => {
    assert.equal(await read('{"shortUrls":{"data":[{"shortCode":"a"}]}},', SHLINK), 'syntax');
    assert.equal(await read('{"shortUrls":{"data":[{"shortCode":"a"}],}}', SHLINK), 'syntax');
    assert.equal(await read('{"shortUrls":{"data":[{"shortCode":"a"}', SHLINK), 'syntax');
    assert.equal(await read('', SHLINK), 'syntax');
    assert.equal(await read('{"data":[]}', SHLINK), 'shape');
    assert.equal(await read('{"shortUrls":{"data":{}}}', SHLINK), 'shape', 'an object is no list unless the tool writes one');
    assert.deepEqual(await read('\uFEFF[1, "two"]', SHLINK), [1, 'two'], 'a byte-order mark is no part of the document');
  });

  test('an object of rows gives its values in the file’s order; several documents one after another', async () => {
    assert.deepEqual(await read('{"links":{"2":{"k":"b"},"1":{"k":"a"}}}', { paths: [['links']], objects: true }), [
      { k: 'b' },
      { k: 'a' },
    ]);
    const pages = '{"data":[1,2]}\n{"data":[3]}\n';
    assert.deepEqual(await read(pages, { paths: [[], ['data']], several: true }, [3]), [1, 2, 3]);
    assert.equal(await read(pages, { paths: [[], ['data']] }), 'syntax', 'one document unless several are allowed');
  });

  test('holds one member at a time: a member is yielded before the text after it has come', async () => {
    const rows = Array.from({ length: 1000 }, (_, i) => ({ shortCode: `c${i}`, longUrl: 'https://x.example/' }));
    const text = JSON.stringify({ shortUrls: { data: rows } });
    let sent = 0;
    async function* counted(): AsyncIterable<string> {
      for (let i = 0; i < text.length; i += 1024) {
        sent += 1024;
        yield text.slice(i, i + 1024);
      }
    }
    let firstAt = -1;
    for await (const m of jsonListMembers(counted(), SHLINK)) {
      if (firstAt === -1) firstAt = sent;
      assert.ok(typeof m === 'object');
    }
    assert.ok(firstAt <= 1024, `the first row came after ${firstAt} characters`);
  });
});
