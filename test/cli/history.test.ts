import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { asSystem, historyRecorder, LinkService } from '../../src/links/index.js';
import { CLI_ARGS } from '../helpers/cli.js';
import { describeEachDatabase } from '../helpers/databases.js';

/**
 * The CLI's changes are history too (docs/history.md#who-and-where): recorded
 * as made through the CLI, naming the user given with `--as`, imports as
 * `imported` with their format, and nothing for a dry run.
 */

describeEachDatabase('link history from the CLI', (ctx) => {
  const cwd = mkdtempSync(join(tmpdir(), 'joe-links-history-cli-'));
  const run = (args: string[]) => {
    const { config } = ctx();
    const r = spawnSync(process.execPath, [...CLI_ARGS, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', NODE_OPTIONS: '', JOE_DB_DRIVER: config.driver, JOE_DB_DSN: config.dsn },
      encoding: 'utf8',
    });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  const history = async (slug: string) => {
    const { store } = ctx();
    const link = await store.links.getBySlug(slug);
    assert.ok(link, `${slug} exists`);
    const service = new LinkService(store, { recorders: [historyRecorder(store)] });
    return (await service.history(asSystem('test'), link.id, {})).events;
  };

  test('links create records the CLI, and the --as user when one is named', async () => {
    const { store } = ctx();
    const ann = await store.users.create({ email: 'ann@example.test', displayName: 'Ann' });
    const made = run(['links', 'create', '--slug', 'cli-plain', '--url', 'https://plain.test', '--owner', ann.email]);
    assert.equal(made.code, 0, made.stderr);
    const [plain] = await history('cli-plain');
    assert.equal(plain!.kind, 'created');
    assert.equal(plain!.via, 'cli');
    assert.equal(plain!.actor, null);

    const as = run(['links', 'create', '--slug', 'cli-as', '--url', 'https://as.test', '--owner', ann.email, '--as', 'ANN@example.test']);
    assert.equal(as.code, 0, as.stderr);
    const [named] = await history('cli-as');
    assert.equal(named!.via, 'cli');
    assert.deepEqual(named!.actor, { id: ann.id, email: ann.email, displayName: 'Ann' });

    const unknown = run([
      'links',
      'create',
      '--slug',
      'cli-nobody',
      '--url',
      'https://n.test',
      '--owner',
      ann.email,
      '--as',
      'x@nowhere.test',
    ]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no user with email x@nowhere\.test/);
    assert.equal(await store.links.getBySlug('cli-nobody'), null);
  });

  test('links import records imported and updated events naming the format; a dry run records nothing', async () => {
    const { store } = ctx();
    const file = join(cwd, 'links.jsonl');
    const line = (title: string) =>
      `${JSON.stringify({ slug: 'cli-imp', url: 'https://imp.test', title, description: '', tags: ['A'], owners: ['ann@example.test'] })}\n`;
    writeFileSync(file, line('first'));
    const before = (await store.linkEvents.page({}, { limit: 1000 })).events.length;
    const dry = run(['links', 'import', file, '--dry-run']);
    assert.equal(dry.code, 0, dry.stderr);
    assert.equal((await store.linkEvents.page({}, { limit: 1000 })).events.length, before, 'a dry run records nothing');

    assert.equal(run(['links', 'import', file, '--as', 'ann@example.test']).code, 0);
    writeFileSync(file, line('second'));
    assert.equal(run(['links', 'import', file]).code, 0);
    const [updated, imported] = await history('cli-imp');
    assert.equal(imported!.kind, 'imported');
    assert.equal(imported!.source, 'jsonl');
    assert.equal(imported!.actor?.email, 'ann@example.test');
    assert.equal(updated!.kind, 'updated');
    assert.equal(updated!.source, 'jsonl');
    assert.equal(updated!.actor, null);
    assert.equal(updated!.via, 'cli');
    assert.deepEqual(updated!.changes, { title: { from: 'first', to: 'second' } });
  });
});
