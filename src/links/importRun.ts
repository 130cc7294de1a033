import { AppError, isAppError } from '../domain/errors.js';
import { decodeUtf8, isBrokenFile, NotUtf8Error, type ImportedRecord, type ImportFormat } from '../domain/imports/format.js';
import { collisionReason, importSlug, SlugLedger } from '../domain/imports/mapping.js';
import { recordText } from '../domain/linkRecords.js';
import { firstNulField, nulMessage, visibleNul } from '../domain/nul.js';
import { chooseFormat, SNIFF_BYTES } from '../domain/imports/registry.js';
import type { User } from '../store/types.js';
import type { Actor } from './actor.js';
import type { LinkContext } from './context.js';
import { importRecord, type ImportAction } from './importer.js';

/**
 * Importing a whole file (docs/api.md#importing-from-other-tools): the format
 * is named or detected from the first 64 KiB before anything is written, then
 * every row is mapped to our rules (docs/import-formats.md#mapping) and
 * imported on its own through importRecord, so one bad row never stops the
 * others and a dry run reports exactly what the real run does. The file is
 * read as it streams; what is held per row is its slug, for collisions.
 */

export interface ImportRequest {
  /** A format name (`golink`, `csv`…); undefined: detect it. */
  from?: string;
  dryRun: boolean;
  /** Owner of rows whose owners match no user (and of formats that name none); null: such rows are refused. */
  fallbackOwner: { id: string; label: string } | null;
  /** Give links to the owners the file names (admins and the operator only). */
  keepFileOwners: boolean;
}

/** What happened to one row of the file. */
export interface ImportRow {
  /** The row's line in the file (its position, in a JSON document). */
  line: number;
  /** The slug here, when the row got that far. */
  slug?: string;
  /** The name as the file wrote it, when it differs from the slug (or there is no slug). */
  written?: string;
  action: ImportAction | 'refused';
  /** Why a row was refused, or `unchanged` for a skipped one. */
  reason?: string;
  /** Fields an update changes. */
  changes?: string[];
  notes: string[];
  /** The source tool's click count for the link. */
  sourceClicks?: number;
}

export interface ImportSummary {
  format: string;
  dryRun: boolean;
  rows: number;
  created: number;
  updated: number;
  skipped: number;
  refused: number;
  /** Clicks the source counted for the links imported (created, updated or unchanged). */
  sourceClicks: number;
}

export interface ImportRun {
  format: ImportFormat;
  /** The rows' outcomes in file order; the run happens as they are read. */
  rows: AsyncIterable<ImportRow>;
  /** Totals so far; final once `rows` is done. */
  summary: ImportSummary;
  /** Bytes of the file read so far (by the import, after the check). */
  bytesRead(): number;
}

/** The start of the text, and the whole text again (the start included) to read on. */
async function peek(chunks: AsyncIterable<string>, size: number): Promise<{ head: string; all: AsyncIterable<string> }> {
  const it = chunks[Symbol.asyncIterator]();
  const taken: string[] = [];
  let length = 0;
  let done = false;
  while (length < size) {
    const next = await it.next();
    if (next.done) {
      done = true;
      break;
    }
    taken.push(next.value);
    length += next.value.length;
  }
  const head = taken.join('');
  async function* all(): AsyncIterable<string> {
    if (head !== '') yield head;
    while (!done) {
      const next = await it.next();
      if (next.done) return;
      yield next.value;
    }
  }
  return { head: head.slice(0, size), all: all() };
}

function formatFor(from: string | undefined, head: string): ImportFormat {
  if (head.replace(/^\uFEFF/, '').trim() === '') throw new AppError('BAD_REQUEST', 'the file is empty', 'file');
  // A plain tool name (`yourls`) is read as whichever of its formats the content is (domain/imports/registry.ts).
  const detection = chooseFormat(from, head);
  if ('error' in detection)
    throw new AppError('BAD_REQUEST', detection.error, detection.error.startsWith('unknown format') ? 'from' : 'file');
  return detection.format;
}

