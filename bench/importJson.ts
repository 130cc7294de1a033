import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { once } from 'node:events';
import { asUser, LinkService } from '../src/links/index.js';

/**
 * A whole-document JSON import near the upload limit: a Shlink REST list of
 * about 100 MiB posted to `POST /api/v1/links/import?dry_run=true` of a real
 * server on SQLite, while `/healthz` is asked every 25 ms. Reports the
 * process's peak resident memory during the import (Linux's VmHWM, reset
 * just before it), the longest event-loop block (perf_hooks' delay
 * histogram) and the slowest `/healthz` answer. The file is streamed from
 * disk, so the client side holds none of it.
 */

export interface JsonImportResult {
  fileMiB: number;
  rows: number;
  importMs: number;
  rssBeforeMiB: number;
  peakRssMiB: number;
  longestBlockMs: number;
  worstHealthzMs: number;
}

/**
 * One short URL as Shlink's ShortUrlDataTransformer writes it; `padding`
 * lengthens its device URLs (560 brings a row near 2 KiB, 0 leaves about 570 bytes).
 */
function shortUrl(i: number, padding: number): string {
  const pad = (device: string) => `https://m.example.com/${device}/${i}/${'x'.repeat(padding)}`;
  return JSON.stringify({
    shortCode: `code${i}`,
    shortUrl: `https://s.test/code${i}`,
    longUrl: `https://intranet.example.com/pages/${i}?ref=shlink`,
    deviceLongUrls: { android: pad('android'), ios: pad('ios'), desktop: pad('desktop') },
    dateCreated: '2023-01-10T09:00:00+00:00',
    visitsSummary: { total: i % 50, nonBots: i % 50, bots: 0 },
    tags: ['bench', `group-${i % 20}`],
    meta: { validSince: null, validUntil: null, maxVisits: null },
    domain: null,
    title: `Page ${i}`,
    crawlable: false,
    forwardQuery: true,
  });
}

/** Writes the file piece by piece, so the generator does not hold it either. */
async function writeShlinkList(path: string, targetBytes: number, padding: number): Promise<number> {
  const out = createWriteStream(path);
  out.write('{"shortUrls":{"data":[');
  let bytes = 0;
  let rows = 0;
  while (bytes < targetBytes) {
    const item = `${rows === 0 ? '' : ','}\n${shortUrl(rows, padding)}`;
    bytes += item.length;
    rows++;
    if (!out.write(item)) await once(out, 'drain');
  }
  out.end(`],"pagination":{"currentPage":1,"pagesCount":1,"itemsPerPage":-1,"itemsInCurrentPage":${rows},"totalItems":${rows}}}}\n`);
  await once(out, 'finish');
  return rows;
}

const status = (field: string): number => {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
};

export async function benchJsonImport(targetBytes = 100 * 1024 * 1024 - 64 * 1024, padding = 560): Promise<JsonImportResult> {
  const { startTestServer } = await import('../test/helpers/server.js');
  const dir = mkdtempSync(join(tmpdir(), 'joe-links-bench-json-'));
  const s = await startTestServer();
  try {
    const ann = await s.store.users.create({ email: 'ann@example.com', displayName: 'Ann' });
    const { plaintext } = await s.store.tokens.create(ann.id, 'bench');
    await new LinkService(s.store).create(asUser(ann), { slug: 'probe', url: 'https://probe.example/' });
    const file = join(dir, 'shlink.json');
    const rows = await writeShlinkList(file, targetBytes, padding);
    global.gc?.();
    const rssBeforeMiB = process.memoryUsage().rss / 1024 / 1024;
    // Resets VmHWM to the current RSS (proc(5), clear_refs "5").
    writeFileSync('/proc/self/clear_refs', '5');
    let done = false;
    let worstHealthzMs = 0;
    const probe = (async () => {
      let due = performance.now();
      while (!done) {
        const r = await fetch(`${s.url}/healthz`);
        await r.arrayBuffer();
        worstHealthzMs = Math.max(worstHealthzMs, performance.now() - due);
        due = performance.now() + 25;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    })();
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const started = performance.now();
    const r = await fetch(`${s.url}/api/v1/links/import?from=shlink&dry_run=true`, {
      method: 'POST',
      headers: { authorization: `Bearer ${plaintext}`, 'content-type': 'application/json' },
      body: Readable.toWeb(createReadStream(file)) as ReadableStream,
      duplex: 'half',
    } as RequestInit);
    // The report is as long as the file has rows: only its end, the summary, is kept.
    let tail = '';
    const decoder = new TextDecoder();
    for await (const piece of r.body as unknown as AsyncIterable<Uint8Array>)
      tail = (tail + decoder.decode(piece, { stream: true })).slice(-4096);
    const importMs = performance.now() - started;
    delay.disable();
    done = true;
    await probe;
    const summary = /"summary":(\{[^}]*\})/.exec(tail)?.[1];
    const created = summary ? (JSON.parse(summary) as { created: number }).created : -1;
    if (r.status !== 200 || created !== rows) throw new Error(`the import answered ${r.status}: ${summary ?? tail.slice(-300)}`);
    return {
      fileMiB: statSync(file).size / 1024 / 1024,
      rows,
      importMs,
      rssBeforeMiB,
      peakRssMiB: status('VmHWM'),
      longestBlockMs: delay.max / 1e6,
      worstHealthzMs,
    };
  } finally {
    await s.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
