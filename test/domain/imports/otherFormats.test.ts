import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { ImportedRecord, ImportFormat } from '../../../src/domain/imports/format.js';
import { OTHER_FORMATS } from '../../../src/domain/imports/others.js';
import { bitlyCsv } from '../../../src/domain/imports/bitly.js';
import { dubCsv } from '../../../src/domain/imports/dub.js';
import { kuttJson } from '../../../src/domain/imports/kutt.js';
import { shlinkCsv, shlinkJson } from '../../../src/domain/imports/shlink.js';
import { looseTime } from '../../../src/domain/imports/table.js';
import { yourlsCsv, yourlsJson, yourlsTsv } from '../../../src/domain/imports/yourls.js';
import { IMPORT_FIXTURES } from '../../helpers/paths.js';

const FIXTURES = IMPORT_FIXTURES;
const fixture = (name: string): string => readFileSync(new URL(name, FIXTURES), 'utf8');

/** The text in chunks of `size` characters, so a format meets rows split across chunk boundaries. */
async function* chunked(text: string, size = 37): AsyncIterable<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

async function parse(format: ImportFormat, text: string): Promise<ImportedRecord[]> {
  const out: ImportedRecord[] = [];
  for await (const r of format.parse(chunked(text))) out.push(r);
  return out;
}

const at = (iso: string): number => Date.parse(iso);

/** Each fixture and the one format that must claim it (written from the tool's own exporter). */
const OWNER: Record<string, ImportFormat> = {
  // The web client's export (shlink-web-component's ExportShortUrlsBtn: createdAt, domain and shortCode from the short
  // URL, title, tags joined by |, visitsSummary.total) as a spreadsheet saves it again: a byte-order mark, CRLF, and
  // quotes only where a cell needs them.
  'shlink.csv': shlinkCsv,
  // The same export as ReportExporter.exportShortUrls writes it through @json2csv/plainjs' Parser with its defaults:
  // every header and text cell quoted, numbers bare, LF, no byte-order mark.
  'shlink-web.csv': shlinkCsv,
  // The web client's export before short URLs had domains: the code is the short URL's path, tags joined by commas.
  'shlink-legacy.csv': shlinkCsv,
  // `GET /rest/v3/short-urls`: ListShortUrlsAction's {"shortUrls": paginator of ShortUrlDataTransformer::transform},
  // whose fields are ShortUrl::toArray's (dates by toAtomString, meta.validSince/validUntil/maxVisits,
  // visitsSummary {total, nonBots, bots}); the first item as Shlink 3 wrote it (deviceLongUrls), the second as Shlink 4
  // (hasRedirectRules).
  'shlink.json': shlinkJson,
  'yourls.csv': yourlsCsv,
  'yourls.json': yourlsJson,
  'yourls-batch.tsv': yourlsTsv,
  'yourls-headerless.csv': yourlsCsv,
  // Bitly's Links → Export. Bitly's exporter is not public, so its columns come from exports seen, not from its code.
  'bitly.csv': bitlyCsv,
  // Dub's GET /api/links/export: formatLinksForExport labels the columns from exportLinksColumns (Archived as Yes / No,
  // dates by toISOString, tags joined by ", ") and convertToCSV writes them with json-2-csv (quotes only where needed).
  'dub.csv': dubCsv,
  'dub-nested.csv': dubCsv,
  // The same route before October 2025, which headed the columns with the Prisma fields' own names.
  'dub-keys.csv': dubCsv,
  'kutt.json': kuttJson,
};

