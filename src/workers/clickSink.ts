import { Worker } from 'node:worker_threads';
import type SqliteDatabase from 'better-sqlite3';
import type { Db } from '../db/connect.js';
import { ClickWriter, type ClickEvent, type ClickRecorder, type ClickWriterOptions } from './clickWriter.js';
import type { ClickRows } from '../store/clicks.js';
import type { StringPool } from './stringPool.js';

/**
 * Starts a worker from a sibling module. Compiled builds load the `.js` file;
 * when running from TypeScript sources (tests, tsx) the worker registers the
 * same loader first, since workers do not inherit it.
 */
function startWorker(base: URL, data: unknown): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL(`${base.href}.js`), { workerData: data });
  const entry = JSON.stringify(`${base.href}.ts`);
  return new Worker(`import('tsx/esm/api').then((api) => { api.register(); return import(${entry}); });`, {
    eval: true,
    workerData: data,
  });
}

/** What the worker is started with (clickSinkWorker.ts). */
export interface ClickWorkerData {
  path: string;
  ipHashSecret: string;
}

/**
 * Gathered events as one array per field. Copying a message between threads
 * serialises it: an array of event objects writes every field's name again
 * for every event, and the worker builds an object per event to read it.
 * Arrays of values cost about half as much on each side (0.2 against 0.4 µs
 * per event to serialise and 0.3 against 0.9 µs to read back, measured with
 * node:v8 over 300-event messages).
 */
export interface ClickColumns {
  linkId: string[];
  userId: (string | null)[];
  ip: string[];
  userAgent: (string | undefined)[];
  referer: (string | undefined)[];
  at: number[];
}

const emptyColumns = (): ClickColumns => ({ linkId: [], userId: [], ip: [], userAgent: [], referer: [], at: [] });

function appendEvent(c: ClickColumns, e: ClickEvent): void {
  c.linkId.push(e.linkId);
  c.userId.push(e.userId);
  c.ip.push(e.ip);
  c.userAgent.push(e.userAgent);
  c.referer.push(e.referer);
  c.at.push(e.at);
}

/**
 * The events of `c`, in the order they were gathered, their repeated strings
 * shared through `pool` (an event waits in the worker until its batch is stored).
 */
export function* eventsOf(c: ClickColumns, pool: StringPool): Generator<ClickEvent> {
  for (let i = 0; i < c.linkId.length; i++) {
    yield {
      linkId: pool.take(c.linkId[i]!),
      userId: pool.take(c.userId[i]!),
      ip: pool.take(c.ip[i]!),
      userAgent: pool.take(c.userAgent[i]),
      referer: pool.take(c.referer[i]),
      at: c.at[i]!,
    };
  }
}

/** Main thread → worker. */
export type ToClickWorker = { clicks: ClickColumns } | { close: number };

/** Worker → main thread: what its ClickWriter did, for metrics, logs and `pending`. */
export type FromClickWorker =
  | { recorded: number; seconds: number }
  | { errors: number }
  | { dropped: number }
  | { log: 'warn' | 'error'; message: string }
  | { closed: boolean };

/**
 * The click thread's niceness: when it and the thread answering redirects want the same core,
 * the redirects get about three quarters of it (Linux weighs nice 5 against 0 as 335 to 1024)
 * instead of half, and a waking redirect preempts a batch sooner. Clicks still get a quarter
 * of a busy core and every idle moment, which stores them faster than one core can redirect.
 */
export const CLICK_THREAD_NICE = 5;

/** How long redirects' events gather on the main thread before one message takes them over. */
const HANDOVER_MS = 20;

/**
 * Clicks per stored batch under load, and how long a busy batch may gather
 * (a quiet queue is still stored within ClickWriter's flush delay). Each
 * batch writes about one page of the per-link index per distinct link in it,
 * so the more clicks each link has in a batch, the fewer page writes per
 * click. Storing 1,440,000 clicks over 10,000 links with 16 KiB pages, CPU
 * per click over the last third was 8.6 µs in batches of 32,000, 7.2 in
 * batches of 64,000, 5.7 in batches of 128,000 and 5.3 in batches of 256,000
 * (5.2 with no per-link index at all). At 20,000 clicks a second a batch of
 * 128,000 gathers for about 6.5 s, so clicks show in stats a few seconds
 * later under load, and are stored within a second when traffic is light.
 */
export const SQLITE_BATCH_CLICKS = 128_000;
export const SQLITE_BATCH_GATHER_MS = 8_000;

/**
 * The bound on unstored clicks on an SQLite file, beyond which redirects drop
 * them: a batch being stored, the next one gathering meanwhile, and room for
 * a slow write. Waiting clicks share their repeated strings (StringPool), so
 * a full queue holds about 30 MB.
 */
export const SQLITE_CLICK_CAPACITY = 300_000;