/** The file to import: a way to read it from the start, as often as needed, or its bytes once (then held while checked). */
export type ImportInput = AsyncIterable<Uint8Array | string> | (() => AsyncIterable<Uint8Array | string>);

/** How many rows, or how long, an import works before it lets the server answer others. */
const BATCH_ROWS = 200;
const BATCH_MS = 20;

/** A turn of the event loop: requests waiting on the server run before the next batch. */
const yieldToServer = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * A reader for a one-time input: the first pass keeps its chunks for the
 * second. Files from the surfaces are re-read from disk instead.
 */
function replayable(input: ImportInput): () => AsyncIterable<Uint8Array | string> {
  if (typeof input === 'function') return input;
  const kept: Array<Uint8Array | string> = [];
  let first = true;
  return () => {
    if (!first)
      return (async function* () {
        yield* kept;
      })();
    first = false;
    return (async function* () {
      for await (const chunk of input) {
        kept.push(chunk);
        yield chunk;
      }
    })();
  };
}

/**
 * Reads the whole file once before anything is written: its format, its
 * text (UTF-8 to the last byte) and its structure (every row found, even
 * those a rule will refuse). A file broken anywhere is BAD_REQUEST naming the
 * line, and nothing of it is written.
 */
async function checkFile(open: () => AsyncIterable<Uint8Array | string>, from: string | undefined): Promise<ImportFormat> {
  try {
    const decoded = decodeUtf8(open());
    const text = await peek(decoded.chunks, SNIFF_BYTES);
    const format = formatFor(from, text.head);
    let started = performance.now();
    for await (const parsed of format.parse(text.all)) {
      if (isBrokenFile(parsed))
        throw new AppError('BAD_REQUEST', `line ${parsed.line}: ${parsed.error ?? 'the file cannot be read'}`, 'file');
      if (performance.now() - started > BATCH_MS) {
        await yieldToServer();
        started = performance.now();
      }
    }
    return format;
  } catch (e) {
    if (e instanceof NotUtf8Error) throw new AppError('BAD_REQUEST', e.message, 'file');
    throw e;
  }
}

/**
 * Opens an import: decides the format and reads the whole file through
 * (BAD_REQUEST for an empty, unknown, ambiguous, non-UTF-8 or broken file;
 * FORBIDDEN when someone but an admin asks to keep the file's owners) before
 * any row is written.
 */
export async function startImport(ctx: LinkContext, actor: Actor, input: ImportInput, request: ImportRequest): Promise<ImportRun> {
  if (request.keepFileOwners && actor.kind === 'user' && actor.user.role !== 'admin') {
    throw new AppError('FORBIDDEN', 'only admins may keep the owners a file names');
  }
  const open = replayable(input);
  const format = await checkFile(open, request.from);
  const decoded = decodeUtf8(open());
  const summary: ImportSummary = {
    format: format.name,
    dryRun: request.dryRun,
    rows: 0,
    created: 0,
    updated: 0,
    skipped: 0,
    refused: 0,
    sourceClicks: 0,
  };
  return { format, summary, rows: importRows(ctx, actor, format, decoded.chunks, request, summary), bytesRead: decoded.read };
}

/**
 * The rows, imported one after another in batches: after every batch the
 * import waits a turn of the event loop, so that on SQLite (whose queries
 * answer without waiting) the server keeps answering while a long file is
 * imported.
 */
async function* importRows(
  ctx: LinkContext,
  actor: Actor,
  format: ImportFormat,
  text: AsyncIterable<string>,
  request: ImportRequest,
  summary: ImportSummary,
): AsyncIterable<ImportRow> {
  const ledger = new SlugLedger();
  const users = new Map<string, User | null>();
  const count = (row: ImportRow): ImportRow => {
    summary.rows++;
    summary[row.action]++;
    if (row.action !== 'refused') summary.sourceClicks += row.sourceClicks ?? 0;
    return row;
  };
  let started = performance.now();
  let rows = 0;
  for await (const parsed of format.parse(text)) {
    yield count(await importOne(ctx, actor, format, parsed, request, ledger, users));
    if (++rows % BATCH_ROWS === 0 || performance.now() - started > BATCH_MS) {
      await yieldToServer();
      started = performance.now();
    }
  }
}

