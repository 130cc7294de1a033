import SqliteDatabase from 'better-sqlite3';
import type { HotLookup } from './hotLookup.js';
import { Memo } from '../domain/memo.js';

/**
 * Results remembered per statement before they are all forgotten: more than the links of a
 * large team, so a stride through every one of them still finds each remembered (forgetting
 * only the oldest would cost every lookup a bookkeeping step; a full map is rare).
 */
const RESULTS_REMEMBERED = 16_384;

/**
 * A statement's parameters as one key: a single name as it is (most lookups), anything
 * else as JSON, marked so the two can never meet.
 */
function resultKey(params: readonly unknown[]): string {
  const [first] = params;
  if (params.length === 1 && typeof first === 'string' && first.charCodeAt(0) !== 0) return first;
  return `\u0000${JSON.stringify(params)}`;
}

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
 *
 * A lookup's result is remembered for as long as the database has not changed: each round
 * reads SQLite's `data_version`, which moves whenever any other connection (this process's
 * writer, the click thread, another process) has committed, and forgets every remembered
 * result when it has moved. A remembered result is therefore exactly what the statement would
 * answer in that round's snapshot, without the index searches: on the server's thread those
 * searches, cold in the CPU's caches between requests, cost a redirect several times what
 * they cost in a tight loop.
 */
export class SqliteHotReader {
  private db: SqliteDatabase.Database | null = null;
  private begin: SqliteDatabase.Statement | null = null;
  private commit: SqliteDatabase.Statement | null = null;
  private dataVersion: SqliteDatabase.Statement | null = null;
  private reading = false;
  /** The `data_version` the remembered results were read at. */
  private version: unknown = null;
  /** Each statement's remembered results by their parameters; null: no row. */
  private readonly remembered: Memo<string, readonly unknown[] | null>[] = [];
  private readonly endRound = () => this.endRead();

  constructor(private readonly path: string) {}

  private connection(): SqliteDatabase.Database {
    if (!this.db) {
      const db = new SqliteDatabase(this.path, { readonly: true, fileMustExist: true });
      db.pragma('busy_timeout = 5000');
      db.pragma('mmap_size = 268435456');
      this.begin = db.prepare('BEGIN');
      this.commit = db.prepare('COMMIT');
      this.dataVersion = db.prepare('PRAGMA data_version').pluck();
      this.db = db;
    }
    return this.db;
  }

  /** Opens the round's read transaction; what was remembered before a change is forgotten. */
  private beginRound(): void {
    this.begin!.run();
    this.reading = true;
    setImmediate(this.endRound);
    // Read inside the transaction, so it names the snapshot this round's lookups see.
    const version = this.dataVersion!.get();
    if (version === this.version) return;
    this.version = version;
    for (const results of this.remembered) results.clear();
  }

  /** One compiled statement, in raw mode (values, no row object), answered synchronously. */
  lookup(sql: string): HotLookup {
    const stmt = this.connection().prepare(sql).raw(true);
    const results = new Memo<string, readonly unknown[] | null>(RESULTS_REMEMBERED);
    this.remembered.push(results);
    return (params) => {
      if (!this.reading) this.beginRound();
      const key = resultKey(params);
      const known = results.get(key);
      if (known !== undefined) return known === null ? undefined : (known as unknown[]);
      const row = stmt.get(...params) as unknown[] | undefined;
      results.set(key, row === undefined ? null : Object.freeze(row));
      return row;
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
    for (const results of this.remembered) results.clear();
    this.db?.close();
    this.db = null;
  }
}
