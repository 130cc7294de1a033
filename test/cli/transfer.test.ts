import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { connect, type Db } from '../../src/db/connect.js';
import { migrateUp } from '../../src/db/migrate.js';
import { createStore, type Store } from '../../src/store/index.js';
import { CLI_ARGS } from '../helpers/cli.js';
import { addOwner, createLink as createStoredLink, updateLink } from '../helpers/links.js';

describe('joe-links links export / import', () => {
  let dir: string;
  const dbs: Db[] = [];
  const run = (dsn: string, args: string[], input?: string) =>
    spawnSync(process.execPath, [...CLI_ARGS, 'links', ...args], {
      cwd: dir,
      env: { ...process.env, JOE_DB_DSN: dsn },
      encoding: 'utf8',
      input,
    });
  const open = async (name: string): Promise<{ dsn: string; store: Store }> => {
    const dsn = join(dir, name);
    const db = connect({ driver: 'sqlite3', dsn });
    await migrateUp(db);
    dbs.push(db);
    return { dsn, store: createStore(db) };
  };
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'joe-links-transfer-'));
  });
  after(async () => {
    for (const db of dbs) await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('an export imports into another instance as the same links, and a second import changes nothing', async () => {
    const src = await open('source.db');
    const ann = await src.store.users.create({ email: 'ann@example.test', displayName: 'Ann' });
    const ben = await src.store.users.create({ email: 'ben@example.test', displayName: 'Ben' });
    const gone = await src.store.users.create({ email: 'gone@example.test', displayName: 'Gone' });
    const wiki = await createStoredLink(
      src.store,
      {
        slug: 'wiki',
        url: 'https://wiki.test',
        title: 'Wiki, "the"',
        description: 'line 1\nline 2',
        tags: ['Docs', 'Team A'],
        visibility: 'private',
        aliases: ['w', 'docs'],
        forwardPathAndQuery: true,
      },
      ann.id,
    );
    await addOwner(src.store, wiki.id, ben.id);
    const old = await createStoredLink(src.store, { slug: 'old', url: 'https://old.test', expiresAt: Date.now() + 60_000 }, ben.id);
    await src.store.db.kysely
      .updateTable('links')
      .set({ expires_at: Date.UTC(2021, 5, 1), archived_at: Date.UTC(2022, 0, 1) })
      .where('id', '=', old.id)
      .execute();
    await createStoredLink(src.store, { slug: 'orphaned', url: 'https://o.test' }, gone.id);

    const exported = run(src.dsn, ['export']);
    assert.equal(exported.status, 0, exported.stderr);
    writeFileSync(join(dir, 'links.jsonl'), exported.stdout);

    const dst = await open('target.db');
    await dst.store.users.create({ email: 'ann@example.test', displayName: 'Ann' });
    await dst.store.users.create({ email: 'ben@example.test', displayName: 'Ben' });
    await dst.store.users.create({ email: 'keeper@example.test', displayName: 'Keeper' });

    const refusedWithoutOwner = run(dst.dsn, ['import', 'links.jsonl']);
    assert.equal(refusedWithoutOwner.status, 1, 'a link nobody here can own is refused');
    assert.match(refusedWithoutOwner.stdout, /refused  line 2 \(orphaned\): no owner/);
    assert.match(refusedWithoutOwner.stdout, /created  old/);
    assert.match(refusedWithoutOwner.stdout, /created  wiki/);

    const imported = run(dst.dsn, ['import', 'links.jsonl', '--owner', 'keeper@example.test']);
    assert.equal(imported.status, 0, imported.stdout + imported.stderr);
    assert.match(imported.stdout, /created  orphaned \(owner gone@example.test matches no user; given to the --owner user\)/);
    assert.match(imported.stdout, /skipped  old/);
    assert.match(imported.stderr, /1 created, 0 updated, 2 skipped, 0 refused/);

    const reexported = run(dst.dsn, ['export']);
    assert.match(exported.stdout, /"aliases":\["docs","w"\],"forward_path_and_query":true/, 'aliases and forwarding travel');
    const expected = exported.stdout.replace('"owners":["gone@example.test"]', '"owners":["keeper@example.test"]');
    assert.equal(reexported.stdout, expected, 'the same links, owners, tags, dates and flags');

    const again = run(dst.dsn, ['import', 'links.jsonl', '--owner', 'keeper@example.test']);
    assert.equal(again.status, 0);
    assert.match(again.stderr, /0 created, 0 updated, 3 skipped, 0 refused/);
    assert.equal(run(dst.dsn, ['export']).stdout, reexported.stdout);
  });

  test('a default destination set with links create survives export and import, and is cleared by a line carrying null', async () => {
    const src = await open('default-source.db');
    await src.store.users.create({ email: 'dee@example.test', displayName: 'Dee' });
    const created = run(src.dsn, [
      'create',
      '--slug',
      'drive',
      '--url',
      'https://drive.test/search?q=$q',
      '--default-url',
      'https://drive.test/',
      '--owner',
      'dee@example.test',
    ]);
    assert.equal(created.status, 0, created.stderr);
    assert.match(
      created.stdout,
      /created drive → https:\/\/drive\.test\/search\?q=\$q \(public, [0-9a-f-]+, with no value → https:\/\/drive\.test\/\)/,
    );
    const refused = run(src.dsn, [
      'create',
      '--slug',
      'plain',
      '--url',
      'https://p.test/',
      '--default-url',
      'https://d.test/',
      '--owner',
      'dee@example.test',
    ]);
    assert.equal(refused.status, 1, 'a default beside a url without placeholders is refused');
    assert.match(refused.stderr, /default_url is only for a url with \$placeholders/);
    assert.equal(await src.store.links.getBySlug('plain'), null);

    const exported = run(src.dsn, ['export']);
    assert.equal(exported.status, 0, exported.stderr);
    const line = JSON.parse(exported.stdout.trim()) as Record<string, unknown>;
    assert.equal(line.default_url, 'https://drive.test/');
    writeFileSync(join(dir, 'default.jsonl'), exported.stdout);

    const dst = await open('default-target.db');
    await dst.store.users.create({ email: 'dee@example.test', displayName: 'Dee' });
    const imported = run(dst.dsn, ['import', 'default.jsonl']);
    assert.equal(imported.status, 0, imported.stderr);
    const drive = (await dst.store.links.getBySlug('drive'))!;
    assert.equal(drive.url, 'https://drive.test/search?q=$q');
    assert.equal(drive.defaultUrl, 'https://drive.test/');
    assert.match(run(dst.dsn, ['import', 'default.jsonl']).stdout, /skipped  drive/, 'a second import changes nothing');

    writeFileSync(join(dir, 'cleared.jsonl'), `${JSON.stringify({ ...line, default_url: null })}\n`);
    const cleared = run(dst.dsn, ['import', 'cleared.jsonl']);
    assert.equal(cleared.status, 0, cleared.stderr);
    assert.equal((await dst.store.links.getBySlug('drive'))!.defaultUrl, null);
  });

  test('--dry-run reports changes and refusals but writes nothing; a bad record never stops the others', async () => {
    const db = await open('dry.db');
    await db.store.users.create({ email: 'ann@example.test', displayName: 'Ann' });
    const lines = [
      JSON.stringify({ slug: 'fine', url: 'https://fine.test', owners: ['ann@example.test'] }),
      '{"slug": "broken-json"',
      JSON.stringify({ slug: 'Bad Slug', url: 'https://x.test', owners: ['ann@example.test'] }),
      JSON.stringify({ slug: 'bad-url', url: 'javascript:alert(1)', owners: ['ann@example.test'] }),
      JSON.stringify({ slug: 'bad-tags', url: 'https://x.test', tags: ['<script>'], owners: ['ann@example.test'] }),
      '',
      JSON.stringify({ slug: 'also-fine', url: 'https://also.test', owners: ['ann@example.test'], tags: ['T'] }),
    ];
    writeFileSync(join(dir, 'mixed.jsonl'), `${lines.join('\n')}\n`);
    const dry = run(db.dsn, ['import', 'mixed.jsonl', '--dry-run']);
    assert.equal(dry.status, 1);
    assert.match(dry.stdout, /^created  fine$/m);
    assert.match(dry.stdout, /^refused  line 2 \(broken-json\): not valid JSON$/m);
    assert.match(dry.stdout, /^created  bad-slug \(slug "Bad Slug" became "bad-slug"\)$/m);
    assert.match(dry.stdout, /^refused  line 4 \(bad-url\): url must start with http/m);
    assert.match(dry.stdout, /^refused  line 5 \(bad-tags\): tag names must start/m);
    assert.match(dry.stdout, /^created  also-fine$/m);
    assert.match(dry.stderr, /from jsonl \(dry run, nothing written\): 3 created, 0 updated, 0 skipped, 3 refused/);
    assert.equal(await db.store.links.count(), 0, 'a dry run writes nothing');

    const real = run(db.dsn, ['import', 'mixed.jsonl']);
    assert.equal(real.status, 1);
    assert.equal(await db.store.links.count(), 3);
    assert.deepEqual(
      (await db.store.links.view((await db.store.links.getBySlug('also-fine'))!.id))!.tags.map((t) => t.name),
      ['T'],
    );
  });

  test('CSV rows go to --owner; quoted commas and line breaks survive; changed rows update', async () => {
    const db = await open('csv.db');
    await db.store.users.create({ email: 'csv@example.test', displayName: 'Csv' });
    const csv = [
      'slug,url,title,description,tags',
      'handbook,https://handbook.test,"Handbook, v2","Chapter 1\nChapter ""2""","HR, Policies"',
      'plain,https://plain.test,,,',
    ].join('\r\n');
    writeFileSync(join(dir, 'links.csv'), csv);
    const noOwner = run(db.dsn, ['import', 'links.csv']);
    assert.notEqual(noOwner.status, 0);
    assert.match(noOwner.stderr, /--owner/);

    const first = run(db.dsn, ['import', 'links.csv', '--owner', 'csv@example.test']);
    assert.equal(first.status, 0, first.stdout + first.stderr);
    const handbook = (await db.store.links.view((await db.store.links.getBySlug('handbook'))!.id))!;
    assert.equal(handbook.title, 'Handbook, v2');
    assert.equal(handbook.description, 'Chapter 1\nChapter "2"');
    assert.deepEqual(
      handbook.tags.map((t) => t.name),
      ['HR', 'Policies'],
    );
    assert.equal(handbook.owners[0]!.email, 'csv@example.test');
    await updateLink(db.store, handbook.id, { visibility: 'secure' });

    writeFileSync(join(dir, 'links.csv'), csv.replace('https://plain.test', 'https://plain.test/moved'));
    const second = run(db.dsn, ['import', 'links.csv', '--owner', 'csv@example.test']);
    assert.match(second.stdout, /^skipped  handbook$/m);
    assert.match(second.stdout, /^updated  plain$/m);
    assert.equal((await db.store.links.getBySlug('plain'))!.url, 'https://plain.test/moved');
    assert.equal((await db.store.links.getBySlug('handbook'))!.visibility, 'secure', 'CSV carries no visibility, so it is kept');

    const fromStdin = run(db.dsn, ['import', '-', '--from', 'csv', '--owner', 'csv@example.test'], 'slug,url\nstdin-link,https://s.test\n');
    assert.equal(fromStdin.status, 0, fromStdin.stderr);
    assert.ok(await db.store.links.getBySlug('stdin-link'));
  });
});