/**
 * A row tried again when the database was busy (on SQLite, the click writer
 * holding the write lock): one row's transaction left nothing behind, and a
 * long import should not refuse rows for a moment's contention.
 */
async function whenNotBusy<T>(run: () => Promise<T>, attempts = 4): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (e) {
      if (attempt >= attempts || !isAppError(e) || e.code !== 'DB_BUSY') throw e;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
}

const refused = (line: number, written: string | undefined, reason: string, slug?: string): ImportRow => ({
  line,
  ...(slug !== undefined && { slug }),
  ...(written !== undefined && written !== slug && { written: visibleNul(written) }),
  action: 'refused',
  reason,
  notes: [],
});

async function importOne(
  ctx: LinkContext,
  actor: Actor,
  format: ImportFormat,
  parsed: ImportedRecord,
  request: ImportRequest,
  ledger: SlugLedger,
  users: Map<string, User | null>,
): Promise<ImportRow> {
  const { line } = parsed;
  if (!parsed.record) return refused(line, parsed.slug, parsed.error ?? 'this row could not be read');
  const written = parsed.record.slug;
  // Before the slug is mapped, which would quietly turn a NUL into a hyphen.
  const nul = firstNulField(recordText(parsed.record));
  if (nul !== null) return refused(line, written, nulMessage(nul));
  const mapped = importSlug(written);
  if ('error' in mapped) return refused(line, written, mapped.error);
  const { slug } = mapped;
  const earlier = ledger.earlier(slug);
  ledger.claim(slug, { line, written, as: 'slug' });
  if (earlier) return refused(line, written, collisionReason(slug, earlier, 'slug'), slug);

  const notes = [...(parsed.notes ?? [])];
  if (mapped.changed) notes.unshift(`slug "${written}" became "${slug}"`);
  const aliases: string[] = [];
  for (const alias of parsed.record.aliases ?? []) {
    const a = importSlug(alias);
    if ('error' in a) return refused(line, written, `alias ${a.error}`, slug);
    if (a.slug === slug || aliases.includes(a.slug)) continue;
    const before = ledger.earlier(a.slug);
    if (before) return refused(line, written, collisionReason(a.slug, before, 'alias'), slug);
    const owner = await ctx.store.links.getBySlug(a.slug);
    if (owner) return refused(line, written, `the alias "${a.slug}" is the slug of another link`, slug);
    aliases.push(a.slug);
  }
  for (const a of aliases) ledger.claim(a, { line, written: a, as: 'alias' });

  // A link its source did not redirect yet stays closed here until someone opens it (access never widens).
  const now = ctx.now();
  const notLiveYet = parsed.liveFrom !== undefined && parsed.liveFrom.at > now;
  if (notLiveYet) notes.push(parsed.liveFrom!.note);
  const record = {
    ...parsed.record,
    slug,
    ...(parsed.record.aliases !== undefined && { aliases }),
    ...(notLiveYet && parsed.record.archivedAt == null && { archivedAt: Math.floor(now / 1000) * 1000 }),
  };
  const base = {
    line,
    slug,
    ...(written !== slug && { written }),
    ...(parsed.sourceClicks !== undefined && { sourceClicks: parsed.sourceClicks }),
  };
  try {
    const outcome = await whenNotBusy(() =>
      importRecord(ctx, actor, record, {
        fallbackOwnerId: request.fallbackOwner?.id ?? null,
        fallbackOwnerLabel: request.fallbackOwner?.label,
        keepFileOwners: request.keepFileOwners,
        dryRun: request.dryRun,
        source: format.name,
        users,
      }),
    );
    return {
      ...base,
      action: outcome.action,
      ...(outcome.action === 'skipped' && { reason: 'unchanged' }),
      ...(outcome.changes.length > 0 && { changes: outcome.changes }),
      notes: [...notes, ...outcome.notes],
    };
  } catch (e) {
    // A row that breaks a rule is reported and the rest go on; anything else (the database went away) ends the import.
    if (!isAppError(e)) throw e;
    return { ...base, action: 'refused', reason: e.message, notes };
  }
}
