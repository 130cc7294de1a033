import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { requestUser } from '../../auth/currentUser.js';
import { isAppError } from '../../domain/errors.js';
import { IMPORT_FORMATS, IMPORT_TOOLS } from '../../domain/imports/registry.js';
import { asUser, type ImportRow } from '../../links/index.js';
import type { User } from '../../store/types.js';
import { ImportPage, type ImportPageState } from '../../views/pages/importLinks.js';
import { IMPORT_MAX_BYTES, rowJson, spoolUpload, summaryJson, tooLarge, type SpooledUpload } from '../shared/importUpload.js';
import { requireUser } from './guards.js';
import { pageContext, sendHtml } from './render.js';
import type { WebDeps } from './support.js';

/**
 * `/dashboard/links/import` (docs/web-ui.md#importing-links): the page, and
 * the form's multipart POST. A plain post answers the page with the report;
 * the page's script asks for `application/x-ndjson` and gets one line per row
 * as it is imported (with the bytes read, for the progress bar), then the
 * summary. Both spool the upload first, so the 413 comes before any write.
 */

const NDJSON = 'application/x-ndjson';
// Tools by their plain names, as `--from` takes them: which variant a file is comes from its content.
const formats = IMPORT_TOOLS.map((t) => ({ name: t.name, label: t.label }));

interface ImportForm {
  from: string;
  mode: string;
  keepOwners: boolean;
  upload: SpooledUpload | null;
}

/** Reads the form; the file part is spooled to disk as it arrives (fields sent after it are ignored). */
async function readForm(req: FastifyRequest): Promise<ImportForm> {
  const form: ImportForm = { from: '', mode: 'preview', keepOwners: false, upload: null };
  try {
    for await (const part of req.parts()) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file' || form.upload) {
          part.file.resume();
          continue;
        }
        form.upload = await spoolUpload(part.file);
        continue;
      }
      const value = typeof part.value === 'string' ? part.value : '';
      if (part.fieldname === 'from') form.from = value;
      else if (part.fieldname === 'mode') form.mode = value;
      else if (part.fieldname === 'keep_owners') form.keepOwners = value === 'true';
    }
  } catch (e) {
    // A form refused after its file was spooled (a second file, too many fields) leaves nothing on disk.
    await form.upload?.dispose();
    throw e;
  }
  return form;
}

const wantsStream = (req: FastifyRequest): boolean => (req.headers.accept ?? '').includes(NDJSON);

export function registerImportRoutes(app: FastifyInstance, deps: WebDeps): void {
  const guard = { preHandler: requireUser(deps) };

  const page = async (req: FastifyRequest, reply: FastifyReply, user: User, partial: Partial<ImportPageState>, status = 200) => {
    const state: ImportPageState = {
      formats,
      isAdmin: user.role === 'admin',
      maxMiB: IMPORT_MAX_BYTES / 1024 / 1024,
      from: '',
      keepOwners: false,
      error: null,
      result: null,
      ...partial,
    };
    return sendHtml(req, reply, await pageContext(deps, req, user), 'Import links', <ImportPage {...state} />, status);
  };

  app.get('/dashboard/links/import', guard, async (req, reply) => page(req, reply, requestUser(req), {}));

  // Multipart bodies are read by this context alone; the file part streams to disk under the import limit.
  app.register(async (uploads) => {
    await uploads.register(multipart, { limits: { files: 1, fields: 10, fieldSize: 1024, fileSize: IMPORT_MAX_BYTES + 1 } });

    uploads.post('/dashboard/links/import', guard, async (req, reply) => {
      const user = requestUser(req);
      const stream = wantsStream(req);
      const declared = Number(req.headers['content-length'] ?? NaN);
      let form: ImportForm | null = null;
      try {
        if (declared > IMPORT_MAX_BYTES + 64 * 1024) throw tooLarge();
        if (!req.isMultipart()) return await page(req, reply, user, { error: 'Choose a file to import.' }, 400);
        form = await readForm(req);
        if (!form.upload || form.upload.size === 0) {
          await form.upload?.dispose();
          return await failure(req, reply, user, form, 'Choose a file to import (the one chosen is empty).', 400, 'BAD_REQUEST');
        }
        const upload = form.upload;
        const run = await deps.links.importFile(asUser(user), upload.open, {
          from: form.from || undefined,
          dryRun: form.mode !== 'import',
          fallbackOwner: { id: user.id, label: user.email },
          keepFileOwners: form.keepOwners && user.role === 'admin',
        });
        const label = IMPORT_FORMATS.find((f) => f.name === run.format.name)!.label;
        if (stream) {
          async function* lines() {
            yield `${JSON.stringify({ type: 'start', format: run.format.name, label, dry_run: run.summary.dryRun, bytes: upload.size })}\n`;
            for await (const row of run.rows) yield `${JSON.stringify({ type: 'row', read: run.bytesRead(), ...rowJson(row) })}\n`;
            yield `${JSON.stringify({ type: 'summary', ...summaryJson(run.summary) })}\n`;
          }
          const body = Readable.from(lines());
          body.on('error', (err) => req.log.error({ err }, 'import failed mid-stream'));
          body.on('close', () => void upload.dispose());
          return reply.type(NDJSON).header('cache-control', 'no-store').send(body);
        }
        const rows: ImportRow[] = [];
        try {
          for await (const row of run.rows) rows.push(row);
        } finally {
          await upload.dispose();
        }
        return await page(req, reply, user, {
          from: form.from,
          keepOwners: form.keepOwners,
          result: { formatLabel: label, summary: run.summary, rows },
        });
      } catch (e) {
        await form?.upload?.dispose();
        if (!isAppError(e) || e.status >= 500) throw e;
        return failure(req, reply, user, form, e.message, e.status, e.code);
      }
    });
  });

  /** A refused file: the API's error body for the script, the page with the message for a plain post. */
  async function failure(
    req: FastifyRequest,
    reply: FastifyReply,
    user: User,
    form: ImportForm | null,
    message: string,
    status: number,
    code: string,
  ) {
    if (wantsStream(req)) return reply.code(status).type('application/json').send({ error: message, code });
    return page(req, reply, user, { from: form?.from ?? '', keepOwners: form?.keepOwners ?? false, error: message }, status);
  }
}
