import assert from 'node:assert/strict';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { DbDriver } from '../../src/config.js';
import { IMPORT_MAX_BYTES } from '../../src/http/shared/importUpload.js';
import type { TestServer } from '../helpers/server.js';
import { actor, assertError, call, snapshot, startApi, type Actor, type ApiResponse } from './support.js';
import { IMPORT_FIXTURES } from '../helpers/paths.js';

/**
 * `POST /api/v1/links/import` on every database: the body is the file, the
 * report streams back as one JSON document, a user owns what they import,
 * an admin may keep the file's owners, and bad files are a 4xx with nothing
 * written.
 */

const DRIVERS: Array<[DbDriver, string | undefined]> = [
  ['sqlite3', undefined],
  ['postgres', 'JOE_TEST_PG_DSN'],
  ['mysql', 'JOE_TEST_MYSQL_DSN'],
];

const fixture = (name: string): string => readFileSync(new URL(name, IMPORT_FIXTURES), 'utf8');

/** A raw upload, so a test controls the bytes, the chunking and the declared length. */
function upload(
  s: TestServer,
  path: string,
  as: Actor,
  chunks: Iterable<Buffer | string>,
  headers: Record<string, string> = {},
  opts: { keepOpen?: boolean } = {},
): Promise<ApiResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${s.url}${path}`,
      { method: 'POST', headers: { authorization: `Bearer ${as.token}`, 'content-type': 'application/octet-stream', ...headers } },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8');
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            body = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: { get: (n) => (res.headers[n.toLowerCase()] as string) ?? null }, text, body });
          if (opts.keepOpen) req.destroy();
        });
      },
    );
    // The server may answer (413) and close before the whole body is sent.
    req.on('error', (e: NodeJS.ErrnoException) => (e.code === 'EPIPE' || e.code === 'ECONNRESET' ? undefined : reject(e)));
    (async () => {
      for (const c of chunks) if (!req.write(c)) await new Promise((r) => req.once('drain', r));
      // A body shorter than its declared length is still being sent as far as the server knows.
      if (!opts.keepOpen) req.end();
    })().catch(() => undefined);
  });
}

const actions = (r: ApiResponse) =>
  (r.body.rows as Array<{ line: number; action: string; reason?: string }>).map((x) => [x.line, x.action, x.reason]);

for (const [driver, env] of DRIVERS) {
  describe(`POST /api/v1/links/import [${driver}]`, { skip: env !== undefined && !process.env[env] ? `${env} not set` : false }, () => {
    let s: TestServer;
    let ann: Actor;
    let admin: Actor;
    before(async () => {
      s = await startApi({ driver });
      ann = await actor(s, 'ann');
      admin = await actor(s, 'root', { admin: true });
    });
    after(() => s.close());

    test('an import sent again with its Idempotency-Key gets the first report and imports nothing twice', async () => {
      const importer = await actor(s, 'importer');
      const key = `import-${driver}-${process.pid}`;
      const file = [0, 1, 2].map((i) => JSON.stringify({ Short: `idem-${driver}-${i}`, Long: `https://example.com/${i}` })).join('\n');
      const first = await upload(s, '/api/v1/links/import', importer, [file], { 'idempotency-key': key });
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.summary.created, 3);
      const again = await upload(s, '/api/v1/links/import', importer, [file.slice(0, 10), file.slice(10)], { 'idempotency-key': key });
      assert.equal(again.status, 200, again.text);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.equal(again.text, first.text, 'the first report, byte for byte');
      const mine = await s.store.db.kysely.selectFrom('links').select('id').where('slug', 'like', `idem-${driver}-%`).execute();
      assert.equal(mine.length, 3);

      const other = await upload(s, '/api/v1/links/import', importer, [`${file}\n`], { 'idempotency-key': key });
      assert.equal(other.status, 422, other.text);
      assert.equal(other.body.code, 'IDEMPOTENCY_KEY_REUSED');
      const dry = await upload(s, '/api/v1/links/import?dry_run=true', importer, [file], { 'idempotency-key': key });
      assert.equal(dry.status, 422, 'another query is another request');
    });

    test('a golink export: the dry run reports what the real run does; the importer owns the links; a second run changes nothing', async () => {
      const before = await snapshot(s);
      const dry = await upload(s, '/api/v1/links/import?dry_run=true', ann, [fixture('golink.jsonl')]);
      assert.equal(dry.status, 200, dry.text);
      assert.match(dry.headers.get('content-type')!, /^application\/json/);
      assert.equal(await snapshot(s), before, 'a dry run writes nothing');
      assert.equal(dry.body.format, 'golink');
      assert.equal(dry.body.dry_run, true);

      const real = await upload(s, '/api/v1/links/import', ann, [fixture('golink.jsonl')]);
      assert.equal(real.status, 200, real.text);
      assert.deepEqual(actions(real), actions(dry));
      assert.deepEqual(real.body.summary, {
        format: 'golink',
        dry_run: false,
        rows: 10,
        created: 10,
        updated: 0,
        skipped: 0,
        refused: 0,
        source_clicks: 40,
      });
      const slack = real.body.rows.find((r: { slug?: string }) => r.slug === 'slack');
      assert.equal(slack.source_clicks, 4);
      const link = await call(s, 'GET', `/api/v1/links?limit=100`, { as: ann });
      assert.deepEqual(link.body.links.map((l: { slug: string }) => l.slug).sort(), [
        'cs',
        'go',
        'go-dev',
        'me',
        'meeting-notes',
        'search',
        'slack',
        'tagged',
        'today',
        'who',
      ]);
      assert.ok(link.body.links.every((l: { owners: Array<{ email: string }> }) => l.owners[0]!.email === ann.user.email));

      const slackId = link.body.links.find((l: { slug: string }) => l.slug === 'slack').id;
      const history = await call(s, 'GET', `/api/v1/links/${slackId}/history`, { as: ann });
      assert.equal(history.status, 200, history.text);
      const first = history.body.events.at(-1);
      assert.deepEqual([first.kind, first.source], ['imported', 'golink'], 'the history names the import and its format');

      const again = await upload(s, '/api/v1/links/import', ann, [fixture('golink.jsonl')]);
      assert.equal(again.body.summary.skipped, 10);
      assert.equal(again.body.summary.created + again.body.summary.updated, 0);
    });

    test('an admin may keep the file’s owners; nobody else may ask; without a token nothing is read', async () => {
      const kay = await s.store.users.create({ email: `kay-${driver}@acme.example`, displayName: 'Kay' });
      const file = fixture('trotto.json').replaceAll('kay@acme.example', kay.email).replaceAll('"shortpath": "', '"shortpath": "t-');
      const forbidden = await upload(s, '/api/v1/links/import?keep_owners=true', ann, [file]);
      assertError(forbidden, 403, 'FORBIDDEN');
      const r = await upload(s, '/api/v1/links/import?keep_owners=true&from=trotto', admin, [file]);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.summary.created, 4);
      const benefits = (await s.store.links.view((await s.store.links.getBySlug('t-benefits'))!.id))!;
      assert.deepEqual(
        benefits.owners.map((o) => o.email),
        [kay.email],
      );
      const gh = (await s.store.links.view((await s.store.links.getBySlug('t-gh'))!.id))!;
      assert.deepEqual(
        gh.owners.map((o) => o.email),
        [admin.user.email],
        'an owner who is not a user goes to the importer',
      );
      const anonymous = await call(s, 'POST', '/api/v1/links/import', {
        as: null,
        body: 'slug,url\n',
        headers: { 'content-type': 'text/csv' },
      });
      assertError(anonymous, 401, 'UNAUTHORIZED');
    });

    test('from takes a tool’s plain name and reads its variant from the content; a variant’s own name still works', async () => {
      const cases: Array<[string, string, string]> = [
        ['shlink', 'shlink.csv', 'shlink-csv'],
        ['shlink', 'shlink.json', 'shlink-json'],
        ['yourls', 'yourls-batch.tsv', 'yourls-tsv'],
        ['shlink-json', 'shlink.json', 'shlink-json'],
      ];
      for (const [from, name, format] of cases) {
        const r = await upload(s, `/api/v1/links/import?dry_run=true&from=${from}`, ann, [fixture(name)]);
        assert.equal(r.status, 200, r.text);
        assert.equal(r.body.summary.format, format, `${from} with ${name}`);
      }
      const wrong = await upload(s, '/api/v1/links/import?dry_run=true&from=bitly', ann, [fixture('shlink.csv')]);
      assertError(wrong, 400, 'BAD_REQUEST');
      assert.match(wrong.body.error, /not a bitly export/);
    });

    test('bad files are a 400 naming the problem, and nothing is written', async () => {
      const before = await snapshot(s);
      const cases: Array<[string, string | Buffer, RegExp]> = [
        ['', 'name,email\nann,ann@example.test\n', /no format joe-links knows/],
        ['', 'link,long url,keyword,url\nx,https://x.example/,x,https://x.example/\n', /could be .*bitly-csv/],
        ['?from=nope', 'slug,url\na,https://a.example/\n', /unknown format "nope"/],
        ['', '', /the file is empty/],
        ['', Buffer.from('slug,url\ncaf\xe9,https://x.example/\n', 'latin1'), /not UTF-8/],
        ['', Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00]), /no format joe-links knows|not UTF-8/],
      ];
      for (const [query, body, message] of cases) {
        const r = await upload(s, `/api/v1/links/import${query}`, ann, [body]);
        assertError(r, 400, 'BAD_REQUEST', String(body).slice(0, 30));
        assert.match(r.body.error, message);
      }
      const badFlag = await upload(s, '/api/v1/links/import?dry_run=yes', ann, ['slug,url\n']);
      assertError(badFlag, 400, 'BAD_REQUEST');
      assert.equal(await snapshot(s), before);
    });

    test('rows that break a rule are refused one by one; the rest of the file is imported', async () => {
      const csv = [
        'slug,url,title',
        'ok-one,https://one.example/,One',
        'evil,javascript:alert(document.cookie),Evil',
        'data,data:text/html;base64,PHNjcmlwdD4=,Data',
        '!!!,https://x.example/,Nothing',
        'Ok_One,https://two.example/,Collides',
        'ok-two,https://two.example/,Two',
      ].join('\n');
      const r = await upload(s, '/api/v1/links/import?from=csv', ann, [csv], { 'content-type': 'text/csv' });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(actions(r), [
        [2, 'created', undefined],
        [3, 'refused', 'url must start with http:// or https://'],
        [4, 'refused', 'expected 3 fields, found 4'],
        [5, 'refused', '"!!!" has no letters or digits to make a slug of'],
        [6, 'refused', 'the slug "ok-one" is already the slug of line 2'],
        [7, 'created', undefined],
      ]);
      assert.equal(await s.store.links.getBySlug('evil'), null);
    });

    test('a file broken on its last line, far into the file, is 400 naming that line, with nothing written', async () => {
      const before = await snapshot(s);
      const rows = Array.from({ length: 5000 }, (_, i) => `${JSON.stringify({ slug: `tail-${i}`, url: 'https://t.example/' })}\n`).join('');
      const bad = await upload(s, '/api/v1/links/import', ann, [rows, Buffer.from([0x7b, 0xff, 0x7d, 0x0a])]);
      assertError(bad, 400, 'BAD_REQUEST');
      assert.equal(bad.body.error, 'the file is not UTF-8 text (line 5001)');
      const csv = await upload(s, '/api/v1/links/import?from=csv', ann, [`slug,url\nok,https://ok.example/\nlast,"https://x.example/\n`]);
      assertError(csv, 400, 'BAD_REQUEST');
      assert.match(csv.body.error, /^line 3: not valid CSV/);
      assert.equal(await snapshot(s), before);
    });

    test('a file over the limit is 413 before anything is written, declared or not', async () => {
      const before = await snapshot(s);
      const declared = await upload(
        s,
        '/api/v1/links/import',
        ann,
        ['slug,url\n'],
        { 'content-length': String(IMPORT_MAX_BYTES + 1) },
        { keepOpen: true },
      );
      assertError(declared, 413, 'PAYLOAD_TOO_LARGE');
      const line = `${JSON.stringify({ slug: 'big', url: 'https://big.example/', padding: 'x'.repeat(1024 * 1024) })}\n`;
      function* big() {
        for (let sent = 0; sent <= IMPORT_MAX_BYTES; sent += line.length) yield line;
      }
      const chunked = await upload(s, '/api/v1/links/import', ann, big(), { 'transfer-encoding': 'chunked' });
      assertError(chunked, 413, 'PAYLOAD_TOO_LARGE');
      assert.match(chunked.body.error, /100 MiB/);
      assert.equal(await snapshot(s), before);
    });
  });
}
