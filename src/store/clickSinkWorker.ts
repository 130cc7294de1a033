import { parentPort, workerData } from 'node:worker_threads';
import { Kysely, SqliteDialect } from 'kysely';
import { openSqlite } from '../db/connect.js';
import type { Database } from '../db/schema.js';
import { ClickStore, type ClickRow } from './clicks.js';

/**
 * Worker-thread side of the SQLite click sink: its own connection to the same
 * database file runs the batch INSERTs (and the WAL checkpoints they trigger),
 * so disk work never stalls the thread that answers redirects.
 */
const sqlite = openSqlite((workerData as { path: string }).path);
const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
const clicks = new ClickStore(kysely);

parentPort!.on('message', async (msg: { id: number; rows?: ClickRow[]; close?: boolean }) => {
  if (msg.close) {
    await kysely.destroy();
    parentPort!.postMessage({ id: msg.id, ok: true });
    return;
  }
  try {
    await clicks.insertBatch(msg.rows ?? []);
    parentPort!.postMessage({ id: msg.id, ok: true });
  } catch (e) {
    const err = e as Error & { code?: string };
    parentPort!.postMessage({ id: msg.id, ok: false, message: err.message, code: err.code });
  }
});
