import { Memo } from './memo.js';

/**
 * Referrer grouping for the breakdowns and the dashboard
 * (docs/analytics.md#breakdowns): a stored referrer is reduced to its URL host; scheme,
 * path, query and fragment are discarded. Capture already strips query and
 * fragment, but legacy rows may still carry them, so the read side never
 * relies on it.
 */

/** The bucket for clicks with no referrer, or one that is not a URL with a host. */
export const DIRECT_UNKNOWN = 'Direct / unknown';

/** The row summing everything past the top entries. Hosts are lower-case, so no host collides with it. */
export const OTHER = 'Other';

/** A DNS name (253) plus `:65535`. Rollup keys are sized for it. */
export const MAX_HOST_LENGTH = 259;

/**
 * Lower-case host (with a non-default port, as URL `host` gives it) of a
 * stored referrer, or null when it is empty or not a URL with a host. WHATWG
 * parsing also normalises internationalised names to their ASCII form, so the
 * same site always lands in one bucket.
 */
export function referrerHost(referrer: string | null | undefined): string | null {
  if (typeof referrer !== 'string' || referrer.length === 0) return null;
  let url: URL;
  try {
    url = new URL(referrer.trim());
  } catch {
    return null;
  }
  const host = url.host.toLowerCase();
  // WHATWG parsing does not enforce DNS length limits; a longer "host" is no site anyone can visit.
  return host.length > 0 && host.length <= MAX_HOST_LENGTH ? host : null;
}

/** The breakdown label of a referrer: its host, or "Direct / unknown". */
export function referrerLabel(referrer: string | null | undefined): string {
  return referrerHost(referrer) ?? DIRECT_UNKNOWN;
}

/**
 * `referrerLabel` memoised for one aggregation pass. URL parsing is the
 * costliest step per row and referrers repeat heavily; the memo is bounded in
 * entries and key length so distinct hostile values cannot grow it.
 */
export class ReferrerClassifier {
  private readonly memo: Memo<string, string>;

  constructor(maxEntries = 4_096) {
    this.memo = new Memo(maxEntries);
  }

  label(referrer: string | null | undefined): string {
    if (typeof referrer !== 'string' || referrer.length === 0) return DIRECT_UNKNOWN;
    if (referrer.length > 512) return referrerLabel(referrer);
    let hit = this.memo.get(referrer);
    if (hit === undefined) {
      hit = this.memo.set(referrer, referrerLabel(referrer));
    }
    return hit;
  }
}
