import { parseCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { isRandomTokenShaped } from '../domain/secrets.js';

/**
 * Cookie names and attributes of the sign-in flows (docs/auth.md#oidc, docs/auth.md#sessions).
 * Every auth cookie is `Path=/; HttpOnly; SameSite=Lax` and `Secure` unless
 * JOE_INSECURE_COOKIES=true (plain-HTTP development only).
 */

export const SESSION_COOKIE = 'session';

/** A session token is never encoded: its value is taken as written, and no other cookie is decoded. */
const AS_WRITTEN = { decode: (value: string) => value };

/**
 * The session token a request's Cookie header carries: the first `session`
 * cookie, when it has a session token's shape (anything else is not worth a
 * query); null otherwise, never an exception, whatever the header holds. The
 * one reading of the session cookie: the go-link front calls it before Fastify
 * sees the request, and the web layer's session code through the same header.
 */
export function sessionToken(header: string | undefined): string | null {
  // A header without the name has no session cookie: no parse on the anonymous path.
  if (header === undefined || !header.includes(SESSION_COOKIE)) return null;
  const value = parseCookie(header, AS_WRITTEN)[SESSION_COOKIE];
  return value !== undefined && isRandomTokenShaped(value) ? value : null;
}

export const PRE_AUTH = {
  state: '__auth_state',
  nonce: '__auth_nonce',
  pkce: '__auth_pkce',
  redirect: '__auth_redirect',
} as const;

/** The OIDC round trip must finish within five minutes. */
export const PRE_AUTH_MAX_AGE_S = 300;

export interface CookieAttributes {
  path: '/';
  httpOnly: true;
  sameSite: 'lax';
  secure: boolean;
}

export function authCookieAttributes(config: Pick<Config, 'insecureCookies'>): CookieAttributes {
  return { path: '/', httpOnly: true, sameSite: 'lax', secure: !config.insecureCookies };
}

export function readCookie(req: FastifyRequest, name: string): string | undefined {
  const v = (req.cookies as Record<string, string | undefined> | undefined)?.[name];
  return typeof v === 'string' ? v : undefined;
}

/** An expired cookie with the same path and flags, so the browser drops the original. */
export function clearAuthCookie(reply: FastifyReply, config: Pick<Config, 'insecureCookies'>, name: string): void {
  reply.clearCookie(name, authCookieAttributes(config));
}
