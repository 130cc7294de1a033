/**
 * Destination health rules (docs/lifecycle.md#health-checks): what a probe outcome writes, the
 * backoff schedule, Retry-After, and the one derivation of a link's health
 * that every surface shows. Pure: the store and the checker supply the facts.
 */

import { isFixedDestination } from './url.js';

export type ProbeOutcome =
  | { kind: 'success'; status: number }
  /** `error` is null when the failure is a plain HTTP status. */
  | { kind: 'failure'; status: number | null; error: string | null }
  /** 429: never counted as a failure; `retryAfterMs` is the honoured Retry-After, if any. */
  | { kind: 'rate-limited'; retryAfterMs: number | null }
  /** Not checkable under current policy (refused address, not an http(s) URL). */
  | { kind: 'skipped'; reason: string };

/** "broken" is derived from the counter, never stored. */
export const BROKEN_AFTER_FAILURES = 3;
export const MAX_ERROR_BYTES = 512;
const BACKOFF_CAP = 7;
/** Keeps a hostile Retry-After from pushing the next check past any storable instant. */
const MAX_RETRY_AFTER_MS = 365 * 24 * 3_600_000;

/** The `link_health` columns an outcome writes (docs/lifecycle.md#outcomes-and-backoff). */
export interface HealthRowValues {
  lastCheckedAt: number;
  lastStatus: number | null;
  lastError: string | null;
  consecutiveFailures: number;
  nextCheckAt: number;
  skipped: boolean;
}

/** After `n` consecutive failures the next check waits interval × 2^(n−1), capped at 7 × interval. */
export function backoffMs(n: number, intervalMs: number): number {
  return intervalMs * Math.min(2 ** Math.max(n - 1, 0), BACKOFF_CAP);
}

/** Final HTTP status → outcome class: 2xx/3xx succeed, 429 defers, anything else fails. */
export function classifyStatus(status: number): 'success' | 'rate-limited' | 'failure' {
  if (status >= 200 && status < 400) return 'success';
  if (status === 429) return 'rate-limited';
  return 'failure';
}

/** Cuts to at most `maxBytes` of UTF-8 without splitting a character. */
export function truncateUtf8(text: string, maxBytes: number = MAX_ERROR_BYTES): string {
  let bytes = 0;
  let end = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    const size = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (bytes + size > maxBytes) break;
    bytes += size;
    end += ch.length;
  }
  return text.slice(0, end);
}

const IMF_FIXDATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;
const RFC850_DATE =
  /^(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), \d{2}-(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)-\d{2} \d{2}:\d{2}:\d{2} GMT$/;
const ASCTIME_DATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/;

/**
 * Retry-After as a delay in ms: non-negative delta-seconds, or an HTTP-date in
 * the future (RFC 9110 §10.2.3). Anything else is ignored (null), and the
 * normal interval applies.
 */
export function parseRetryAfter(value: string | string[] | undefined, now: number): number | null {
  const raw = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!raw) return null;
  if (/^\d+$/.test(raw)) return Math.min(Number(raw) * 1000, MAX_RETRY_AFTER_MS);
  let at = Number.NaN;
  if (IMF_FIXDATE.test(raw) || RFC850_DATE.test(raw)) at = Date.parse(raw);
  else if (ASCTIME_DATE.test(raw)) at = Date.parse(`${raw} GMT`);
  if (!Number.isFinite(at) || at <= now) return null;
  return Math.min(at - now, MAX_RETRY_AFTER_MS);
}

/**
 * The row an outcome leaves behind, given the failures counted so far
 * (0 when the link has no row). `t` is the probe's completion time.
 */
