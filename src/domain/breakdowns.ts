import { createHash } from 'node:crypto';
import { DIRECT_UNKNOWN, OTHER, ReferrerClassifier } from './referrer.js';
import { BROWSER_TOKENS, OS_TOKENS, UserAgentClassifier, type BrowserFamily, type OsFamily } from './userAgent.js';

/**
 * Click breakdowns accumulated one row at a time
 * (docs/analytics.md#breakdowns): the store streams rows in bounded batches and feeds them
 * here, so memory holds counters, never the window's rows.
 */

export const TOP_ENTRIES = 10;

export interface NamedCount<N extends string = string> {
  name: N;
  count: number;
}

export interface HostCount {
  host: string;
  count: number;
}

export interface Breakdowns {
  referrers: HostCount[];
  browsers: NamedCount<BrowserFamily>[];
  os: NamedCount<OsFamily>[];
  auth: { authenticated: number; anonymous: number };
}

/** Counts per key. */
export class Tally {
  readonly counts = new Map<string, number>();
  total = 0;

  add(key: string, n = 1): void {
    this.counts.set(key, (this.counts.get(key) ?? 0) + n);
    this.total += n;
  }

  /** See `rankWithOther`. */
  top(limit = TOP_ENTRIES): NamedCount[] {
    return rankWithOther(this.counts, limit);
  }
}

/**
 * The `limit` largest entries by count (ties by name, code-point order, so
 * every database and run agree), then one "Other" row summing the rest when
 * the rest is non-empty (docs/analytics.md#breakdowns). A literal "Other" key — the
 * unrecognised UA family — always folds into that row rather than being
 * ranked, so a table never shows two "Other" rows.
 */
export function rankWithOther(counts: ReadonlyMap<string, number>, limit = TOP_ENTRIES): NamedCount[] {
  let rest = counts.get(OTHER) ?? 0;
  const ranked: NamedCount[] = [];
  for (const [name, count] of counts) if (name !== OTHER && count > 0) ranked.push({ name, count });
  ranked.sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (let i = limit; i < ranked.length; i++) rest += ranked[i]!.count;
  const top = ranked.slice(0, limit);
  if (rest > 0) top.push({ name: OTHER, count: rest });
  return top;
}

/** The dimensions a breakdown counts by; also the `dim` values of the daily rollups. */
export const DIMENSIONS = ['auth', 'referrer', 'browser', 'os'] as const;
export type Dimension = (typeof DIMENSIONS)[number];
export const AUTHENTICATED = 'authenticated';
export const ANONYMOUS = 'anonymous';

/**
 * Fingerprint of every rule that turns a stored click into dimension keys.
 * Rollups record it, so changing a token table or the referrer grouping
 * rebuilds them and history is reclassified, as read-time parsing promises.
 * Bump REFERRER_GROUPING whenever `referrerHost` changes behaviour.
 */
const REFERRER_GROUPING = 1;
export const CLASSIFICATION_VERSION = createHash('sha256')
  .update(JSON.stringify([BROWSER_TOKENS, OS_TOKENS, REFERRER_GROUPING, DIRECT_UNKNOWN]))
  .digest('hex')
  .slice(0, 16);

/** One pass's memoised classification of click rows into dimension keys. */
export class ClickClassifier {
  private readonly hosts = new ReferrerClassifier();
  private readonly agents = new UserAgentClassifier();

  keys(referrer: string | null, userAgent: string | null, authenticated: boolean): Record<Dimension, string> {
    const ua = this.agents.classify(userAgent);
    return { auth: authenticated ? AUTHENTICATED : ANONYMOUS, referrer: this.hosts.label(referrer), browser: ua.browser, os: ua.os };
  }
}

/** Counts per dimension key, fed row by row or from pre-counted rollups. */
export class DimensionTallies {
  readonly tallies: Record<Dimension, Tally> = { auth: new Tally(), referrer: new Tally(), browser: new Tally(), os: new Tally() };

  addKeys(keys: Record<Dimension, string>, n = 1): void {
    for (const dim of DIMENSIONS) this.tallies[dim].add(keys[dim], n);
  }

  addCount(dim: Dimension, key: string, n: number): void {
    this.tallies[dim].add(key, n);
  }

  /** Clicks counted; every click has exactly one auth key. */
  get total(): number {
    return this.tallies.auth.total;
  }

  *entries(): Generator<[Dimension, string, number]> {
    for (const dim of DIMENSIONS) for (const [key, n] of this.tallies[dim].counts) yield [dim, key, n];
  }

  result(): Breakdowns {
    const auth = this.tallies.auth.counts;
    return {
      referrers: this.tallies.referrer.top().map(({ name, count }) => ({ host: name, count })),
      browsers: this.tallies.browser.top() as NamedCount<BrowserFamily>[],
      os: this.tallies.os.top() as NamedCount<OsFamily>[],
      auth: { authenticated: auth.get(AUTHENTICATED) ?? 0, anonymous: auth.get(ANONYMOUS) ?? 0 },
    };
  }
}

/** Referrer hosts, browser and OS families, and the authenticated/anonymous split of a window. */
export class BreakdownAccumulator extends DimensionTallies {
  private readonly classifier = new ClickClassifier();

  add(referrer: string | null, userAgent: string | null, authenticated: boolean): void {
    this.addKeys(this.classifier.keys(referrer, userAgent, authenticated));
  }
}

/** Referrer hosts alone, for the dashboard's busiest-referrers panel. */
export class ReferrerTally {
  private readonly tally = new Tally();
  private readonly hosts = new ReferrerClassifier();

  add(referrer: string | null): void {
    this.tally.add(this.hosts.label(referrer));
  }

  addCount(host: string, n: number): void {
    this.tally.add(host, n);
  }

  top(limit = TOP_ENTRIES): HostCount[] {
    return this.tally.top(limit).map(({ name, count }) => ({ host: name, count }));
  }
}

/** Share of `part` in `total` as a percentage, 0 for an empty total. For display next to the auth split. */
export function percentOf(part: number, total: number): number {
  return total > 0 ? (100 * part) / total : 0;
}
