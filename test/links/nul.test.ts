import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { AppError } from '../../src/domain/errors.js';
import { IMPORT_FORMATS } from '../../src/domain/imports/registry.js';
import { asSystem, createLinkService } from '../../src/links/index.js';
import { CLI_ARGS } from '../helpers/cli.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { IMPORT_FIXTURES } from '../helpers/paths.js';

/**
 * The one NUL-character rule (domain/nul.ts) holds for every way into the
 * links layer, not only behind the web and REST edges: the calls the CLI
 * makes and `joe-links links import` in every format refuse a NUL in a link
 * field with the message every surface uses, and write nothing.
 */

const NUL = '\u0000';
const FIXTURES = IMPORT_FIXTURES;

/**
 * For each format, a fixture and the destination of one of its rows as the
 * file writes it (`raw`) and as it would be stored (`url`): the NUL goes into
 * that destination, so the row it belongs to must be refused.
 */
const NUL_ROWS: Record<string, { fixture: string; raw: string; url: string }> = {
  jsonl: { fixture: 'joe-links.jsonl', raw: 'https://handbook.acme.example/', url: 'https://handbook.acme.example/' },
  csv: { fixture: 'joe-links.csv', raw: 'https://handbook.acme.example/', url: 'https://handbook.acme.example/' },
  golink: { fixture: 'golink.jsonl', raw: 'https://docs.example.com/notes/', url: 'https://docs.example.com/notes/' },
  trotto: { fixture: 'trotto.json', raw: 'https://hr.acme.example/benefits', url: 'https://hr.acme.example/benefits' },
  slash: { fixture: 'slash.json', raw: 'https://docs.acme.example/', url: 'https://docs.acme.example/' },
  'bitly-csv': { fixture: 'bitly.csv', raw: 'https://jobs.example.com/', url: 'https://jobs.example.com/' },
  'dub-csv': { fixture: 'dub.csv', raw: 'https://example.com/launch-post', url: 'https://example.com/launch-post' },
  kutt: { fixture: 'kutt.json', raw: 'https://meet.example.com/standup', url: 'https://meet.example.com/standup' },
  'shlink-csv': { fixture: 'shlink.csv', raw: 'https://acme.slack.com/', url: 'https://acme.slack.com/' },
  'shlink-json': { fixture: 'shlink.json', raw: 'https://store.steampowered.com', url: 'https://store.steampowered.com' },
  'yourls-csv': { fixture: 'yourls.csv', raw: 'https://yourls.org/', url: 'https://yourls.org/' },
  'yourls-tsv': { fixture: 'yourls-batch.tsv', raw: 'https://yourls.org/', url: 'https://yourls.org/' },
  'yourls-json': { fixture: 'yourls.json', raw: 'https:\\/\\/yourls.org\\/', url: 'https://yourls.org/' },
};

