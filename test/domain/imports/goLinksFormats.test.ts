import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { ImportedRecord, ImportFormat } from '../../../src/domain/imports/format.js';
import { golink, golinkDestination } from '../../../src/domain/imports/golink.js';
import { jsonLines, linksCsv } from '../../../src/domain/imports/ours.js';
import { detectFormat, formatNamed, IMPORT_FORMATS, SNIFF_BYTES } from '../../../src/domain/imports/registry.js';
import { slash } from '../../../src/domain/imports/slash.js';
import { trotto, trottoLink } from '../../../src/domain/imports/trotto.js';
import { IMPORT_FIXTURES } from '../../helpers/paths.js';

const FIXTURES = IMPORT_FIXTURES;
const fixture = (name: string): string => readFileSync(new URL(name, FIXTURES), 'utf8');

async function* chunked(text: string, size = 29): AsyncIterable<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

async function parse(format: ImportFormat, text: string): Promise<ImportedRecord[]> {
  const out: ImportedRecord[] = [];
  for await (const r of format.parse(chunked(text))) out.push(r);
  return out;
}

const at = (iso: string): number => Date.parse(iso);
const bySlug = (rows: ImportedRecord[], slug: string): ImportedRecord => rows.find((r) => r.slug === slug)!;

/** Every fixture and the format detection must pick for it. */
const FIXTURE_FORMAT: Record<string, string> = {
  'golink.jsonl': 'golink',
  'golink-own-tests.jsonl': 'golink',
  'trotto.json': 'trotto',
  'trotto-namespaces.json': 'trotto',
  'trotto-programmatic.json': 'trotto',
  // Slash 0.5's `GET /api/v2/shortcuts`: ListShortcutsResponse of api/v2 Shortcut messages, as grpc-gateway's default
  // marshaler writes them (camelCase, every field, enums by name, Timestamps in RFC 3339).
  'slash.json': 'slash',
  'joe-links.jsonl': 'jsonl',
  'joe-links.csv': 'csv',
  'shlink.csv': 'shlink-csv',
  'shlink-legacy.csv': 'shlink-csv',
  'shlink.json': 'shlink-json',
  'shlink-web.csv': 'shlink-csv',
  'yourls.csv': 'yourls-csv',
  'yourls.json': 'yourls-json',
  'yourls-batch.tsv': 'yourls-tsv',
  'yourls-headerless.csv': 'yourls-csv',
  'bitly.csv': 'bitly-csv',
  'dub.csv': 'dub-csv',
  'dub-nested.csv': 'dub-csv',
  'dub-keys.csv': 'dub-csv',
  'kutt.json': 'kutt',
};

