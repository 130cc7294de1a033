import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AppError } from '../../domain/errors.js';
import type { ImportRow, ImportRun, ImportSummary } from '../../links/index.js';

/**
 * What the REST API and the web page share for imports
 * (docs/api.md#importing-from-other-tools): the upload limit, the spooled
 * upload, and the report's JSON shapes.
 */

/** The largest file an import accepts: bigger uploads are 413 before anything is read into the links. */
export const IMPORT_MAX_BYTES = 100 * 1024 * 1024;

export const tooLarge = (): AppError =>
  new AppError('PAYLOAD_TOO_LARGE', `the file is larger than the ${IMPORT_MAX_BYTES / 1024 / 1024} MiB an import accepts`);

/** A whole upload on disk, read back as often as needed and removed once done with. */
export interface SpooledUpload {
  size: number;
  /** SHA-256 of the content, hex: what makes a retried upload the same request (docs/api.md#safe-retries). */
  digest: string;
  open(): Readable;
  dispose(): Promise<void>;
}

/**
 * Streams an upload to a temporary file, counting as it goes: memory stays
 * flat whatever the size, and a file over the limit is refused (413) before a
 * single row is imported, where a streamed import would have stopped halfway.
 */
export async function spoolUpload(source: AsyncIterable<Buffer | Uint8Array>, limit = IMPORT_MAX_BYTES): Promise<SpooledUpload> {
  const dir = await mkdtemp(join(tmpdir(), 'joe-links-import-'));
  const path = join(dir, 'upload');
  const dispose = () => rm(dir, { recursive: true, force: true });
  let size = 0;
  const hash = createHash('sha256');
  try {
    await pipeline(
      source,
      async function* count(chunks: AsyncIterable<Buffer | Uint8Array>) {
        for await (const chunk of chunks) {
          size += chunk.byteLength;
          if (size > limit) throw tooLarge();
          hash.update(chunk);
          yield chunk;
        }
      },
      createWriteStream(path),
    );
  } catch (e) {
    await dispose();
    throw e;
  }
  return { size, digest: hash.digest('hex'), open: () => createReadStream(path, { highWaterMark: 256 * 1024 }), dispose };
}

/** One row of the report as the API and the page's script read it. */
export function rowJson(row: ImportRow): Record<string, unknown> {
  return {
    line: row.line,
    ...(row.slug !== undefined && { slug: row.slug }),
    ...(row.written !== undefined && { written: row.written }),
    action: row.action,
    ...(row.reason !== undefined && { reason: row.reason }),
    ...(row.changes !== undefined && { changes: row.changes }),
    notes: row.notes,
    ...(row.sourceClicks !== undefined && { source_clicks: row.sourceClicks }),
  };
}

export function summaryJson(s: ImportSummary): Record<string, unknown> {
  return {
    format: s.format,
    dry_run: s.dryRun,
    rows: s.rows,
    created: s.created,
    updated: s.updated,
    skipped: s.skipped,
    refused: s.refused,
    source_clicks: s.sourceClicks,
  };
}

/**
 * The report as one JSON document written as the rows are imported:
 * `{"format","dry_run","rows":[…],"summary":{…}}`. The server holds one row
 * at a time, however long the file.
 */
export async function* reportDocument(run: ImportRun): AsyncIterable<string> {
  yield `{"format":${JSON.stringify(run.format.name)},"dry_run":${run.summary.dryRun},"rows":[`;
  let first = true;
  for await (const row of run.rows) {
    yield `${first ? '' : ','}\n${JSON.stringify(rowJson(row))}`;
    first = false;
  }
  yield `\n],"summary":${JSON.stringify(summaryJson(run.summary))}}\n`;
}
