import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { classifyStatus, isCheckable, parseRetryAfter, type ProbeOutcome } from '../domain/health.js';
import {
  GuardedClient,
  OutboundError,
  parseHttpUrl,
  REFUSED_MESSAGE,
  type GuardedClientOptions,
  type Lookup,
} from '../net/guardedClient.js';
import { ROOT } from '../paths.js';
import type { DueLink, HealthChangeRecorder } from '../store/health.js';
import type { Store } from '../store/index.js';
import type { Link } from '../store/types.js';

/**
 * One link's destination probe and its record (docs/lifecycle.md#health-checks): the
 * `health-checker` job runs it for every due link, and a link's "Recheck now" runs it for one
 * (docs/lifecycle.md#recheck-now). Both go through the same guarded client, so the SSRF guard,
 * the timeout and JOE_HEALTH_CHECK_ALLOW_PRIVATE apply alike.
 */

const VERSION: string = (() => {
  try {
    return (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version?: string }).version ?? '0';
  } catch {
    return '0';
  }
})();

export const HEALTH_USER_AGENT = `joe-links-health/${VERSION}`;

/** A recheck of the same link sooner than this after its last check is refused (docs/lifecycle.md#recheck-now). */
export const RECHECK_SPACING_MS = 10_000;

export interface HealthProbeOptions {
  store: Pick<Store, 'health' | 'now'>;
  intervalMs: number;
  timeoutMs: number;
  allowPrivate: boolean;
  /** Told, inside the recording transaction, when a link turns broken or ok again (notifications, webhooks). */
  onHealthChange?: HealthChangeRecorder;
  /** Name resolution and address policy of the guarded client (tests inject both). */
  lookup?: Lookup;
  addressAllowed?: GuardedClientOptions['addressAllowed'];
}

/**
 * One probe: HEAD, then GET only if HEAD answers 405 or 501 (many servers
 * mishandle HEAD). Both go through the same guarded client, so the GET
 * fallback and every redirect hop pass the same dial-time check.
 */
export async function probeDestination(
  client: GuardedClient,
  url: string,
  timeoutMs: number,
  signal: AbortSignal,
  now: number,
): Promise<ProbeOutcome> {
  if (!parseHttpUrl(url)) return { kind: 'skipped', reason: 'destination is not an http(s) URL with a host' };
  try {
    let res = await client.fetch(url, { method: 'HEAD', timeoutMs, signal });
    if (res.status === 405 || res.status === 501) res = await client.fetch(url, { method: 'GET', timeoutMs, signal });
    switch (classifyStatus(res.status)) {
      case 'success':
        return { kind: 'success', status: res.status };
      case 'rate-limited':
        return { kind: 'rate-limited', retryAfterMs: parseRetryAfter(res.headers['retry-after'], now) };
      default:
        return { kind: 'failure', status: res.status, error: null };
    }
  } catch (e) {
    if (signal.aborted) throw e;
    if (e instanceof OutboundError) {
      // Unchecked is not dead: a destination policy forbids probing is never counted against it.
      if (e.kind === 'refused') return { kind: 'skipped', reason: REFUSED_MESSAGE };
      if (e.kind === 'scheme') return { kind: 'skipped', reason: e.message };
      return { kind: 'failure', status: null, error: e.message };
    }
    return { kind: 'failure', status: null, error: 'request failed' };
  }
}

/** What a "Recheck now" came to. */
export type RecheckResult =
  | { kind: 'checked'; outcome: ProbeOutcome }
  /** The checker never visits this link (opted out, archived, expired, a template). */
  | { kind: 'not-checkable' }
  /** Checked less than RECHECK_SPACING_MS ago, or a recheck of it is running now. */
  | { kind: 'too-soon' };

export class HealthProbe {
  readonly client: GuardedClient;
  /** Links a recheck is probing now, so a double click sends one probe. */
  private readonly rechecking = new Set<string>();
  private readonly closing = new AbortController();

  constructor(private readonly opts: HealthProbeOptions) {
    this.client = new GuardedClient(
      { allowPrivate: opts.allowPrivate, userAgent: HEALTH_USER_AGENT, lookup: opts.lookup, addressAllowed: opts.addressAllowed },
      opts.timeoutMs,
    );
  }

  /**
   * Probes one link's destination and records the outcome with the checker's backoff. Null when
   * `signal` aborted the probe: nothing was recorded.
   */
  async check(link: DueLink, signal: AbortSignal): Promise<ProbeOutcome | null> {
    const { store, intervalMs, timeoutMs } = this.opts;
    let outcome: ProbeOutcome;
    try {
      outcome = await probeDestination(this.client, link.url, timeoutMs, signal, store.now());
    } catch (e) {
      if (signal.aborted) return null;
      throw e;
    }
    if (signal.aborted) return null;
    await store.health.record(link.id, outcome, intervalMs, store.now(), this.opts.onHealthChange);
    return outcome;
  }

  /**
   * "Recheck now" (docs/lifecycle.md#recheck-now): the same probe and record as the job, for a
   * link the checker visits, at most once per RECHECK_SPACING_MS. The caller has checked CanEdit.
   */
  async recheck(link: Pick<Link, 'id' | 'url' | 'archivedAt' | 'expiresAt' | 'healthChecksDisabled'>): Promise<RecheckResult> {
    const { store } = this.opts;
    if (!isCheckable(link, store.now())) return { kind: 'not-checkable' };
    if (this.rechecking.has(link.id)) return { kind: 'too-soon' };
    this.rechecking.add(link.id);
    try {
      const last = (await store.health.row(link.id))?.lastCheckedAt ?? null;
      if (last !== null && store.now() - last < RECHECK_SPACING_MS) return { kind: 'too-soon' };
      const outcome = await this.check({ id: link.id, url: link.url }, this.closing.signal);
      if (outcome === null) throw new Error('the recheck was cancelled by shutdown');
      return { kind: 'checked', outcome };
    } finally {
      this.rechecking.delete(link.id);
    }
  }

  async close(): Promise<void> {
    this.closing.abort();
    await this.client.close();
  }
}
