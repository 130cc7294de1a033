import { chmodSync, closeSync, openSync } from 'node:fs';

/**
 * Database files hold every link and who clicked it, so the files joe-links writes (the SQLite
 * database, its backups and restores) are readable by their owner alone, whatever the umask.
 * SQLite gives its `-wal` and `-shm` files the database file's mode, so they follow.
 */
export const PRIVATE_FILE_MODE = 0o600;

/** Creates `path` empty with mode 0600 when it does not exist yet; an existing file is left as it is. */
export function createPrivateFile(path: string): void {
  try {
    closeSync(openSync(path, 'wx', PRIVATE_FILE_MODE));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    return;
  }
  // The umask may have taken bits away, never added any; this only makes sure.
  chmodSync(path, PRIVATE_FILE_MODE);
}

/** Makes a file joe-links just wrote (a copy of a database) readable by its owner alone. */
export function makePrivate(path: string): void {
  chmodSync(path, PRIVATE_FILE_MODE);
}
