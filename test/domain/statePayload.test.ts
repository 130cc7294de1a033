import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, test } from 'node:test';
import { crc32, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import {
  MAX_JSON_BYTES,
  STATE_LINK_ID,
  newStateLinkId,
  payloadSha256,
  validatePayload,
  type PayloadCheck,
} from '../../src/domain/statePayload.js';
import { TSX_IMPORT } from '../helpers/cli.js';
import { PREFIX, asBody, encodeState } from '../http/stateLinkFixtures.js';

/** validatePayload (the codes and limits of docs/state-links.md#payload-rules) over an adversarial corpus and random inputs. */

const SEED_CODES = new Set(['bad_prefix', 'bad_encoding', 'bad_gzip', 'bad_json', 'too_large']);

const check = (body: string, prefix = PREFIX): PayloadCheck => validatePayload(body, prefix);
const codeOf = (body: string, prefix = PREFIX): string => {
  const r = check(body, prefix);
  return r.ok ? 'ok' : r.code;
};

/** One gzip member built by hand, so every header field and trailer value can be set. */
function member(
  content: Buffer,
  opts: { cm?: number; flg?: number; fields?: Buffer; crc?: number; isize?: number; deflated?: Buffer } = {},
): Buffer {
  const header = Buffer.from([0x1f, 0x8b, opts.cm ?? 8, opts.flg ?? 0, 0, 0, 0, 0, 0, 3]);
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(opts.crc ?? crc32(content), 0);
  trailer.writeUInt32LE(opts.isize ?? content.length, 4);
  return Buffer.concat([header, opts.fields ?? Buffer.alloc(0), opts.deflated ?? deflateRawSync(content), trailer]);
}

const json = (text: string | Buffer) => (typeof text === 'string' ? Buffer.from(text, 'utf8') : text);
const OBJ = json('{"view":"board","items":[1,2,3]}');

describe('state payload: valid payloads', () => {
  test('the example state is accepted and its JSON comes back', () => {
    const r = check(encodeState({ view: 'board', items: [1, 2, 3] }));
    assert.ok(r.ok);
    assert.deepEqual(JSON.parse(r.json), { view: 'board', items: [1, 2, 3] });
  });

  test('a hand-built member equal to what browsers emit is accepted; a stored (level 0) block too', () => {
    assert.equal(codeOf(asBody(member(OBJ))), 'ok');
    assert.equal(codeOf(asBody(gzipSync(OBJ, { level: 0 }))), 'ok');
  });

  test('JSON of exactly 256 KiB is accepted, one byte more is too_large', () => {
    const exact = `{"a":"${'x'.repeat(MAX_JSON_BYTES - 8)}"}`;
    assert.equal(Buffer.byteLength(exact), MAX_JSON_BYTES);
    assert.equal(codeOf(asBody(gzipSync(exact))), 'ok');
    const over = `{"a":"${'x'.repeat(MAX_JSON_BYTES - 7)}"}`;
    assert.equal(codeOf(asBody(gzipSync(over))), 'too_large');
  });

  test('deeply nested JSON objects and arrays are judged without throwing', () => {
    const deepObject = `${'{"a":'.repeat(40_000)}1${'}'.repeat(40_000)}`;
    const deepArrays = `{"a":${'['.repeat(120_000)}${']'.repeat(120_000)}}`;
    for (const text of [deepObject, deepArrays]) {
      assert.ok(Buffer.byteLength(text) <= MAX_JSON_BYTES);
      const code = codeOf(asBody(gzipSync(text)));
      assert.ok(code === 'ok' || code === 'bad_json', code);
    }
  });

  test('an escaped lone surrogate is valid JSON in valid UTF-8, so it is accepted (the app judges its fields)', () => {
    assert.equal(codeOf(asBody(gzipSync('{"s":"\\ud800"}'))), 'ok');
  });

  test('a prefix using every allowed character class works, and the default prefix is then refused', () => {
    const prefix = '#AZaz09._~=-';
    const body = encodeState({ ok: true }, prefix);
    assert.equal(codeOf(body, prefix), 'ok');
    assert.equal(codeOf(encodeState({ ok: true }), prefix), 'bad_prefix');
    const longest = `#${'A'.repeat(32)}`;
    assert.equal(codeOf(encodeState({}, longest), longest), 'ok');
  });
});

describe('state payload: the corpus of refusals', () => {
  test('bad_prefix: missing, wrong version, wrong case, leading space', () => {
    for (const body of ['', 'state=v1.H4sI', '#state=v2.H4sI', '#STATE=v1.H4sI', ` ${encodeState({})}`]) {
      assert.equal(codeOf(body), 'bad_prefix', JSON.stringify(body));
    }
  });

  test('bad_encoding: empty, padding, foreign characters, impossible length', () => {
    const valid = encodeState({ a: 1 });
    const text = valid.slice(PREFIX.length);
    const padded = text + '='.repeat((4 - (text.length % 4)) % 4 || 1);
    for (const body of [
      PREFIX,
      PREFIX + padded,
      `${valid}=`,
      `${valid}==`,
      PREFIX + text.replace(/[-_]/g, '+') + '+/',
      `${valid} `,
      `${valid}\n`,
      PREFIX + text.slice(0, 8) + '.' + text.slice(8),
      PREFIX + text.slice(0, 8) + '%2B' + text.slice(8),
      PREFIX + 'é' + text,
    ]) {
      assert.equal(codeOf(body), 'bad_encoding', JSON.stringify(body.slice(0, 60)));
    }
    // Length ≡ 1 (mod 4) can never be base64.
    let n = 0;
    let t = text;
    while (t.length % 4 !== 1) t = text + 'A'.repeat(++n);
    assert.equal(codeOf(PREFIX + t), 'bad_encoding');
  });

  test('bad_encoding: non-canonical spellings whose unused trailing bits are set decode to the same bytes but are refused', () => {
    let tested = 0;
    for (let i = 0; tested < 2 && i < 50; i++) {
      const bytes = gzipSync(json(`{"n":${i}}`));
      if (bytes.length % 3 === 0) continue;
      const text = bytes.toString('base64url');
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
      const last = alphabet.indexOf(text[text.length - 1]!);
      const sloppy = text.slice(0, -1) + alphabet[last ^ 1];
      // Node's own decoder ignores those bits, which is why the round-trip check exists.
      assert.deepEqual(Buffer.from(sloppy, 'base64url'), bytes);
      assert.equal(codeOf(PREFIX + sloppy), 'bad_encoding');
      tested++;
    }
    assert.equal(tested, 2);
  });

  test('bad_gzip: magic, method, every header flag, CRC, ISIZE, members, trailing bytes, truncation, other containers', () => {
    const good = member(OBJ);
    const fhcrc = Buffer.alloc(2);
    fhcrc.writeUInt16LE(crc32(Buffer.from([0x1f, 0x8b, 8, 2, 0, 0, 0, 0, 0, 3])) & 0xffff);
    const cases: Array<[string, Buffer]> = [
      ['not gzip at all', Buffer.from('hello, this is not gzip data at all')],
      ['bad magic', Buffer.concat([Buffer.from([0x1f, 0x8c]), good.subarray(2)])],
      ['CM=7', member(OBJ, { cm: 7 })],
      ['FTEXT', member(OBJ, { flg: 1 })],
      ['FHCRC', member(OBJ, { flg: 2, fields: fhcrc })],
      ['FEXTRA', member(OBJ, { flg: 4, fields: Buffer.from([4, 0, 0x41, 0x42, 2, 0]) })],
      ['FNAME', member(OBJ, { flg: 8, fields: Buffer.from('state.json\0', 'latin1') })],
      ['FCOMMENT', member(OBJ, { flg: 16, fields: Buffer.from('hi\0', 'latin1') })],
      ['reserved flag bit', member(OBJ, { flg: 0x20 })],
      ['wrong CRC', member(OBJ, { crc: (crc32(OBJ) ^ 1) >>> 0 })],
      ['wrong ISIZE', member(OBJ, { isize: OBJ.length + 1 })],
      ['ISIZE off by 2^32', member(OBJ, { isize: 0 })],
      ['two members', Buffer.concat([good, good])],
      ['two members, second empty', Buffer.concat([good, gzipSync(Buffer.alloc(0))])],
      ['one trailing zero byte', Buffer.concat([good, Buffer.from([0])])],
      ['trailing garbage', Buffer.concat([good, Buffer.from('garbage!')])],
      ['truncated trailer', good.subarray(0, good.length - 1)],
      ['truncated deflate stream', member(OBJ, { deflated: deflateRawSync(OBJ).subarray(0, 5) })],
      ['header only', good.subarray(0, 10)],
      ['zlib container instead of gzip', deflateSync(OBJ)],
      ['raw deflate without header', deflateRawSync(OBJ)],
    ];
    for (const [name, bytes] of cases) assert.equal(codeOf(asBody(bytes)), 'bad_gzip', name);
  });

  test('bad_json: not UTF-8 (overlong, encoded surrogates, bad continuation, past U+10FFFF), BOM, not JSON, not an object', () => {
    const inString = (bytes: number[]) => Buffer.concat([json('{"a":"'), Buffer.from(bytes), json('"}')]);
    const cases: Array<[string, Buffer]> = [
      ['overlong "/"', inString([0xc0, 0xaf])],
      ['overlong NUL', inString([0xc0, 0x80])],
      ['overlong 3-byte', inString([0xe0, 0x80, 0xaf])],
      ['lone high surrogate as UTF-8', inString([0xed, 0xa0, 0x80])],
      ['lone low surrogate as UTF-8', inString([0xed, 0xb0, 0x80])],
      ['surrogate pair as CESU-8', inString([0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80])],
      ['bad continuation', inString([0xe2, 0x28, 0xa1])],
      ['past U+10FFFF', inString([0xf4, 0x90, 0x80, 0x80])],
      ['5-byte form', inString([0xf8, 0x88, 0x80, 0x80, 0x80])],
      ['latin-1 byte', inString([0xe9])],
      ['byte order mark', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), json('{}')])],
      ['empty', Buffer.alloc(0)],
      ['array', json('[1,2,3]')],
      ['null', json('null')],
      ['string', json('"state"')],
      ['number', json('42')],
      ['boolean', json('true')],
      ['truncated', json('{"a":1')],
      ['trailing text', json('{}x')],
      ['NaN', json('{"a":NaN}')],
      ['single quotes', json("{'a':1}")],
    ];
    for (const [name, content] of cases) assert.equal(codeOf(asBody(gzipSync(content))), 'bad_json', name);
  });

  test('too_large: a body past prefix + 65,536 characters, whatever it holds', () => {
    assert.equal(codeOf(PREFIX + 'A'.repeat(65_536)), 'bad_gzip');
    assert.equal(codeOf(PREFIX + 'A'.repeat(65_537)), 'too_large');
    assert.equal(codeOf('x'.repeat(PREFIX.length + 65_537)), 'too_large');
  });
});

