import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { Store } from '../../store/index.js';
import { exportLines } from '../../links/index.js';
import { errorResponses } from './errors.js';
import { adminOnly, BEARER } from './guards.js';
import { ref } from './schemas/ref.js';
import { LinkExportRecordSchema } from './schemas/transfer.js';

/**
 * `GET /api/v1/links/export` (docs/api.md#bulk-export-and-import): every link as JSON Lines, in
 * slug order, streamed page by page — the response is never held in memory,
 * so it stays flat for any number of links. The same lines as
 * `joe-links links export`, which `joe-links links import` reads back.
 */
export function registerLinkExportRoute(app: FastifyInstance, deps: { store: Pick<Store, 'links' | 'now'> }): void {
  app.get(
    '/links/export',
    {
      onRequest: adminOnly(),
      schema: {
        operationId: 'exportLinks',
        summary: 'Export every link as JSON Lines (admins)',
        tags: ['Admin'],
        security: BEARER,
        response: {
          200: {
            description: 'One LinkExportRecord per line, slug order, streamed',
            content: { 'application/x-ndjson': { schema: ref(LinkExportRecordSchema) } },
          },
          ...errorResponses(401, 403, 500),
        },
      },
    },
    async (req, reply) => {
      const lines = exportLines(deps.store);
      async function* ndjson() {
        for await (const line of lines) yield `${JSON.stringify(line)}\n`;
      }
      const stream = Readable.from(ndjson());
      // Headers are gone once the first line is out; a failure later can only cut the stream short.
      stream.on('error', (err) => req.log.error({ err }, 'link export failed mid-stream'));
      return reply.type('application/x-ndjson').header('cache-control', 'no-store').send(stream);
    },
  );
}
