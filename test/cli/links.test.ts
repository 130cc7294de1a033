import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { CLI_ARGS } from '../helpers/cli.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { IMPORT_FIXTURES } from '../helpers/paths.js';

/**
 * `joe-links links import` with other tools' files, on every database: the
 * format detected or named with --from, one line per row, the summary with
 * the source's clicks, a non-zero exit when a row was refused, and a second
 * run that changes nothing.
 */

const FIXTURES = IMPORT_FIXTURES;

describeEachDatabase('joe-links links import from other tools', (ctx) => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'joe-links-cli-import-'));
    for (const name of ['golink.jsonl', 'trotto.json']) writeFileSync(join(dir, name), readFileSync(new URL(name, FIXTURES)));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const run = (args: string[], input?: string) =>
    spawnSync(process.execPath, [...CLI_ARGS, 'links', 'import', ...args], {
      cwd: dir,
      env: { ...process.env, JOE_DB_DRIVER: ctx().config.driver, JOE_DB_DSN: ctx().config.dsn },
      encoding: 'utf8',
      input,
    });

  test('a golink export: detected, dry run first, owners by email or --owner, templates kept as written', async () => {
    const { store } = ctx();
    await store.users.create({ email: 'bob@example.com', displayName: 'Bob' });
    await store.users.create({ email: 'keeper@example.test', displayName: 'Keeper' });

    const noOwner = run(['golink.jsonl', '--dry-run']);
    assert.equal(noOwner.status, 1);
    assert.match(noOwner.stdout, /^created  meeting-notes \(slug "Meeting-Notes" became "meeting-notes"/m, 'bob is a user here');
    assert.match(noOwner.stdout, /^refused  line 2 \(cs\): no owner/m);
    assert.match(noOwner.stderr, /need --owner <email>/);
    assert.equal(await store.links.count(), 0);

    const dry = run(['golink.jsonl', '--dry-run', '--owner', 'keeper@example.test']);
    const real = run(['golink.jsonl', '--owner', 'keeper@example.test']);
    assert.equal(real.status, 0, 'every template is carried over');
    assert.equal(dry.stdout, real.stdout, 'the dry run reports what the real run does');
    assert.match(real.stdout, /^created  me\b/m);
    assert.match(real.stdout, /^created  search\b/m);
    assert.match(real.stdout, /^created  slack\b/m);
    assert.match(real.stdout, /^created  cs \(owner amelie@example.com matches no user; .*given to the --owner user\)$/m);
    assert.match(
      real.stderr,
      /import from golink finished: 10 created, 0 updated, 0 skipped, 0 refused; 40 clicks counted by the source \(not stored\)/,
    );
    const who = await store.links.view((await store.links.getBySlug('who'))!.id);
    assert.deepEqual(
      who!.owners.map((o) => o.email),
      ['bob@example.com'],
    );

    const again = run(['golink.jsonl', '--owner', 'keeper@example.test']);
    assert.match(again.stderr, /0 created, 0 updated, 10 skipped, 0 refused/);
  });

  test('--from names the format; a file that is not in it is one clear refusal, an unknown file none at all', async () => {
    const { store } = ctx();
    const before = await store.links.count();
    const wrong = run(['golink.jsonl', '--from', 'trotto', '--owner', 'keeper@example.test']);
    assert.equal(wrong.status, 1);
    assert.equal(wrong.stdout, '', 'a file that is not in the format is refused whole, before any row');
    assert.match(wrong.stderr, /cannot import golink.jsonl: line 1: not valid JSON/);

    writeFileSync(join(dir, 'people.csv'), 'name,email\nann,ann@example.test\n');
    const unknown = run(['people.csv', '--owner', 'keeper@example.test']);
    assert.equal(unknown.status, 1);
    assert.match(unknown.stderr, /cannot import people.csv: the file is in no format joe-links knows; name one with from: jsonl/);
    const nope = run(['people.csv', '--from', 'nope']);
    assert.match(nope.stderr, /unknown format "nope"/);
    assert.equal(run(['missing.json']).status, 1);
    assert.equal(await store.links.count(), before, 'nothing written');

    const trotto = run(['-', '--from', 'trotto', '--owner', 'keeper@example.test'], readFileSync(join(dir, 'trotto.json'), 'utf8'));
    assert.match(trotto.stdout, /^created  gh \(.*owner jay@acme.example matches no user/m);
    assert.match(trotto.stdout, /^refused  line 5 \(broken\/%s\): the keyword has 1 %s placeholder/m);
    assert.equal((await store.links.getBySlug('gh'))!.url, 'https://github.com/acme/$arg');
  });

  test('names with "/": links create takes one and refuses a reserved first segment; a Trotto namespace names its links', async () => {
    const { store } = ctx();
    const cli = (args: string[]) =>
      spawnSync(process.execPath, [...CLI_ARGS, 'links', 'create', ...args, '--owner', 'keeper@example.test'], {
        cwd: dir,
        env: { ...process.env, JOE_DB_DRIVER: ctx().config.driver, JOE_DB_DSN: ctx().config.dsn },
        encoding: 'utf8',
      });
    const made = cli(['--slug', 'blog/launch', '--url', 'https://example.com/launch']);
    assert.equal(made.status, 0, made.stderr);
    assert.equal((await store.links.getBySlug('blog/launch'))!.url, 'https://example.com/launch');
    const refused = cli(['--slug', 'admin/x', '--url', 'https://example.com/x']);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /slug starts with a reserved word and cannot be used: "admin"/);
    assert.equal(await store.links.getBySlug('admin/x'), null);
    const trotto = run(
      ['-', '--from', 'trotto', '--owner', 'keeper@example.test'],
      readFileSync(new URL('trotto-namespaces.json', FIXTURES), 'utf8'),
    );
    assert.match(trotto.stdout, /^created  eng\/1 \(was 1 in Trotto’s eng\/ namespace/m);
    assert.match(trotto.stdout, /^created  eng\/onboarding\b/m);
  });
});
