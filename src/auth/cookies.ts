import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';

/**
 * Cookie names and attributes of the sign-in flows (docs/auth.md#oidc, docs/auth.md#sessions).
 * Every auth cookie is `Path=/; HttpOnly; SameSite=Lax` and `Secure` unless
 * JOE_INSECURE_COOKIES=true (plain-HTTP development only).
 */

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
