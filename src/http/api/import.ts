import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { requestUser } from '../../auth/currentUser.js';
import { asUser, type LinkService } from '../../links/index.js';
import { IMPORT_MAX_BYTES, reportDocument, spoolUpload, tooLarge } from '../shared/importUpload.js';
import { ApiErrorSchema, errorResponses } from './errors.js';
import { BEARER } from './guards.js';
import { DocumentedEnum, ref, StringEnum } from './schemas/ref.js';
import { IMPORT_FORMATS, TOOL_NAMES } from '../../domain/imports/registry.js';
import { ImportReportSchema } from './schemas/transfer.js';
import { claimKey, idempotencyKey, IdempotencyHeaders, uploadRequestHash, type ClaimedKey } from './idempotency.js';
import type { Store } from '../../store/index.js';

/**
 * The report as it streams, kept whole for a retry once its last part is out (an import's
 * report is its answer: docs/api.md#safe-retries). A report cut short frees the key instead.
 */
async function* kept(report: AsyncIterable<string>, claim: ClaimedKey): AsyncIterable<string> {
  const parts: string[] = [];
  let whole = false;
  try {
    for await (const part of report) {
      parts.push(part);
      yield part;
    }
    whole = true;
  } finally {
    if (whole) await claim.keep({ status: 200, contentType: 'application/json; charset=utf-8', location: null, body: parts.join('') });
    else await claim.release();
  }
}

/**
 * `POST /api/v1/links/import` (docs/api.md#importing-from-other-tools): the
 * body is the file itself, in any format joe-links reads. It is spooled to
 * disk first (413 over the limit, before anything is written), then imported
 * row by row while the report streams back.
 */
export function registerImportRoute(app: FastifyInstance, deps: { links: LinkService; store: Pick<Store, 'idempotency'> }): void {
  // The body is a file, not JSON: this route alone takes any content type, unparsed.
  app.register(async (files) => {
    files.removeAllContentTypeParsers();
    files.addContentTypeParser('*', (_req, payload, done) => done(null, payload));
    const api = files.withTypeProvider<TypeBoxTypeProvider>();
    const flag = StringEnum(['true', 'false']);
    api.post(
      '/links/import',
      {
        schema: {
          operationId: 'importLinks',
          summary: 'Import links from a file of joe-links or another tool (golink, Trotto, Slash, Shlink, YOURLS, Bitly, Dub, Kutt)',
          tags: ['Links'],
          security: BEARER,
          consumes: ['application/octet-stream', 'text/csv', 'application/x-ndjson', 'application/json', 'text/plain'],
          querystring: Type.Object({
            from: Type.Optional(
              DocumentedEnum([...TOOL_NAMES, ...IMPORT_FORMATS.map((f) => f.name).filter((n) => !TOOL_NAMES.includes(n))], {
                description:
                  'the tool that wrote the file (golink, shlink…; docs/import-formats.md), whose variant is read from the content, or a variant by its own name (shlink-csv); detected from the content when omitted',
              }),
            ),
            dry_run: Type.Optional(flag),
            keep_owners: Type.Optional(flag),
          }),
          headers: IdempotencyHeaders,
          body: Type.Any({ description: `the file, at most ${IMPORT_MAX_BYTES / 1024 / 1024} MiB` }),
          response: {
            200: {
              description: 'The report, streamed as the rows are imported',
              content: { 'application/json': { schema: ref(ImportReportSchema) } },
            },
            ...errorResponses(400, 401, 403, [409, 'IDEMPOTENCY_KEY_IN_USE'], 422, 500),
            413: ref(ApiErrorSchema, { description: `File over ${IMPORT_MAX_BYTES / 1024 / 1024} MiB (PAYLOAD_TOO_LARGE)` }),
          },
        },
      },
      async (req, reply) => {
        const user = requestUser(req);
        const keepOwners = req.query.keep_owners === 'true';
        const declared = Number(req.headers['content-length'] ?? NaN);
        if (declared > IMPORT_MAX_BYTES) throw tooLarge();
        const key = idempotencyKey(req);
        const body = req.body as Readable | undefined;
        const upload = await spoolUpload(body ?? Readable.from([]));
        let claim: ClaimedKey | null = null;
        try {
          // A retried upload with its key gets the first report; the file is the request.
          if (key !== undefined) {
            claim = await claimKey(deps.store, reply, user.id, key, uploadRequestHash(req, upload.digest));
            if (claim === null) {
              await upload.dispose();
              return reply;
            }
          }
          const run = await deps.links.importFile(asUser(user), upload.open, {
            from: req.query.from,
            dryRun: req.query.dry_run === 'true',
            fallbackOwner: { id: user.id, label: user.email },
            keepFileOwners: keepOwners,
          });
          const stream = Readable.from(claim === null ? reportDocument(run) : kept(reportDocument(run), claim));
          // Headers are gone once the first row is out; a failure later can only cut the report short.
          stream.on('error', (err) => req.log.error({ err }, 'import failed mid-stream'));
          stream.on('close', () => void upload.dispose());
          return reply
            .type('application/json')
            .header('cache-control', 'no-store')
            .send(stream as never); // a stream: the schema documents what it writes
        } catch (e) {
          await claim?.release();
          await upload.dispose();
          throw e;
        }
      },
    );
  });
}