describe('detection among the shorteners’ formats', () => {
  for (const [file, owner] of Object.entries(OWNER)) {
    test(`${file} is claimed for certain by ${owner.name} and by no other`, () => {
      const head = fixture(file)
        .replace(/^\uFEFF/, '')
        .slice(0, 65536);
      assert.equal(owner.sniff(head), 2);
      for (const other of OTHER_FORMATS.filter((f) => f !== owner)) assert.equal(other.sniff(head), 0, `${other.name} also claims ${file}`);
    });
  }

  test('every fixture in the folder written for these formats is checked above', () => {
    const others = readdirSync(FIXTURES).filter((f) => /^(shlink|yourls|bitly|dub|kutt)/.test(f));
    assert.deepEqual(others.sort(), Object.keys(OWNER).sort());
  });

  test('our own bulk formats are not claimed by any shortener format', () => {
    const ours = [
      'slug,url,title,description,tags\npto,https://hr.example.com/pto,Time off,,hr\n',
      '{"slug":"pto","url":"https://hr.example.com/pto","title":"","description":"","tags":[]}\n',
    ];
    for (const head of ours) for (const f of OTHER_FORMATS) assert.equal(f.sniff(head), 0, f.name);
  });

  test('names are unique', () => {
    assert.equal(new Set(OTHER_FORMATS.map((f) => f.name)).size, OTHER_FORMATS.length);
  });
});

describe('Shlink', () => {
  test('the web client CSV: fields, |-joined tags, quoted commas, clicks, BOM and CRLF', async () => {
    const rows = await parse(shlinkCsv, fixture('shlink.csv'));
    assert.equal(rows.length, 4);
    assert.deepEqual(rows[0], {
      line: 2,
      slug: 'slack',
      record: {
        slug: 'slack',
        url: 'https://acme.slack.com/',
        title: 'Acme Slack',
        tags: ['chat', 'tools'],
        createdAt: at('2024-03-04T08:15:27Z'),
        forwardPathAndQuery: true,
      },
      sourceClicks: 1532,
    });
    assert.equal(rows[1]!.record!.url, 'https://docs.example.com/d/abc?tab=1,2');
    assert.equal(rows[1]!.record!.title, 'Q3 plan, final');
    assert.equal(rows[1]!.slug, 'Q3-Plan', 'the slug is kept as written; the links layer applies our rules');
    assert.deepEqual(rows[1]!.record!.tags, ['planning', 'okr']);
    assert.deepEqual(rows[2]!.notes, ["was a short link on go.acme.io (the file's first links were on s.acme.io)"]);
    assert.deepEqual(rows[3], { line: 5, slug: 'empty', error: 'no destination URL in this row' });
  });

  test('the web client CSV as json2csv writes it: every cell quoted, bare numbers, doubled quotes', async () => {
    const rows = await parse(shlinkCsv, fixture('shlink-web.csv'));
    assert.equal(rows.length, 3);
    assert.deepEqual(rows[0]!.record, {
      slug: 'slack',
      url: 'https://acme.slack.com/',
      title: 'Acme Slack',
      tags: ['chat', 'tools'],
      createdAt: at('2024-03-04T08:15:27Z'),
      forwardPathAndQuery: true,
    });
    assert.equal(rows[0]!.sourceClicks, 1532);
    assert.equal(rows[1]!.record!.title, 'Q3 plan, "final"');
    assert.equal(rows[1]!.record!.url, 'https://docs.example.com/d/abc?tab=1,2');
    // Shlink's export writes a missing title and no tags as empty cells: there were none at the source.
    assert.equal(rows[2]!.record!.title, '');
    assert.deepEqual(rows[2]!.record!.tags, []);
    assert.equal(rows[2]!.sourceClicks, 0);
  });

  test('the older CSV without domains: code from the short URL, comma-joined tags', async () => {
    const rows = await parse(shlinkCsv, fixture('shlink-legacy.csv'));
    assert.deepEqual(rows[0]!.record!.tags, ['docs', 'wiki']);
    assert.equal(rows[0]!.slug, 'wiki');
    assert.equal(rows[1]!.slug, 'hr');
    assert.equal(rows[1]!.sourceClicks, 7);
  });

  test('the REST list: tags, validUntil as expiry, dropped limits noted, bad items reported', async () => {
    const rows = await parse(shlinkJson, fixture('shlink.json'));
    assert.equal(rows.length, 3);
    const steam = rows[0]!;
    assert.equal(steam.slug, '12C18');
    assert.deepEqual(steam.record!.tags, ['games', 'tech']);
    assert.equal(steam.record!.title, 'Welcome to Steam');
    assert.equal(steam.record!.createdAt, at('2016-08-21T18:34:16Z'));
    assert.equal(steam.record!.expiresAt, at('2031-08-21T18:34:16Z'));
    assert.equal(steam.sourceClicks, 328);
    // 328 visits past a limit of 100: Shlink no longer redirects it, so it arrives archived (at its creation, the one date known to be past).
    assert.deepEqual(steam.notes, ["reached Shlink's limit of 100 visits; imported archived"]);
    assert.equal(steam.record!.archivedAt, at('2016-08-21T18:34:16Z'));
    assert.equal(steam.record!.forwardPathAndQuery, true);
    assert.equal(rows[1]!.record!.title, '');
    assert.equal(rows[1]!.record!.expiresAt, undefined, 'no validUntil leaves the expiry alone');
    assert.deepEqual(rows[2], { line: 3, error: 'expected a short URL object' });
  });

  test('a JSON file of another shape is one clear error', async () => {
    assert.match((await parse(shlinkJson, '{"data":[]}'))[0]!.error!, /shortUrls/);
    assert.deepEqual(await parse(shlinkJson, '{"shortUrls":'), [{ line: 1, error: 'not valid JSON' }]);
  });
});