describe('state payload: a gzip bomb', () => {
  test('is refused as too_large, and inflating it stops at 256 KiB instead of allocating its full size', () => {
    // ~48 MB of JSON in one member that still fits the body limit.
    const content = Buffer.alloc(48 * 1024 * 1024, 0x61);
    content.write('{"a":"', 0);
    content.write('"}', content.length - 2);
    const body = asBody(gzipSync(content, { level: 9 }));
    assert.ok(body.length <= PREFIX.length + 65_536, `bomb body is ${body.length} chars`);
    assert.equal(codeOf(body), 'too_large');

    // Peak memory is measured in a fresh process: validating the bomb must
    // barely move the peak RSS, while fully inflating it (the control) must
    // move it by the bomb's size, showing the measurement can tell.
    const dir = mkdtempSync(join(tmpdir(), 'joe-links-bomb-'));
    try {
      writeFileSync(join(dir, 'bomb.txt'), body);
      const modUrl = pathToFileURL(join(process.cwd(), 'src/domain/statePayload.ts')).href;
      const script = `
        import { readFileSync } from 'node:fs';
        import { gunzipSync } from 'node:zlib';
        const { validatePayload } = await import(${JSON.stringify(modUrl)});
        const body = readFileSync(${JSON.stringify(join(dir, 'bomb.txt'))}, 'utf8');
        const small = '#state=v1.' + (await import('node:zlib')).gzipSync('{"a":1}').toString('base64url');
        for (let i = 0; i < 50; i++) validatePayload(small, '#state=v1.');
        const peak = () => process.resourceUsage().maxRSS;
        const before = peak();
        const codes = [];
        for (let i = 0; i < 5; i++) codes.push(validatePayload(body, '#state=v1.').code);
        const afterValidate = peak();
        const full = gunzipSync(Buffer.from(body.slice(10), 'base64url'));
        const afterFull = peak();
        console.log(JSON.stringify({ codes, validateKiB: afterValidate - before, fullKiB: afterFull - afterValidate, fullBytes: full.length }));
      `;
      const r = spawnSync(process.execPath, ['--import', TSX_IMPORT, '--input-type=module', '-e', script], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      const m = JSON.parse(r.stdout.trim().split('\n').pop()!) as {
        codes: string[];
        validateKiB: number;
        fullKiB: number;
        fullBytes: number;
      };
      assert.deepEqual(m.codes, Array(5).fill('too_large'));
      assert.equal(m.fullBytes, content.length);
      assert.ok(m.validateKiB < 8 * 1024, `validating the bomb grew peak RSS by ${m.validateKiB} KiB`);
      assert.ok(m.fullKiB > 32 * 1024, `control: full inflation grew peak RSS by only ${m.fullKiB} KiB`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('state payload: properties', () => {
  const state = fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 8 });

  test('any valid state round-trips through encode and validate', () => {
    fc.assert(
      fc.property(state, (s) => {
        const r = check(encodeState(s));
        assert.ok(r.ok, !r.ok ? r.code : '');
        assert.equal(JSON.stringify(JSON.parse(r.json)), JSON.stringify(s));
      }),
      { numRuns: 300 },
    );
  });

  test('any single-character change of a valid body is refused with a seed code or is another valid payload', () => {
    fc.assert(
      fc.property(state, fc.nat(), fc.integer({ min: 0, max: 255 }), (s, at, byte) => {
        const body = encodeState(s);
        const i = at % body.length;
        const ch = String.fromCharCode(byte);
        fc.pre(body[i] !== ch);
        const mutated = body.slice(0, i) + ch + body.slice(i + 1);
        const r = check(mutated);
        if (r.ok) assert.notEqual(payloadSha256(mutated), payloadSha256(body));
        else assert.ok(SEED_CODES.has(r.code), r.code);
      }),
      { numRuns: 1500 },
    );
  });

  test('any single-byte change of the gzip stream is refused with a seed code or is another valid payload', () => {
    fc.assert(
      fc.property(state, fc.nat(), fc.integer({ min: 1, max: 255 }), (s, at, xor) => {
        const bytes = gzipSync(json(JSON.stringify(s)));
        const i = at % bytes.length;
        bytes[i] = bytes[i]! ^ xor;
        const r = check(asBody(bytes));
        if (!r.ok) assert.ok(SEED_CODES.has(r.code), r.code);
        // Bytes that carry no content (MTIME, XFL, OS, deflate padding bits) may
        // change; the CRC guarantees the state itself never silently does.
        else assert.equal(JSON.stringify(JSON.parse(r.json)), JSON.stringify(s), `mutation at byte ${i}`);
      }),
      { numRuns: 1500 },
    );
  });
});

describe('state link ids', () => {
  test('are ten base62 characters and do not repeat', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const id = newStateLinkId();
      assert.match(id, STATE_LINK_ID);
      seen.add(id);
    }
    assert.equal(seen.size, 2000);
    const all = [...seen].join('');
    for (const cls of [/[0-9]/, /[A-Z]/, /[a-z]/]) assert.match(all, cls);
  });
});
