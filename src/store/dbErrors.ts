import { AppError } from '../domain/errors.js';

/** Driver error codes, normalised so the store can tell a lost race from a real failure. */
interface DriverError {
  code?: string | number;
  errno?: number;
}

export function isUniqueViolation(e: unknown): boolean {
  const err = e as DriverError;
  return (
    err?.code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    err?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ||
    err?.code === '23505' ||
    err?.code === 'ER_DUP_ENTRY' ||
    err?.errno === 1062
  );
}

export function isForeignKeyViolation(e: unknown): boolean {
  const err = e as DriverError;
  return err?.code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || err?.code === '23503' || err?.errno === 1452 || err?.errno === 1216;
}

/** Lock, busy, deadlock or serialization failures: the write may simply be retried. */
export function isBusy(e: unknown): boolean {
  const err = e as DriverError;
  return (
    err?.code === 'SQLITE_BUSY' ||
    err?.code === 'SQLITE_LOCKED' ||
    err?.code === '40001' ||
    err?.code === '40P01' ||
    err?.code === '55P03' ||
    err?.errno === 1213 ||
    err?.errno === 1205
  );
}

/**
 * The database chose this transaction as a deadlock or serialization victim
 * and rolled it back. InnoDB reports these under ordinary concurrency (gap
 * locks taken by DELETE and INSERT IGNORE), and its documented remedy is to
 * run the transaction again.
 */
export function isDeadlock(e: unknown): boolean {
  const err = e as DriverError;
  // SQLite: a transaction that read before another connection committed a
  // write cannot upgrade its stale snapshot to write; run again, it reads anew.
  return err?.code === '40P01' || err?.code === '40001' || err?.errno === 1213 || err?.code === 'SQLITE_BUSY_SNAPSHOT';
}

/**
 * Runs a whole transaction, again from the start when it loses a deadlock,
 * with a short random pause so the contenders do not collide again. `run`
 * must be safe to repeat: a rolled-back attempt left nothing behind.
 */
export async function retryOnDeadlock<T>(run: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (e) {
      if (attempt >= attempts || !isDeadlock(e)) throw e;
      await new Promise((r) => setTimeout(r, 5 + Math.random() * 20 * attempt));
    }
  }
}

/** The database cannot be reached at all (refused, reset, timed out, shutting down). */
export function isUnavailable(e: unknown): boolean {
  const err = e as DriverError & { message?: string };
  const code = String(err?.code ?? '');
  return (
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'PROTOCOL_CONNECTION_LOST'].includes(code) ||
    code === '57P01' ||
    code === '57P03' ||
    code === '08006' ||
    code === '08001' ||
    /Connection terminated|connection timeout|timeout exceeded when trying to connect|Pool is closed/i.test(err?.message ?? '')
  );
}

/** Maps a busy or unreachable database to its API error; anything else is rethrown unchanged. */
export function translateDbError(e: unknown): never {
  if (isBusy(e)) throw new AppError('DB_BUSY', 'server is busy, please retry');
  if (isUnavailable(e)) throw new AppError('UNAVAILABLE', 'database unavailable, please retry later');
  throw e;
}
