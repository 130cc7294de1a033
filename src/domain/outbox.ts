/**
 * The delivery rules every outbox channel shares (docs/notifications.md#delivery):
 * an attempt that fails is tried again after base × 2^(n−1) for the n-th
 * failure, until `maxAttempts` attempts have been made; then the delivery is
 * marked failed. Pure: the dispatcher supplies the clock.
 */

export interface RetryPolicy {
  /** The wait after the first failed attempt; each further failure doubles it. */
  baseMs: number;
  /** Attempts in all, the first one included. */
  maxAttempts: number;
}

export const DEFAULT_MAX_ATTEMPTS = 8;

export type OutboxStatus = 'pending' | 'delivered' | 'failed' | 'skipped';

/** The wait after the `failures`-th failed attempt (1-based). */
export function retryDelayMs(failures: number, policy: RetryPolicy): number {
  return policy.baseMs * 2 ** Math.max(failures - 1, 0);
}

/** What a failed attempt leaves behind: another try at `retryAt`, or failed for good. */
export function afterFailure(
  attempts: number,
  at: number,
  policy: RetryPolicy,
): { status: 'pending'; retryAt: number } | { status: 'failed' } {
  if (attempts >= policy.maxAttempts) return { status: 'failed' };
  return { status: 'pending', retryAt: at + retryDelayMs(attempts, policy) };
}

/** Error text kept with an attempt: one line, bounded, so a hostile answer cannot fill the log. */
export function attemptError(message: string, max = 300): string {
  const line = message.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
