import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '../src/db/connect.js';
import { migrateUp } from '../src/db/migrate.js';
import { asUser, LinkService } from '../src/links/index.js';
import { createStore } from '../src/store/index.js';

/**
 * Importing 10,000 links from a golink export into a fresh SQLite file
 * through the links layer (docs/api.md#importing-from-other-tools): the
 * target is under 30 s. Also reports the second run (every row unchanged)
 * and the resident-memory growth, which stays flat because the file is read
 * line by line.
 */

export const IMPORT_LINKS = 10_000;

/** A golink `/.export` of `n` links, a tenth of them templates, every owner the importer. */
export function golinkExport(n: number, owner: string): string {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const long = i % 10 === 0 ? `https://docs.example.com/space-${i}/{{PathEscape .Path}}` : `https://intranet.example.com/pages/${i}`;
    lines.push(
      JSON.stringify({
        Short: `Page_${i}`,
        Long: long,
        Created: '2023-01-10T09:00:00Z',
        LastEdit: '2023-01-10T09:00:00Z',
        Owner: owner,
        Clicks: i % 7,
      }),
    );
  }
  return `${lines.join('\n')}\n`;
}

async function* bytes(text: string): AsyncIterable<Uint8Array> {
  const all = Buffer.from(text);
  for (let i = 0; i < all.length; i += 64 * 1024) yield all.subarray(i, i + 64 * 1024);
}

export interface ImportBenchResult {
  links: number;
  firstMs: number;
  againMs: number;
  rssGrowthMb: number;
}

export async function benchImports(): Promise<ImportBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'joe-links-bench-import-'));
  const db = connect({ driver: 'sqlite3', dsn: join(dir, 'bench.db') });
  try {
    await migrateUp(db);
    const store = createStore(db);
    const service = new LinkService(store);
    const ann = await store.users.create({ email: 'ann@example.com', displayName: 'Ann' });
    const file = golinkExport(IMPORT_LINKS, ann.email);
    const run = async () => {
      const started = performance.now();
      const importing = await service.importFile(asUser(ann), bytes(file), {
        dryRun: false,
        fallbackOwner: { id: ann.id, label: ann.email },
        keepFileOwners: false,
      });
      for await (const row of importing.rows) if (row.action === 'refused') throw new Error(`refused: ${row.reason}`);
      return performance.now() - started;
    };
    const rssBefore = process.memoryUsage().rss;
    const firstMs = await run();
    const rssGrowthMb = (process.memoryUsage().rss - rssBefore) / 1024 / 1024;
    const againMs = await run();
    return { links: await store.links.count(), firstMs, againMs, rssGrowthMb };
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