describe('YOURLS', () => {
  test('the yourls_url table as CSV', async () => {
    const rows = await parse(yourlsCsv, fixture('yourls.csv'));
    assert.deepEqual(rows[0], {
      line: 2,
      slug: 'ozh',
      record: {
        slug: 'ozh',
        url: 'http://ozh.org/',
        title: "Ozh's blog, and more",
        createdAt: at('2009-06-23T18:08:07Z'),
      },
      sourceClicks: 12,
    });
    assert.equal(rows[2]!.error, 'no destination URL in this row');
  });

  test('the API stats JSON: keyword from the short URL, clicks as text', async () => {
    const rows = await parse(yourlsJson, fixture('yourls.json'));
    assert.deepEqual(
      rows.map((r) => [r.slug, r.record?.url, r.sourceClicks]),
      [
        ['ozh', 'http://ozh.org/', 12],
        ['yourls', 'https://yourls.org/', 3],
      ],
    );
  });
});

describe('Bitly', () => {
  test('the custom back-half names the link; without one the generated code does, with a note', async () => {
    const rows = await parse(bitlyCsv, fixture('bitly.csv'));
    assert.equal(rows[0]!.slug, 'spring-sale');
    assert.equal(rows[0]!.record!.url, 'https://shop.example.com/sale?utm_source=bitly');
    assert.deepEqual(rows[0]!.record!.tags, ['marketing', 'campaign']);
    assert.equal(rows[0]!.record!.createdAt, at('2023-03-01T14:22:09Z'));
    assert.equal(rows[0]!.sourceClicks, 410);
    assert.equal(rows[1]!.slug, '2KqLmNo');
    assert.deepEqual(rows[1]!.notes, [
      "was a short link on bit.ly (the file's first links were on acme.co)",
      "Bitly's generated code 2KqLmNo became the slug",
    ]);
    assert.equal(rows[2]!.error, 'no destination URL in this row');
  });

  test('the older API-style columns (long_url, link, created_at)', async () => {
    const rows = await parse(
      bitlyCsv,
      'link,long_url,title,created_at\nhttps://bit.ly/abc,https://example.com/,Example,2020-01-02T03:04:05+0000\n',
    );
    assert.equal(bitlyCsv.sniff('link,long_url,title,created_at\n'), 2);
    assert.equal(rows[0]!.slug, 'abc');
    assert.equal(rows[0]!.record!.createdAt, at('2020-01-02T03:04:05Z'));
  });
});

