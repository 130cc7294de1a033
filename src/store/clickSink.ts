import { Worker } from 'node:worker_threads';
import type { Db } from '../db/connect.js';
import type { ClickRow } from './clicks.js';

/** Where the click writer puts its batches. */
export interface ClickSink {
  insertBatch(rows: readonly ClickRow[]): Promise<void>;
  close(): Promise<void>;
}

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

type Reply = { id: number; ok: boolean; message?: string; code?: string };

/**
 * Runs SQLite click inserts on a worker thread with its own connection.
 * better-sqlite3 is synchronous, so on the main thread every batch — and the
 * checkpoint fsyncs it triggers — would pause every redirect in flight.
 */
class SqliteWorkerSink implements ClickSink {
  private readonly worker: Worker;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();

  constructor(path: string) {
    this.worker = startWorker(new URL('./clickSinkWorker', import.meta.url), { path });
    this.worker.unref();
    this.worker.on('message', (r: Reply) => {
      const w = this.waiting.get(r.id);
      if (!w) return;
      this.waiting.delete(r.id);
      if (r.ok) w.resolve();
      else w.reject(Object.assign(new Error(r.message ?? 'click insert failed'), { code: r.code }));
    });
    this.worker.on('error', (e) => this.failAll(e));
    this.worker.on('exit', (code) => this.failAll(new Error(`click sink worker exited with code ${code}`)));
  }

  private failAll(e: Error): void {
    for (const w of this.waiting.values()) w.reject(e);
    this.waiting.clear();
  }

  private call(msg: { rows?: readonly ClickRow[]; close?: boolean }): Promise<void> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ id, ...msg });
    });
  }

  insertBatch(rows: readonly ClickRow[]): Promise<void> {
    return rows.length === 0 ? Promise.resolve() : this.call({ rows });
  }

  async close(): Promise<void> {
    await this.call({ close: true }).catch(() => {});
    await this.worker.terminate();
  }
}

/**
 * The click sink for a database: a worker thread for an SQLite file, the
 * store's own connection pool otherwise (server databases are asynchronous
 * already, and an in-memory SQLite database cannot be shared).
 */
export function createClickSink(db: Db, store: { insertBatch(rows: readonly ClickRow[]): Promise<void> }, path: string): ClickSink {
  if (db.driver === 'sqlite3' && path !== ':memory:') return new SqliteWorkerSink(path);
  return { insertBatch: (rows) => store.insertBatch(rows), close: async () => {} };
}
