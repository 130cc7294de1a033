import { createHash, randomBytes } from 'node:crypto';

/**
 * Random secrets and their digests. Every bearer secret this server hands out
 * (session cookies, one-time sign-in links, personal access tokens) is stored
 * only as its SHA-256 digest, so a copy of the database signs nobody in.
 */

/** 32 random bytes, base64url without padding: 43 characters. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** Lowercase hex SHA-256 of the UTF-8 text. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * The key a session row is stored under: base64url(SHA-256) of the cookie's token, 43
 * characters like the token itself, so the column keeps its width.
 */
export function sessionKey(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('base64url');
}

/** base64url(SHA-256(text)) without padding: the PKCE S256 challenge of a verifier. */
export function sha256Base64Url(text: string): string {
  return createHash('sha256').update(text, 'ascii').digest('base64url');
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Base62 of a big-endian unsigned number, most significant digit first, no padding. */
export function base62(bytes: Uint8Array): string {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  if (n === 0n) return '0';
  let out = '';
  while (n > 0n) {
    out = BASE62[Number(n % 62n)]! + out;
    n /= 62n;
  }
  return out;
}

export const PAT_PREFIX = 'jl_';

/** A new personal access token: `jl_` + base62 of 32 CSPRNG bytes (docs/auth.md#api-tokens). */
export function newPersonalAccessToken(): string {
  return PAT_PREFIX + base62(randomBytes(32));
}

/**
 * Whether a presented value could be one of our tokens at all. 32 bytes are
 * at most 43 base62 digits; anything else is refused before any hashing or
 * query, however long the header that carried it.
 */
export function isPatShaped(value: string): boolean {
  return /^jl_[0-9A-Za-z]{1,43}$/.test(value);
}

/** Session and sign-in-link tokens are 32 random bytes, base64url. */
export function isRandomTokenShaped(value: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(value);
}