describeEachDatabase('NUL characters through the links layer, the CLI and imports', (ctx) => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'joe-links-nul-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Every link field as stored, to show a refused change wrote nothing. */
  const snapshot = async () => {
    const { store } = ctx();
    const page = await store.links.list({ scope: 'all', viewer: null, limit: 500 });
    return JSON.stringify(page.links.map((l) => [l.slug, l.url, l.title, l.description, l.visibility, l.tags, l.aliases, l.owners]));
  };

  const nulRefusal = (field: string) => (e: unknown) => {
    assert.ok(e instanceof AppError, String(e));
    assert.equal(e.code, 'BAD_REQUEST');
    assert.equal(e.status, 400);
    assert.equal(e.message, `${field} must not contain NUL characters`);
    assert.equal(e.field, field);
    return true;
  };

  test('the calls `links create` makes, and every other change, refuse a NUL in any link field', async () => {
    const { store } = ctx();
    const owner = await store.users.create({ email: 'nul-owner@example.test', displayName: 'Owner' });
    const links = createLinkService(store, { mail: false });
    const cli = asSystem('cli');
    const valid = {
      slug: 'nul-new',
      url: 'https://nul.example.test/',
      title: 'T',
      description: 'D',
      visibility: 'public',
      ownerId: owner.id,
    };
    const existing = await links.create(cli, { ...valid, slug: 'nul-existing' });
    const before = await snapshot();
    for (const field of ['slug', 'url', 'title', 'description', 'visibility'] as const) {
      await assert.rejects(links.create(cli, { ...valid, [field]: `x${NUL}y` }), nulRefusal(field), `create ${field}`);
      if (field !== 'slug') {
        await assert.rejects(links.update(cli, existing.id, { [field]: `x${NUL}y` }), nulRefusal(field), `update ${field}`);
      }
    }
    for (const field of ['tags', 'aliases'] as const) {
      await assert.rejects(links.create(cli, { ...valid, [field]: ['fine', `x${NUL}y`] }), nulRefusal(field), `create ${field}`);
      await assert.rejects(links.update(cli, existing.id, { [field]: [`x${NUL}y`] }), nulRefusal(field), `update ${field}`);
    }
    await assert.rejects(links.create(cli, { ...valid, shareWith: [`a${NUL}@example.test`] }), nulRefusal('share_with'));
    await assert.rejects(links.addOwner(cli, existing.id, `a${NUL}@example.test`), nulRefusal('email'));
    await assert.rejects(links.addShare(cli, existing.id, `a${NUL}@example.test`), nulRefusal('email'));
    assert.equal(await snapshot(), before, 'nothing was written');
  });

  test('every import format through `joe-links links import`: the row with a NUL is refused with the same message, and not written', async () => {
    const { store, config } = ctx();
    await store.users.create({ email: 'nul-keeper@example.test', displayName: 'Keeper' });
    assert.deepEqual(Object.keys(NUL_ROWS).sort(), IMPORT_FORMATS.map((f) => f.name).sort(), 'every format is covered');
    for (const [format, row] of Object.entries(NUL_ROWS)) {
      const text = readFileSync(new URL(row.fixture, FIXTURES), 'utf8');
      assert.equal(text.split(row.raw).length, 2, `${format}: the destination appears once in ${row.fixture}`);
      const nul = format.endsWith('csv') || format.endsWith('tsv') ? NUL : '\\u0000';
      const file = join(dir, `${format}-${row.fixture}`);
      writeFileSync(file, text.replace(row.raw, `${row.raw}x${nul}y`));
      const r = spawnSync(
        process.execPath,
        [...CLI_ARGS, 'links', 'import', file, '--from', format, '--owner', 'nul-keeper@example.test'],
        {
          cwd: dir,
          env: { PATH: process.env.PATH ?? '', NODE_OPTIONS: '', JOE_DB_DRIVER: config.driver, JOE_DB_DSN: config.dsn },
          encoding: 'utf8',
        },
      );
      assert.equal(r.status, 1, `${format}: a refused row makes the import fail\n${r.stdout}${r.stderr}`);
      assert.match(r.stdout, /^refused  line \d+( \([^)]*\))?: url must not contain NUL characters$/m, `${format}:\n${r.stdout}`);
      assert.doesNotMatch(r.stdout, /\u0000/, `${format}: the report never prints a NUL`);
      const stored = (await store.links.list({ scope: 'all', viewer: null, limit: 500 })).links;
      assert.ok(!stored.some((l) => l.url.startsWith(row.url) && l.url !== row.url), `${format}: the row was not written`);
      assert.ok(!stored.some((l) => [l.url, l.title, l.description].some((v) => v.includes(NUL))), `${format}: no NUL was stored`);
    }
  });

  test('a NUL in the slug or an owner of an import row is refused by name before the slug is mapped', async () => {
    const { store, config } = ctx();
    const file = join(dir, 'names.jsonl');
    const rows = [
      { slug: `nul${NUL}slug`, url: 'https://slug.example.test/', title: '', description: '', tags: [] },
      { slug: 'nul-owner-row', url: 'https://owner.example.test/', title: '', description: '', tags: [], owners: [`o${NUL}@example.test`] },
    ];
    writeFileSync(file, rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
    const before = await snapshot();
    const r = spawnSync(process.execPath, [...CLI_ARGS, 'links', 'import', file, '--owner', 'nul-keeper@example.test'], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', NODE_OPTIONS: '', JOE_DB_DRIVER: config.driver, JOE_DB_DSN: config.dsn },
      encoding: 'utf8',
    });
    assert.equal(r.status, 1);
    assert.equal(
      r.stdout,
      'refused  line 1 (nul\uFFFDslug): slug must not contain NUL characters\nrefused  line 2 (nul-owner-row): owners must not contain NUL characters\n',
    );
    assert.equal(await snapshot(), before, 'nothing was written');
    assert.equal(await store.links.getBySlug('nul-slug'), null);
  });
});