describe('Dub', () => {
  test('the export of releases before October 2025, headed by field names, reads alike', async () => {
    const rows = await parse(dubCsv, fixture('dub-keys.csv'));
    assert.equal(rows[0]!.slug, 'launch');
    assert.equal(rows[0]!.record!.url, 'https://example.com/launch-post');
    assert.equal(rows[0]!.record!.createdAt, at('2024-05-10T12:00:00Z'));
    assert.deepEqual(rows[0]!.record!.tags, ['Product', 'Launch']);
    assert.equal(rows[0]!.record!.archivedAt, undefined);
    assert.equal(rows[1]!.record!.archivedAt, at('2024-02-01T10:00:00Z'));
  });

  test('key from the short link, ", "-joined tags, archived links archived at their last update', async () => {
    const rows = await parse(dubCsv, fixture('dub.csv'));
    assert.equal(rows[0]!.slug, 'launch');
    assert.deepEqual(rows[0]!.record!.tags, ['Product', 'Launch']);
    assert.equal(rows[0]!.record!.archivedAt, undefined);
    assert.equal(rows[0]!.sourceClicks, 1204);
    assert.equal(rows[1]!.record!.archivedAt, at('2024-02-01T10:00:00Z'));
    assert.deepEqual(rows[2]!.notes, ["was a short link on acme.link (the file's first links were on dub.sh)"]);
  });

  test('a key with `/` is the whole path of the short link, as Dub wrote it', async () => {
    const rows = await parse(dubCsv, fixture('dub-nested.csv'));
    assert.deepEqual(
      rows.map((r) => r.slug),
      ['blog/launch', 'blog', 'Docs/API_v2', 'admin/panel'],
    );
  });
});

describe('Kutt', () => {
  test('address and target; a password-protected link becomes secure, with a note', async () => {
    const rows = await parse(kuttJson, fixture('kutt.json'));
    assert.deepEqual(rows[0], {
      line: 1,
      slug: 'standup',
      record: {
        slug: 'standup',
        url: 'https://meet.example.com/standup',
        description: 'Daily stand-up call',
        createdAt: at('2024-02-01T09:30:00Z'),
      },
      sourceClicks: 240,
    });
    assert.equal(rows[1]!.record!.visibility, 'secure');
    assert.equal(rows[1]!.record!.expiresAt, at('2030-01-01T00:00:00Z'));
    assert.match(rows[1]!.notes![0]!, /password-protected/);
    assert.deepEqual(rows[2], { line: 3, error: 'no short code in this row' });
  });

  test('several saved pages, one per line, are read in order', async () => {
    const page = (address: string) =>
      JSON.stringify({ limit: 1, skip: 0, total: 2, data: [{ address, target: `https://example.com/${address}` }] });
    const rows = await parse(kuttJson, `${page('a')}\n${page('b')}\n`);
    assert.deepEqual(
      rows.map((r) => [r.line, r.slug]),
      [
        [1, 'a'],
        [2, 'b'],
      ],
    );
  });
});

describe('rows that cannot be read', () => {
  test('a CSV syntax error is reported with its line after the rows before it', async () => {
    const rows = await parse(
      yourlsCsv,
      'keyword,url,timestamp\nok,https://example.com/,2020-01-01 00:00:00\nbad,https://exa"mple.com/,x\n',
    );
    assert.equal(rows[0]!.slug, 'ok');
    assert.equal(rows[1]!.line, 3);
    assert.match(rows[1]!.error!, /^not valid CSV: line 3/);
  });

  test('unreadable dates and counts are left out rather than guessed', async () => {
    const rows = await parse(yourlsCsv, 'keyword,url,timestamp,clicks\nx,https://example.com/,yesterday,-3\n');
    assert.equal(rows[0]!.record!.createdAt, undefined);
    assert.equal(rows[0]!.sourceClicks, undefined);
  });

  test('loose dates: a space or T, seconds optional, no zone is UTC', () => {
    assert.equal(looseTime('2009-06-23 18:08:07'), at('2009-06-23T18:08:07Z'));
    assert.equal(looseTime('2009-06-23T18:08'), at('2009-06-23T18:08:00Z'));
    assert.equal(looseTime('2009-06-23'), at('2009-06-23T00:00:00Z'));
    assert.equal(looseTime('2009-06-23T18:08:07.250-0130'), at('2009-06-23T19:38:07.250Z'));
    assert.equal(looseTime('2009-13-23 18:08:07'), undefined);
    assert.equal(looseTime(''), undefined);
  });
});
