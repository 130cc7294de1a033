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
  return (
    err?.code === 'SQLITE_CONSTRAINT_FOREIGNKEY' ||
    err?.code === '23503' ||
    err?.errno === 1452 ||
    err?.errno === 1216
  );
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
