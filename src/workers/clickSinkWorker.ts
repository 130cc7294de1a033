import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { Kysely, SqliteDialect } from 'kysely';
import { openSqlite } from '../db/connect.js';
import type { Database } from '../db/schema.js';
import { ClickWriter, type ClickMetrics } from './clickWriter.js';
import {
  CLICK_THREAD_NICE,
  SQLITE_BATCH_CLICKS,
  SQLITE_BATCH_GATHER_MS,
  eventsOf,
  type ClickWorkerData,
  type FromClickWorker,
  type ToClickWorker,
} from './clickSink.js';
import { SqliteClickStore } from '../store/clicks.js';
import { StringPool } from './stringPool.js';

/**
 * How much WAL builds up before it is copied back into the database.
 * Clicks land on pages all over the per-link index, so each batch dirties
 * about one page per clicked link (from 4,000 to 17,000 4 KiB pages per
 * 32,000-click batch as a table of clicks on 10,000 links grew to 640,000).
 * At SQLite's default (1,000 pages) or at 10,000, every batch is
 * checkpointed on its own, and each checkpoint writes back and syncs the
 * same tail pages again. At 20,000 4 KiB pages (80 MiB) the server spent
 * 63–67 µs of CPU per redirect at a steady 14,000 redirects a second,
 * against 68–73 µs at 10,000 pages; 40,000 and 80,000 pages gave 62–79 and
 * 66–75 µs, so a longer WAL bought nothing more. The limit is in bytes
 * because SQLite counts it in pages, whose size depends on the file.
 */
const WAL_CHECKPOINT_BYTES = 80 * 1024 * 1024;

/**
 * Page cache of the worker's connection (SQLite's default is 2 MiB). Each
 * batch appends to the tail of every clicked link's run in the per-link
 * index; with the default cache those pages are read back from the file for
 * almost every row (about three 4 KiB reads per click at 15,000 clicks a
 * second over 10,000 links). 32 MiB keeps them in memory: a tenth of the
 * reads and about a fifth less kernel time. Memory is only taken as pages are used.
 */
const PAGE_CACHE_KIB = 32 * 1024;

/** Also checkpoint this often, for writes made while no clicks arrive. */
const CHECKPOINT_INTERVAL_MS = 10_000;

/**
 * Worker-thread side of the SQLite click recorder (clickSink.ts): a
 * ClickWriter on its own connection to the same database file turns events
 * into rows, runs the batch INSERTs and every WAL checkpoint, so none of that
 * work stalls the thread that answers redirects.
 */
/** Lowers this thread's priority alone (Linux: a thread id is a pid to setpriority); elsewhere nothing. */
function lowerThreadPriority(nice: number): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, nice);
  } catch {
    // Not Linux, or not permitted: the thread keeps the process's priority.
  }
}

const { path, ipHashSecret } = workerData as ClickWorkerData;
lowerThreadPriority(CLICK_THREAD_NICE);
const port = parentPort!;
const tell = (m: FromClickWorker) => port.postMessage(m);

const sqlite = openSqlite(path);
const pageSize = sqlite.pragma('page_size', { simple: true }) as number;
sqlite.pragma(`wal_autocheckpoint = ${Math.round(WAL_CHECKPOINT_BYTES / pageSize)}`);
sqlite.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
// PASSIVE never waits for readers or writers; what it cannot copy now, a later run will.
const checkpoints = setInterval(() => sqlite.pragma('wal_checkpoint(PASSIVE)'), CHECKPOINT_INTERVAL_MS);
const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });

// The main thread keeps the metrics; counts travel back as messages.
const metrics: ClickMetrics = {
  batchStored: (rows, seconds) => tell({ recorded: rows, seconds }),
  clickErrors: { inc: (n = 1) => tell({ errors: n }) },
  clicksDropped: { inc: (n = 1) => tell({ dropped: n }) },
};

const writer = new ClickWriter({
  clicks: new SqliteClickStore(kysely, sqlite),
  metrics,
  log: { warn: (message: string) => tell({ log: 'warn', message }), error: (message: string) => tell({ log: 'error', message }) },
  ipHashSecret,
  // The main thread bounds what is queued, where redirects enqueue.
  capacity: Number.POSITIVE_INFINITY,
  batchSize: SQLITE_BATCH_CLICKS,
  maxBatchDelayMs: SQLITE_BATCH_GATHER_MS,
});
writer.start();
const strings = new StringPool();

port.on('message', async (msg: ToClickWorker) => {
  if ('clicks' in msg) {
    for (const e of eventsOf(msg.clicks, strings)) writer.enqueue(e);
    return;
  }
  const drained = await writer.close(msg.close);
  clearInterval(checkpoints);
  await kysely.destroy();
  tell({ closed: drained });
});
