import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { TestServer } from '../helpers/server.js';
import { anonymous, has, lacks, mainOf, signedIn, startWebServer, textOf, type Client } from './support.js';
import { IMPORT_FIXTURES } from '../helpers/paths.js';

/**
 * `/dashboard/links/import` over real HTTP: the page, a plain multipart post
 * answered with the report page (no script needed), the script's streamed
 * lines, and refused files answered with the page and its message, nothing
 * written.
 */

const fixture = (name: string): string => readFileSync(new URL(name, IMPORT_FIXTURES), 'utf8');

async function post(
  s: TestServer,
  c: Client,
  fields: Record<string, string>,
  file: { name: string; text: string } | null,
  headers: Record<string, string> = {},
) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  if (file) form.append('file', new Blob([file.text]), file.name);
  const r = await fetch(`${s.url}/dashboard/links/import`, { method: 'POST', body: form, headers: { cookie: c.cookie, ...headers } });
  return { status: r.status, type: r.headers.get('content-type') ?? '', body: await r.text() };
}

describe('the import page', () => {
  let s: TestServer;
  let ann: Client;
  before(async () => {
    s = await startWebServer();
    ann = await signedIn(s, 'ann@example.com', { name: 'Ann' });
  });
  after(() => s.close());

  test('the page offers every format; the dashboard links to it; strangers sign in first', async () => {
    const page = await ann.page('/dashboard/links/import');
    assert.equal(page.status, 200);
    const main = mainOf(page.body);
    has(main, /enctype="multipart\/form-data"/);
    has(main, /<option value="golink">golink \(\/\.export JSON Lines\)<\/option>/);
    has(main, /<option value="trotto">/);
    lacks(main, /keep_owners/, 'only admins may keep the file’s owners');
    has(mainOf((await ann.page('/dashboard')).body), /href="\/dashboard\/links\/import"/);
    const stranger = await anonymous(s).page('/dashboard/links/import');
    assert.equal(stranger.status, 302);
  });

  test('the page lists tools by the plain names --from takes, and the variant comes from the file', async () => {
    const main = mainOf((await ann.page('/dashboard/links/import')).body);
    const values = [...main.matchAll(/<option value="([^"]+)"/g)].map((m) => m[1]);
    has(main, /Detect from the file<\/option>/);
    assert.deepEqual(values, ['jsonl', 'csv', 'golink', 'trotto', 'slash', 'shlink', 'yourls', 'bitly', 'dub', 'kutt']);
    has(main, /<option value="shlink">Shlink \(web client CSV export, or the REST API short-URL list JSON\)<\/option>/);
    for (const [name, variant] of [
      ['shlink.csv', 'Shlink \\(web client CSV export\\)'],
      ['shlink.json', 'Shlink \\(REST API short-URL list JSON\\)'],
    ] as const) {
      const preview = await post(s, ann, { from: 'shlink', mode: 'preview' }, { name, text: fixture(name) });
      assert.equal(preview.status, 200, preview.body.slice(0, 300));
      assert.match(textOf(mainOf(preview.body)), new RegExp(`Preview: ${variant}`));
      has(preview.body, /<option value="shlink" selected/, 'the chosen tool stays chosen');
    }
    assert.equal(await s.store.links.count(), 0);
  });

  test('without a script: a preview answers the report page and writes nothing; import writes; a second import skips', async () => {
    const file = { name: 'golink.jsonl', text: fixture('golink.jsonl') };
    const preview = await post(s, ann, { from: '', mode: 'preview' }, file);
    assert.equal(preview.status, 200, preview.body.slice(0, 300));
    const text = textOf(mainOf(preview.body));
    assert.match(text, /Preview: golink \(\/\.export JSON Lines\)/);
    assert.match(text, /10 rows read; 40 clicks counted by the source \(reported, not stored\);.* nothing was written\./);
    assert.match(text, /choose the file again and press Import/);
    assert.match(text, /5 me\b[^]*? 6 search\b/);
    assert.doesNotMatch(text, /refused/);
    assert.equal(await s.store.links.count(), 0);

    const real = await post(s, ann, { mode: 'import' }, file);
    assert.match(textOf(mainOf(real.body)), /Imported: golink/);
    assert.equal(await s.store.links.count(), 10);
    const again = await post(s, ann, { mode: 'import' }, file);
    assert.match(textOf(mainOf(again.body)), /meeting-notes unchanged .* skipped/);
    assert.equal(await s.store.links.count(), 10);
  });

  test('the script’s request: one line per row with the bytes read, then the summary', async () => {
    const csv = 'slug,url,title\nstream-a,https://a.example/,A\nstream-b,javascript:alert(1),B\n';
    const r = await post(s, ann, { from: 'csv', mode: 'import' }, { name: 'links.csv', text: csv }, { accept: 'application/x-ndjson' });
    assert.equal(r.status, 200);
    assert.match(r.type, /^application\/x-ndjson/);
    const lines = r.body
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(lines[0], {
      type: 'start',
      format: 'csv',
      label: 'joe-links (CSV: slug,url,title,description,tags)',
      dry_run: false,
      bytes: csv.length,
    });
    assert.equal(lines[1].action, 'created');
    assert.equal(lines[1].read, csv.length);
    assert.equal(lines[2].reason, 'url must start with http:// or https://');
    assert.equal(lines[3].type, 'summary');
    assert.equal(lines[3].created, 1);
    assert.equal(lines[3].refused, 1);
  });

  test('refused files: the page with the message (or the error body for the script), nothing written', async () => {
    const before = await s.store.links.count();
    const unknown = await post(s, ann, { mode: 'import' }, { name: 'people.csv', text: 'name,email\nann,ann@example.com\n' });
    assert.equal(unknown.status, 400);
    has(mainOf(unknown.body), /no format joe-links knows/);
    has(mainOf(unknown.body), /role="alert"/);
    const empty = await post(s, ann, { mode: 'import' }, { name: 'empty.csv', text: '' });
    assert.equal(empty.status, 400);
    has(mainOf(empty.body), /Choose a file to import/);
    const none = await post(s, ann, { mode: 'import' }, null);
    assert.equal(none.status, 400);
    const scripted = await post(s, ann, { from: 'nope' }, { name: 'x.csv', text: 'slug,url\n' }, { accept: 'application/x-ndjson' });
    assert.equal(scripted.status, 400);
    assert.equal(JSON.parse(scripted.body).code, 'BAD_REQUEST');
    const crossSite = await post(
      s,
      ann,
      { mode: 'import' },
      { name: 'x.csv', text: 'slug,url\nx,https://x.example/\n' },
      { origin: 'https://evil.example' },
    );
    assert.equal(crossSite.status, 403);
    assert.equal(await s.store.links.count(), before);
  });

  test('refused uploads and finished imports leave no temporary file behind', async () => {
    // Uploads are spooled under the system's temporary directory, which TMPDIR names: a fresh one shows what is left.
    const saved = process.env.TMPDIR;
    const dir = mkdtempSync(join(tmpdir(), 'joe-links-test-spool-'));
    process.env.TMPDIR = dir;
    try {
      const csv = { name: 'x.csv', text: 'slug,url\nspooled,https://s.example/\n' };
      const twoFiles = new FormData();
      twoFiles.append('mode', 'preview');
      twoFiles.append('file', new Blob([csv.text]), 'a.csv');
      twoFiles.append('file', new Blob([csv.text]), 'b.csv');
      const manyFields = new FormData();
      manyFields.append('file', new Blob([csv.text]), 'a.csv');
      for (let i = 0; i < 12; i++) manyFields.append(`f${i}`, 'x');
      for (const body of [twoFiles, manyFields]) {
        const r = await fetch(`${s.url}/dashboard/links/import`, { method: 'POST', body, headers: { cookie: ann.cookie } });
        assert.ok(r.status >= 400, `refused: ${r.status}`);
        await r.text();
      }
      const broken = await post(s, ann, { mode: 'import' }, { name: 'x.csv', text: 'slug,url\nx,"https://x.example/\n' });
      assert.equal(broken.status, 400);
      has(mainOf(broken.body), /not valid CSV/);
      assert.equal((await post(s, ann, { mode: 'preview' }, csv)).status, 200);
      const streamed = await post(s, ann, { mode: 'preview' }, csv, { accept: 'application/x-ndjson' });
      assert.equal(streamed.status, 200);
      // The streamed answer removes its file once the stream closes, just after the last byte.
      for (let i = 0; i < 50 && readdirSync(dir).length > 0; i++) await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(readdirSync(dir), []);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the server keeps answering while a long file is imported from the page', async () => {
    const rows = Array.from({ length: 4000 }, (_, i) => `${JSON.stringify({ slug: `busy-${i}`, url: 'https://b.example/' })}\n`).join('');
    let done = false;
    let worst = 0;
    // Timed from when each probe was due, not from when it ran: the probe shares the server's event loop.
    const probe = (async () => {
      let due = performance.now();
      while (!done) {
        await (await fetch(`${s.url}/healthz`)).text();
        worst = Math.max(worst, performance.now() - due);
        due = performance.now() + 20;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const preview = await post(s, ann, { from: 'jsonl', mode: 'preview' }, { name: 'busy.jsonl', text: rows });
    done = true;
    await probe;
    assert.equal(preview.status, 200);
    assert.match(textOf(mainOf(preview.body)), /4000 rows read/);
    // An import that never yields keeps /healthz waiting for the whole file: seconds here.
    assert.ok(worst < 1000, `the slowest /healthz took ${worst.toFixed(0)} ms`);
  });
});