export function nextHealthRow(previousFailures: number, outcome: ProbeOutcome, t: number, intervalMs: number): HealthRowValues {
  switch (outcome.kind) {
    case 'success':
      return {
        lastCheckedAt: t,
        lastStatus: outcome.status,
        lastError: null,
        consecutiveFailures: 0,
        nextCheckAt: t + intervalMs,
        skipped: false,
      };
    case 'failure': {
      const n = previousFailures + 1;
      return {
        lastCheckedAt: t,
        lastStatus: outcome.status,
        lastError: outcome.error === null ? null : truncateUtf8(outcome.error),
        consecutiveFailures: n,
        nextCheckAt: t + backoffMs(n, intervalMs),
        skipped: false,
      };
    }
    case 'rate-limited':
      return {
        lastCheckedAt: t,
        lastStatus: 429,
        lastError: null,
        consecutiveFailures: previousFailures,
        nextCheckAt: t + Math.max(intervalMs, outcome.retryAfterMs ?? 0),
        skipped: false,
      };
    case 'skipped':
      return {
        lastCheckedAt: t,
        lastStatus: null,
        lastError: truncateUtf8(outcome.reason),
        consecutiveFailures: previousFailures,
        nextCheckAt: t + intervalMs,
        skipped: true,
      };
  }
}

export type HealthStatus = 'unchecked' | 'ok' | 'broken' | 'skipped';

/** What every surface (badges, detail, admin report, REST, MCP) shows about a destination. */
export interface LinkHealth {
  status: HealthStatus;
  lastCheckedAt: number | null;
  lastStatus: number | null;
}

export interface HealthRowFacts {
  lastCheckedAt: number | null;
  lastStatus: number | null;
  consecutiveFailures: number;
  skipped: boolean;
}

export const UNCHECKED: Readonly<LinkHealth> = Object.freeze({ status: 'unchecked', lastCheckedAt: null, lastStatus: null });

/**
 * docs/lifecycle.md#health-status. An opted-out, archived or expired link shows `unchecked`
 * with nulls: its row is frozen (the checker no longer visits it) and stale
 * data must never surface as if it were current.
 */
export function deriveHealth(
  link: { archivedAt: number | null; expiresAt: number | null; healthChecksDisabled: boolean },
  row: HealthRowFacts | null,
  now: number,
): LinkHealth {
  const dead = link.archivedAt !== null || (link.expiresAt !== null && link.expiresAt <= now);
  if (link.healthChecksDisabled || dead || row === null) return { ...UNCHECKED };
  const facts = { lastCheckedAt: row.lastCheckedAt, lastStatus: row.lastStatus };
  if (row.skipped) return { status: 'skipped', ...facts };
  if (row.consecutiveFailures >= BROKEN_AFTER_FAILURES) return { status: 'broken', ...facts };
  return { status: 'ok', ...facts };
}

/**
 * Whether a recorded outcome moved a link between ok and broken
 * (docs/notifications.md#what-you-are-notified-about): broken is reached
 * when the failures counted reach BROKEN_AFTER_FAILURES, ok again when a
 * success resets them. Skipped and rate-limited outcomes move nothing.
 */
export function healthTransition(previousFailures: number, next: HealthRowValues): { from: 'ok' | 'broken'; to: 'ok' | 'broken' } | null {
  const wasBroken = previousFailures >= BROKEN_AFTER_FAILURES;
  const isBroken = next.consecutiveFailures >= BROKEN_AFTER_FAILURES;
  if (next.skipped || wasBroken === isBroken) return null;
  if (!isBroken && next.consecutiveFailures !== 0) return null;
  return isBroken ? { from: 'ok', to: 'broken' } : { from: 'broken', to: 'ok' };
}

/**
 * docs/lifecycle.md#health-checks: whether the checker visits a link at all. Not archived, not
 * expired, not opted out and a fixed destination (no template, no path on this server); the store's due-link
 * scan applies the same rule.
 */
export function isCheckable(
  link: { url: string; archivedAt: number | null; expiresAt: number | null; healthChecksDisabled: boolean },
  now: number,
): boolean {
  if (link.healthChecksDisabled || link.archivedAt !== null) return false;
  if (link.expiresAt !== null && link.expiresAt <= now) return false;
  return isFixedDestination(link.url);
}