describe('detection', () => {
  test('every fixture is detected as the format of the tool that wrote it', () => {
    assert.deepEqual(readdirSync(FIXTURES).sort(), Object.keys(FIXTURE_FORMAT).sort(), 'every fixture is listed here');
    for (const [file, name] of Object.entries(FIXTURE_FORMAT)) {
      const detection = detectFormat(fixture(file).slice(0, SNIFF_BYTES));
      assert.ok('format' in detection, `${file}: ${'error' in detection ? detection.error : ''}`);
      assert.equal(detection.format.name, name, file);
    }
  });

  test('a file two formats claim equally is refused with the candidates named', () => {
    const detection = detectFormat('link,long url,keyword,url\nhttps://bit.ly/a,https://a.example/,a,https://a.example/\n');
    assert.ok('error' in detection);
    assert.deepEqual(detection.candidates.map((f) => f.name).sort(), ['bitly-csv', 'yourls-csv']);
    assert.match(detection.error, /could be (bitly-csv or yourls-csv|yourls-csv or bitly-csv); name the format with from/);
  });

  test('an unknown file, an empty one and binary noise are refused, naming the formats there are', () => {
    const unknown = detectFormat('name,email\nann,ann@example.com\n');
    assert.ok('error' in unknown);
    assert.match(unknown.error, /no format joe-links knows.*golink \(golink/);
    const empty = detectFormat('\uFEFF  \n');
    assert.ok('error' in empty);
    assert.equal(empty.error, 'the file is empty');
    assert.ok('error' in detectFormat('\u0000\u0001PK\u0003\u0004'));
  });

  test('names are unique and every name is found', () => {
    assert.equal(new Set(IMPORT_FORMATS.map((f) => f.name)).size, IMPORT_FORMATS.length);
    for (const f of IMPORT_FORMATS) assert.equal(formatNamed(f.name), f);
    assert.equal(formatNamed('nope'), undefined);
  });
});

describe('golink', () => {
  test('the /.export lines: names, owners, creation times, clicks; templates kept to run as golink runs them', async () => {
    const rows = await parse(golink, fixture('golink.jsonl'));
    assert.equal(rows.length, 10);
    assert.deepEqual(bySlug(rows, 'cs'), {
      line: 2,
      slug: 'cs',
      record: {
        slug: 'cs',
        url: 'https://cs.github.com/',
        owners: ['amelie@example.com'],
        createdAt: at('2022-06-03T22:15:29.993Z'),
        forwardPathAndQuery: true,
      },
    });
    assert.equal(bySlug(rows, 'go').record!.createdAt, at('2022-05-31T20:04:44.741Z'), 'the zone is applied');
    assert.equal(bySlug(rows, 'go').sourceClicks, 1);
    assert.equal(bySlug(rows, 'Meeting-Notes').record!.slug, 'Meeting-Notes', 'the name as written; our slug rules apply later');
    const slack = bySlug(rows, 'slack');
    assert.equal(slack.record!.url, 'https://company.slack.com/channels/{{PathEscape .Path}}');
    assert.equal(slack.record!.forwardPathAndQuery, true, 'golink appends the visitor’s query to a template’s destination too');
    assert.equal(slack.sourceClicks, 4);
    const who = bySlug(rows, 'who');
    assert.equal(who.record!.url, 'http://directory.example.com/');
    assert.equal(who.record!.forwardPathAndQuery, true, 'a trailing {{.Path}} is path forwarding');
    assert.equal(bySlug(rows, 'me').record!.url, 'https://who.example.com/{{.User}}');
    assert.equal(bySlug(rows, 'today').record!.url, 'http://wiki.example.com/{{.Now.Format "01-02-2006"}}');
    assert.equal(bySlug(rows, 'search').record!.url, 'https://www.google.com/{{if .Path}}search?q={{QueryEscape .Path}}{{end}}');
    const tagged = bySlug(rows, 'tagged');
    assert.equal(tagged.record!.owners, undefined, 'tagged devices are nobody here');
    assert.equal(tagged.record!.createdAt, undefined, 'Go’s zero time is no date');
    assert.deepEqual(tagged.notes, ['was owned by tagged devices in golink']);
    assert.deepEqual(bySlug(rows, 'go.dev').record!.owners, ['amelie@github'], 'matched (or not) to a user later');
  });

  test('damaged lines are reported and the others still read', async () => {
    const rows = await parse(
      golink,
      '{"Short":"a","Long":"https://a.example/"}\n{"Short":"b",\n[1]\n{"Short":"","Long":"x"}\n{"Short":"c"}\n',
    );
    assert.deepEqual(
      rows.map((r) => [r.line, r.slug, r.error]),
      [
        [1, 'a', undefined],
        [2, undefined, 'not valid JSON'],
        [3, undefined, 'expected a golink link object'],
        [4, undefined, 'no Short name in this line'],
        [5, 'c', 'no Long destination in this line'],
      ],
    );
  });

  test('what each template becomes', () => {
    const cases: [string, unknown][] = [
      ['https://example.com/a', { url: 'https://example.com/a', forwardPathAndQuery: true, notes: [] }],
      ['https://example.com/{{.Path}}', { url: 'https://example.com/', forwardPathAndQuery: true, notes: [] }],
      ['https://example.com/{{ .Path }}', { url: 'https://example.com/', forwardPathAndQuery: true, notes: [] }],
      ['https://example.com/q?s={{QueryEscape .Path}}&x=1', 'https://example.com/q?s={{QueryEscape .Path}}&x=1'],
      ['https://example.com/{{.Path}}/edit', 'https://example.com/{{.Path}}/edit'],
      ['https://example.com/{{.Path}}?q={{.Path}}', 'https://example.com/{{.Path}}?q={{.Path}}'],
      ['https://example.com/{{ToLower .Path}}', 'https://example.com/{{ToLower .Path}}'],
      ['https://example.com/?p=$price', { url: 'https://example.com/?p=%24price', forwardPathAndQuery: true }],
      ['/meet', { url: '/meet', forwardPathAndQuery: true, notes: [] }],
      ['rel', { url: '/rel', forwardPathAndQuery: true, notes: [] }],
    ];
    for (const [long, want] of cases) {
      const got = golinkDestination(long);
      if (typeof want === 'string') assert.deepEqual(got, { url: want, forwardPathAndQuery: true, notes: [] }, long);
      else if ('notes' in (want as object)) assert.deepEqual(got, want, long);
      else assert.deepEqual('url' in got && [got.url, got.forwardPathAndQuery], ['https://example.com/?p=%24price', true]);
    }
    for (const [long, reason] of [
      ['https://example.com/{{.Query}}', /can't evaluate field Query/],
      ['https://{{with .Path}}{{.}}{{else}}host{{end}}/', /scheme and host/],
      ['https://example.com/{{.Path', /unclosed/],
      ['https://example.com/{{range .Path}}{{end}}', /range/],
    ] as const) {
      const got = golinkDestination(long);
      assert.ok('error' in got, long);
      assert.match(got.error, reason, long);
    }
  });
});

describe('Trotto', () => {
  test('the links API list: owners, created times, visits; programmatic links become templates', async () => {
    const rows = await parse(trotto, fixture('trotto.json'));
    assert.equal(rows.length, 5);
    assert.deepEqual(rows[0], {
      line: 1,
      slug: 'benefits',
      record: {
        slug: 'benefits',
        url: 'https://hr.acme.example/benefits',
        visibility: 'internal',
        owners: ['kay@acme.example'],
        createdAt: at('2019-03-12T17:02:34.541Z'),
      },
      sourceClicks: 318,
    });
    assert.equal(rows[1]!.slug, 'gh');
    assert.equal(rows[1]!.record!.url, 'https://github.com/acme/$arg');
    // Trotto's handlers.py PUBLIC_KEYS carry `unlisted`; listed or not, a Trotto link needed sign-in.
    assert.equal(rows[1]!.record!.visibility, 'internal', 'an unlisted Trotto link needs sign-in and is listed to no one else');
    assert.equal(rows[2]!.slug, 'jira');
    assert.equal(rows[2]!.record!.url, 'https://acme.atlassian.net/browse/$arg1-$arg2');
    // A link of another namespace is named as Trotto reached it, go/eng/oncall.
    assert.deepEqual([rows[3]!.slug, rows[3]!.notes], ['eng/oncall', ['was oncall in Trotto’s eng/ namespace']]);
    assert.match(rows[4]!.error!, /1 %s placeholder\(s\) but the destination has 0/);
  });

  test('a plain link and a programmatic link of one keyword become one link, the plain destination its default', async () => {
    const rows = await parse(trotto, fixture('trotto-programmatic.json'));
    // drive (item 1) is absorbed into drive/%s; looker (item 4) into looker/%s; looker/%s/%s is refused.
    assert.deepEqual(
      rows.map((r) => [r.line, r.slug, r.error === undefined ? 'record' : 'error']),
      [
        [2, 'drive', 'record'],
        [3, 'looker/%s/%s', 'error'],
        [5, 'looker', 'record'],
        [6, 'wiki', 'record'],
      ],
    );
    assert.deepEqual(rows[0], {
      line: 2,
      slug: 'drive',
      record: {
        slug: 'drive',
        url: 'https://drive.google.com/drive/search?q=$arg',
        defaultUrl: 'https://drive.google.com',
        visibility: 'internal',
        owners: ['jay@acme.example', 'kay@acme.example'],
        createdAt: at('2020-06-01T09:00:00Z'),
      },
      sourceClicks: 65,
      notes: [
        'Trotto’s drive/%s became a link whose destination has the variable $arg',
        'merged with Trotto’s drive (item 1): its destination is where the link goes when no value is given',
      ],
    });
    // Trotto counted more visits of looker/%s than of looker/%s/%s: that one joins the plain looker.
    assert.equal(rows[2]!.record!.url, 'https://acme.looker.com/dashboards/$arg');
    assert.equal(rows[2]!.record!.defaultUrl, 'https://acme.looker.com/');
    assert.equal(rows[2]!.sourceClicks, 147);
    assert.match(rows[1]!.error!, /looker\/%s\/%s was not imported: looker and looker\/%s became one link here, which takes one value/);
    // A programmatic link with no plain partner is imported as before, without a default.
    assert.equal(rows[3]!.record!.url, 'https://wiki.acme.example/$arg');
    assert.equal(rows[3]!.record!.defaultUrl, undefined);
  });

  test('keywords with words after a slash keep them for our slug rules', () => {
    assert.deepEqual(trottoLink('eng/onboarding', 'https://x.example/'), { slug: 'eng/onboarding', url: 'https://x.example/', notes: [] });
    assert.ok('error' in trottoLink('a/%s/b', 'https://x.example/%s'));
  });
});

describe('Slash', () => {
  test('the shortcuts list: tags, titles, visibility, archived rows, views; a literal $ stays literal', async () => {
    const rows = await parse(slash, fixture('slash.json'));
    assert.deepEqual(rows[0], {
      line: 1,
      slug: 'docs',
      record: {
        slug: 'docs',
        url: 'https://docs.acme.example/',
        title: 'Engineering docs',
        description: 'Where the handbook lives',
        tags: ['eng', 'docs'],
        visibility: 'internal',
        createdAt: at('2024-01-15T10:00:00Z'),
      },
      sourceClicks: 42,
    });
    assert.equal(rows[1]!.record!.visibility, 'secure');
    assert.equal(rows[1]!.record!.url, 'https://payroll.acme.example/?period=%24month');
    assert.equal(rows[1]!.notes!.length, 2);
    assert.equal(rows[2]!.record!.archivedAt, at('2024-03-01T00:00:00Z'));
    assert.equal(rows[2]!.record!.visibility, 'public', 'PUBLIC stays public; WORKSPACE (anyone signed in) became internal');
  });

  test('snake_case names, second timestamps and the creator’s email', async () => {
    const rows = await parse(
      slash,
      JSON.stringify([
        { name: 'x', link: 'https://x.example/', created_ts: 1700000000, view_count: '9', creator: { email: 'ann@example.com' } },
      ]),
    );
    assert.equal(rows[0]!.record!.createdAt, 1700000000000);
    assert.equal(rows[0]!.sourceClicks, 9);
    assert.deepEqual(rows[0]!.record!.owners, ['ann@example.com']);
  });
});

describe('our own formats through the same interface', () => {
  test('JSON Lines carry aliases and path forwarding', async () => {
    const rows = await parse(jsonLines, fixture('joe-links.jsonl'));
    assert.deepEqual(rows[1]!.record!.aliases, ['repos']);
    assert.equal(rows[1]!.record!.forwardPathAndQuery, false);
    assert.equal(rows[1]!.record!.url, 'https://git.acme.example/$name', 'our own templates are meant');
    assert.match(
      (await parse(jsonLines, '{"slug":"a","url":"https://a.example/","forward_path_and_query":"yes"}\n'))[0]!.error!,
      /true or false/,
    );
  });

  test('CSV is read as it streams, with a bad header refused once', async () => {
    const rows = await parse(linksCsv, 'slug,url,title\r\na,https://a.example/,"A, with\nbreak"\r\nb,https://b.example/,B\r\n');
    assert.deepEqual(
      rows.map((r) => [r.line, r.slug, r.record?.title]),
      [
        [2, 'a', 'A, with\nbreak'],
        [4, 'b', 'B'],
      ],
    );
    assert.deepEqual(await parse(linksCsv, 'slug,url,owner\n'), [
      { line: 1, error: 'not valid CSV: line 1: unknown column "owner" (the header is slug,url,title,description,tags)' },
    ]);
  });
});
