import { createHmac } from 'node:crypto';
import { truncateCodePoints } from './text.js';

export const USER_AGENT_MAX = 512;
export const REFERRER_MAX = 2048;

/** `YYYYMMDD` of a UTC instant. */
export function utcDateKey(at: number): string {
  const d = new Date(at);
  return `${d.getUTCFullYear()}${String(d.getUTCMonth() + 1).padStart(2, '0')}${String(d.getUTCDate()).padStart(2, '0')}`;
}

/**
 * HMAC-SHA-256 of `<ip>:<YYYYMMDD>` keyed with the install's secret (core.md §12.2):
 * rotates at UTC midnight and never matches across installs.
 */
export function hashClientIp(secret: string, ip: string, at: number): string {
  return createHmac('sha256', secret).update(`${ip}:${utcDateKey(at)}`).digest('hex');
}

/** Drops query and fragment from a parsable Referer; unparsable values are kept as sent. */
export function cleanReferrer(referer: string | undefined): string {
  if (!referer) return '';
  let out = referer;
  try {
    const u = new URL(referer);
    u.search = '';
    u.hash = '';
    out = u.toString();
  } catch {
    // kept as-is
  }
  return truncateCodePoints(out, REFERRER_MAX);
}

export function cleanUserAgent(ua: string | undefined): string {
  return ua ? truncateCodePoints(ua, USER_AGENT_MAX) : '';
}
