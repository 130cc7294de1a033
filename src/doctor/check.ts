/**
 * One finding of `joe-links doctor` (docs/operations.md#doctor): what was checked, how it went,
 * and for anything short of `ok` what to do about it.
 */

export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip';

export interface CheckResult {
  check: string;
  status: CheckStatus;
  detail: string;
  /** What to change; every `fail` has one. */
  fix?: string;
}

export const ok = (check: string, detail: string): CheckResult => ({ check, status: 'ok', detail });
export const skip = (check: string, detail: string): CheckResult => ({ check, status: 'skip', detail });
export const warn = (check: string, detail: string, fix: string): CheckResult => ({ check, status: 'warn', detail, fix });
export const fail = (check: string, detail: string, fix: string): CheckResult => ({ check, status: 'fail', detail, fix });

/** The message of an error and of what caused it (`fetch failed: connect ECONNREFUSED …`). */
export function errorText(e: unknown): string {
  const err = e as (Error & { cause?: unknown; errors?: unknown[] }) | undefined;
  const message = err?.message || (err?.errors?.[0] as Error | undefined)?.message || String(e);
  const cause = err?.cause instanceof Error ? err.cause.message : null;
  return cause && !message.includes(cause) ? `${message}: ${cause}` : message;
}
