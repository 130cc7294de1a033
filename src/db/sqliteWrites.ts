import { setTimeout as sleep } from 'node:timers/promises';
import {
  CompiledQuery,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type SqliteDialectConfig,
} from 'kysely';

/**
 * How long a write on the server's own SQLite connection waits for the write lock before it
 * fails as busy (DB_BUSY): what `busy_timeout` said before it moved here.
 */
export const SQLITE_WRITE_WAIT_MS = 5_000;

/** The longest pause between two tries of a write that found the database locked. */
const MAX_PAUSE_MS = 20;

const isBusy = (e: unknown) => (e as { code?: unknown } | null)?.code === 'SQLITE_BUSY';

/**
 * Kysely's SQLite dialect for the connection the event loop runs on, waiting for the write
 * lock without stopping the event loop (docs/server.md#what-bounds-the-tail).
 *
 * The click thread writes its batches on a connection of its own (workers/clickSink.ts), and
 * a batch holds the write lock for as long as it takes to store. SQLite's own busy handler
 * sleeps the calling thread while it waits — for the server, every request in flight: a lease
 * renewal or a link edit that met a batch stopped every redirect until the batch committed.
 * Here the connection's `busy_timeout` is 0; a write that finds the lock taken is tried again
 * after a pause the event loop spends on other requests. A transaction begins IMMEDIATE, so
 * it takes the lock (or waits for it, likewise) before its first statement and nothing in it
 * can meet the lock later; a statement that is refused as busy has done nothing, so trying
 * it again is safe.
 */
export class SqliteWaitingDialect extends SqliteDialect {
  constructor(private readonly settings: SqliteDialectConfig) {
    super(settings);
  }

  override createDriver(): Driver {
    return new WaitingDriver(this.settings);
  }
}

class WaitingDriver extends SqliteDriver {
  private waiting: DatabaseConnection | null = null;

  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await super.acquireConnection();
    // SQLite has one connection here: wrapped once, the same object every time.
    this.waiting ??= waitingConnection(connection);
    return this.waiting;
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

function waitingConnection(inner: DatabaseConnection): DatabaseConnection {
  return {
    async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
      // The clock is read only once the lock has been met: a query that runs at once pays nothing.
      let deadline: number | undefined;
      for (let pause = 1; ; pause = Math.min(pause * 2, MAX_PAUSE_MS)) {
        try {
          return await inner.executeQuery<R>(query);
        } catch (e) {
          if (!isBusy(e)) throw e;
          deadline ??= Date.now() + SQLITE_WRITE_WAIT_MS;
          if (Date.now() + pause > deadline) throw e;
          await sleep(pause);
        }
      }
    },
    streamQuery: (query, chunkSize) => inner.streamQuery(query, chunkSize),
  };
}
