import { createHash, randomInt } from 'node:crypto';
import { crc32, inflateRawSync } from 'node:zlib';

/**
 * App-state payloads (docs/state-links.md#payload-rules):
 * PAYLOAD_PREFIX followed by the unpadded, canonical base64url of exactly one
 * gzip member whose content is a UTF-8 JSON object. The service checks the
 * encoding and the container only; the app that opens a link validates its
 * own fields.
 */

export type PayloadErrorCode = 'bad_prefix' | 'bad_encoding' | 'bad_gzip' | 'bad_json' | 'too_large';

/** Characters after the prefix, fixed by docs/state-links.md#payload-rules. */
export const MAX_ENCODED_CHARS = 65_536;
/** Inflated JSON, fixed by docs/state-links.md#payload-rules; inflation stops here. */
export const MAX_JSON_BYTES = 256 * 1024;

export type PayloadCheck = { ok: true; json: string } | { ok: false; code: PayloadErrorCode };

export function payloadErrorStatus(code: PayloadErrorCode): 400 | 413 {
  return code === 'too_large' ? 413 : 400;
}

/** The longest request body worth reading for this prefix. */
export function maxBodyChars(prefix: string): number {
  return prefix.length + MAX_ENCODED_CHARS;
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;
const GZIP_HEADER = 10;
const GZIP_TRAILER = 8;
// Fatal: a malformed sequence is an error, not U+FFFD. ignoreBOM keeps a BOM in
// the text, so JSON.parse refuses it and one state keeps one spelling.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const fail = (code: PayloadErrorCode): PayloadCheck => ({ ok: false, code });

/**
 * Decodes canonical unpadded base64url, or null. Node's decoder is lenient
 * (it skips junk and ignores stray bits), so the text must survive a round
 * trip: that refuses `=`, impossible lengths and set trailing bits alike.
 */
export function decodeCanonicalBase64url(text: string): Buffer | null {
  if (text === '' || !BASE64URL.test(text) || text.length % 4 === 1) return null;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : null;
}

/**
 * Inflates one gzip member: fixed 10-byte header with CM=8 and FLG=0, a
 * deflate stream that ends exactly where the 8-byte trailer begins (so a
 * second member or trailing bytes are refused), then CRC32 and ISIZE checked.
 * Inflation is capped by zlib's maxOutputLength, so a bomb costs at most
 * MAX_JSON_BYTES (plus one zlib chunk) before it is refused.
 */
export function inflateSingleGzipMember(bytes: Uint8Array): { ok: true; content: Buffer } | { ok: false; code: 'bad_gzip' | 'too_large' } {
  // The smallest member: header, an empty fixed block (2 bytes), trailer.
  if (bytes.length < GZIP_HEADER + 2 + GZIP_TRAILER) return { ok: false, code: 'bad_gzip' };
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b || bytes[2] !== 8 || bytes[3] !== 0) return { ok: false, code: 'bad_gzip' };
  const deflated = bytes.subarray(GZIP_HEADER, bytes.length - GZIP_TRAILER);
  let content: Buffer;
  let consumed: number;
  try {
    const r = inflateRawSync(deflated, { info: true, maxOutputLength: MAX_JSON_BYTES }) as unknown as {
      buffer: Buffer;
      engine: { bytesWritten: number };
    };
    content = r.buffer;
    consumed = r.engine.bytesWritten;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ERR_BUFFER_TOO_LARGE') return { ok: false, code: 'too_large' };
    return { ok: false, code: 'bad_gzip' };
  }
  // zlib stops consuming at the end of the deflate stream; anything left over
  // is a second member or garbage sitting where the trailer was assumed.
  if (consumed !== deflated.length) return { ok: false, code: 'bad_gzip' };
  const trailer = Buffer.from(bytes.buffer, bytes.byteOffset + bytes.length - GZIP_TRAILER, GZIP_TRAILER);
  if (trailer.readUInt32LE(0) !== crc32(content)) return { ok: false, code: 'bad_gzip' };
  if (trailer.readUInt32LE(4) !== content.length % 2 ** 32) return { ok: false, code: 'bad_gzip' };
  return { ok: true, content };
}

/** Whether decoded content is UTF-8 JSON whose top level is an object. */
export function isJsonObjectText(content: Uint8Array): string | null {
  let text: string;
  try {
    text = utf8.decode(content);
  } catch {
    return null;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // SyntaxError, or a RangeError for absurd nesting: either way not a usable state.
    return null;
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? text : null;
}

/** validatePayload (docs/state-links.md#payload-rules): the first failing check names the code. */
export function validatePayload(body: string, prefix: string): PayloadCheck {
  if (body.length > maxBodyChars(prefix)) return fail('too_large');
  if (!body.startsWith(prefix)) return fail('bad_prefix');
  const bytes = decodeCanonicalBase64url(body.slice(prefix.length));
  if (bytes === null) return fail('bad_encoding');
  const inflated = inflateSingleGzipMember(bytes);
  if (!inflated.ok) return fail(inflated.code);
  const json = isJsonObjectText(inflated.content);
  return json === null ? fail('bad_json') : { ok: true, json };
}

/** The deduplication key: hex SHA-256 of the stored text (prefix included). */
export function payloadSha256(payload: string): string {
  return createHash('sha256').update(payload, 'utf8').digest('hex');
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const STATE_LINK_ID_LENGTH = 10;
export const STATE_LINK_ID = /^[0-9A-Za-z]{10}$/;

/** Ten base62 characters from the CSPRNG, about 59.5 bits. */
export function newStateLinkId(): string {
  let id = '';
  for (let i = 0; i < STATE_LINK_ID_LENGTH; i++) id += BASE62[randomInt(62)];
  return id;
}