/**
 * The click writer for an SQLite file, run on a worker thread with its own
 * connection. better-sqlite3 is synchronous, so on the main thread every
 * batch — and the checkpoints it triggers — would pause every redirect in
 * flight; and turning events into rows (ids, IP hashes) is work a redirect
 * need not wait for either. The main thread only gathers events for
 * HANDOVER_MS and posts them; the worker runs the same ClickWriter as the
 * server databases do in-process.
 *
 * The bound on unstored events is kept here, where redirects enqueue, so a
 * full queue drops (and counts) without ever blocking.
 *
 * The worker also owns WAL checkpoints (clickSinkWorker.ts): the main
 * thread's connection stops checkpointing, or any write it makes (a login, a
 * link edit) would copy the clicks' WAL back into the database right there.
 */
class SqliteClickWorker implements ClickRecorder {
  /** Started with the first click: a process that never redirects never loads the thread. */
  private worker: Worker | null = null;
  private gathered = emptyColumns();
  private handover: NodeJS.Timeout | null = null;
  private unstored = 0;
  private accepting = true;
  private terminating = false;
  private onClosed: ((drained: boolean) => void) | null = null;
  private readonly capacity: number;

  constructor(
    private readonly path: string,
    private readonly mainConnection: SqliteDatabase.Database,
    private readonly opts: Pick<ClickWriterOptions, 'metrics' | 'log' | 'ipHashSecret' | 'capacity'>,
  ) {
    this.capacity = opts.capacity ?? SQLITE_CLICK_CAPACITY;
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const { opts } = this;
    const data: ClickWorkerData = { path: this.path, ipHashSecret: opts.ipHashSecret };
    const worker = (this.worker = startWorker(new URL('./clickSinkWorker', import.meta.url), data));
    worker.unref();
    // From here on the worker checkpoints; until then SQLite's own automatic checkpoints do.
    this.mainConnection.pragma('wal_autocheckpoint = 0');
    worker.on('message', (m: FromClickWorker) => this.onMessage(m));
    worker.on('error', (e) => opts.log.error(`click writer thread failed: ${e.message}`));
    worker.on('exit', (code) => {
      if (this.terminating) return;
      this.accepting = false;
      this.onClosed?.(false);
      opts.log.error(`click writer thread exited (code ${code}); ${this.unstored} clicks were not stored`);
    });
    return worker;
  }

  get pending(): number {
    return this.unstored;
  }

  private onMessage(m: FromClickWorker): void {
    const { metrics, log } = this.opts;
    if ('recorded' in m) {
      this.unstored -= m.recorded;
      metrics.batchStored(m.recorded, m.seconds);
    } else if ('errors' in m) {
      metrics.clickErrors.inc(m.errors);
    } else if ('dropped' in m) {
      this.unstored -= m.dropped;
      metrics.clicksDropped.inc(m.dropped);
    } else if ('log' in m) {
      log[m.log](m.message);
    } else {
      this.onClosed?.(m.closed);
    }
  }

  enqueue(event: ClickEvent): boolean {
    if (!this.accepting || this.unstored >= this.capacity) {
      this.opts.metrics.clicksDropped.inc();
      this.opts.log.warn(`analytics: click channel full, dropping event for link ${event.linkId}`);
      return false;
    }
    this.unstored++;
    appendEvent(this.gathered, event);
    this.handover ??= setTimeout(() => this.handOver(), HANDOVER_MS);
    return true;
  }

  private handOver(): void {
    if (this.handover) clearTimeout(this.handover);
    this.handover = null;
    if (this.gathered.linkId.length === 0) return;
    this.post({ clicks: this.gathered });
    this.gathered = emptyColumns();
  }

  private post(msg: ToClickWorker): void {
    this.thread().postMessage(msg);
  }

  start(): void {}

  async close(timeoutMs = 30_000): Promise<boolean> {
    if (!this.accepting) return this.unstored === 0;
    this.accepting = false;
    this.handOver();
    const worker = this.worker;
    if (!worker) return true;
    const drained = await new Promise<boolean>((resolve) => {
      this.onClosed = resolve;
      this.post({ close: timeoutMs });
    });
    this.terminating = true;
    await worker.terminate();
    return drained;
  }
}

/**
 * The click recorder for a database: a worker thread for an SQLite file, an
 * in-process ClickWriter on the store's own pool otherwise (server databases
 * are asynchronous already, and an in-memory SQLite database cannot be shared).
 */
export function createClickRecorder(
  db: Db,
  store: { insertBatch(rows: ClickRows): Promise<void> },
  path: string,
  opts: Pick<ClickWriterOptions, 'metrics' | 'log' | 'ipHashSecret' | 'capacity'>,
): ClickRecorder {
  if (db.sqlite && path !== ':memory:') return new SqliteClickWorker(path, db.sqlite, opts);
  return new ClickWriter({ clicks: store, ...opts });
}
