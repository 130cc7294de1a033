import SqliteDatabase from 'better-sqlite3';
import type { HotLookup } from './hotLookup.js';

/**
 * The redirect hot path's connection to an SQLite file
 * (docs/server.md#the-redirect-hot-path): read-only, opened on first use, so
 * it sees only committed rows and never waits for the writer.
 *
 * Lookups made while the server works through one round of arrived requests
 * share one read transaction, ended when the round is over. A statement run
 * on its own opens and closes a read transaction of its own, and in WAL mode
 * each of those takes and drops a lock on the shared-memory file with system
 * calls: on this machine a lookup cost 8.8 µs alone and 2.3 µs as one of 20
 * in a transaction. Any write through the process's own connection ends the
 * shared transaction before it runs, so a lookup after a write always sees
 * it; what other processes write shows from the next round, as it would for
 * a request that had arrived a moment earlier.
 */
export class SqliteHotReader {
  private db: SqliteDatabase.Database | null = null;
  private begin: SqliteDatabase.Statement | null = null;
  private commit: SqliteDatabase.Statement | null = null;
  private reading = false;
  private readonly endRound = () => this.endRead();

  constructor(private readonly path: string) {}

  private connection(): SqliteDatabase.Database {
    if (!this.db) {
      const db = new SqliteDatabase(this.path, { readonly: true, fileMustExist: true });
      db.pragma('busy_timeout = 5000');
      db.pragma('mmap_size = 268435456');
      this.begin = db.prepare('BEGIN');
      this.commit = db.prepare('COMMIT');
      this.db = db;
    }
    return this.db;
  }

  /** One compiled statement, in raw mode (values, no row object), answered synchronously. */
  lookup(sql: string): HotLookup {
    const stmt = this.connection().prepare(sql).raw(true);
    return (params) => {
      if (!this.reading) {
        this.begin!.run();
        this.reading = true;
        setImmediate(this.endRound);
      }
      return stmt.get(...params) as unknown[] | undefined;
    };
  }

  /** Ends the shared read transaction, if one is open: before any write, and at the end of a round. */
  endRead(): void {
    if (!this.reading) return;
    this.reading = false;
    this.commit!.run();
  }

  close(): void {
    this.endRead();
    this.db?.close();
    this.db = null;
  }
}
