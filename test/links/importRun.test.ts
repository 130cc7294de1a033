import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  asSystem,
  asUser,
  createLinkService,
  LinkService,
  type ImportRequest,
  type ImportRow,
  type LinkEvent,
} from '../../src/links/index.js';
import type { User } from '../../src/store/types.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { runImport } from './support.js';
import { IMPORT_FIXTURES } from '../helpers/paths.js';

/**
 * Importing whole files through the links layer on every database: the
 * format decided before anything is written, our slug and URL rules per row,
 * collisions reported and never merged, owners, the dry run reporting what
 * the real run does, and a second run changing nothing.
 */

const fixture = (name: string): string => readFileSync(new URL(name, IMPORT_FIXTURES), 'utf8');

async function* bytes(text: string, size = 1000, encoding: BufferEncoding = 'utf8'): AsyncIterable<Uint8Array> {
  const all = Buffer.from(text, encoding);
  for (let i = 0; i < all.length; i += size) yield all.subarray(i, i + size);
}

const summaryLine = (s: { created: number; updated: number; skipped: number; refused: number }) =>
  `${s.created} created, ${s.updated} updated, ${s.skipped} skipped, ${s.refused} refused`;

describeEachDatabase('importing files', (ctx) => {
  let n = 0;
  const setup = async () => {
    const { store } = ctx();
    const service = new LinkService(store);
    const events: LinkEvent[] = [];
    service.events.subscribe((e) => void events.push(e));
    const user = (name: string, role: 'user' | 'admin' = 'user'): Promise<User> =>
      store.users.create({ email: `${name.toLowerCase()}-${++n}@example.test`, displayName: name, role });
    const run = (actor: Parameters<LinkService['importFile']>[0], text: string, request: Partial<ImportRequest> = {}) =>
      runImport(service, actor, bytes(text), request);
    return { store, service, events, user, run };
  };

  test('a golink export: slugs made valid, templates kept to run as golink runs them, owned by the importer, events name the format', async () => {
    const { store, events, user, run } = await setup();
    const ann = await user('Ann');
    const dry = await run(asUser(ann), fixture('golink.jsonl'), { dryRun: true });
    assert.equal(await store.links.count(), 0, 'a dry run writes nothing');
    const real = await run(asUser(ann), fixture('golink.jsonl'));
    assert.deepEqual(
      dry.rows.map((r) => [r.line, r.action, r.reason]),
      real.rows.map((r) => [r.line, r.action, r.reason]),
      'the dry run reports what the real run does',
    );
    assert.equal(real.format, 'golink');
    assert.equal(summaryLine(real.summary), '10 created, 0 updated, 0 skipped, 0 refused');
    assert.equal(real.summary.sourceClicks, 1 + 8 + 4 + 27, 'clicks of the imported links only');
    const row = (slug: string) => real.rows.find((r) => r.slug === slug || r.written === slug)!;
    assert.equal(row('meeting-notes').written, 'Meeting-Notes');
    assert.deepEqual(row('meeting-notes').notes.slice(0, 1), ['slug "Meeting-Notes" became "meeting-notes"']);
    assert.equal(row('go-dev').action, 'created');
    assert.equal((await store.links.getBySlug('slack'))!.url, 'https://company.slack.com/channels/{{PathEscape .Path}}');
    assert.equal(row('me').action, 'created', 'a {{.User}} template runs here as in golink');
    const notes = await store.links.view((await store.links.getBySlug('cs'))!.id);
    assert.deepEqual(
      notes!.owners.map((o) => o.email),
      [ann.email],
      'a user imports as the owner of what they import',
    );
    assert.equal(notes!.createdAt, Date.parse('2022-06-03T22:15:29.993Z'), 'the creation time carries over');
    const created = events.filter((e) => e.kind === 'created');
    assert.equal(created.length, 10);
    assert.ok(created.every((e) => e.kind === 'created' && e.source === 'golink'));

    events.length = 0;
    const again = await run(asUser(ann), fixture('golink.jsonl'));
    assert.equal(summaryLine(again.summary), '0 created, 0 updated, 10 skipped, 0 refused', 'a second run changes nothing');
    assert.ok(again.rows.filter((r) => r.action === 'skipped').every((r) => r.reason === 'unchanged'));
    assert.deepEqual(events, []);
  });

  test('collisions inside the file and with links the importer may not edit are refused; the rest is imported', async () => {
    const { store, service, user, run } = await setup();
    const ann = await user('Ann');
    const ben = await user('Ben');
    await service.create(asUser(ben), { slug: 'bens-link', url: 'https://ben.example/' });
    await service.create(asUser(ann), { slug: 'anns-link', url: 'https://ann.example/' });
    await service.create(asUser(ben), { slug: 'cals-link', url: 'https://cal.example/' });
    const lines = [
      { slug: 'Team_Wiki', url: 'https://wiki.example/' },
      { slug: 'team-wiki', url: 'https://other-wiki.example/' },
      { slug: 'bens-link', url: 'https://mine.example/' },
      { slug: 'anns-link', url: 'https://ann.example/moved' },
      { slug: 'xss', url: 'javascript:alert(1)' },
      { slug: '日本', url: 'https://jp.example/' },
      { slug: 'API', url: 'https://api.example/' },
      { slug: 'with-alias', url: 'https://a.example/', aliases: ['Cals_Link'] },
      { slug: 'with-alias-2', url: 'https://b.example/', aliases: ['Team-Wiki'] },
      { slug: 'fine', url: 'https://fine.example/' },
    ];
    const text = lines.map((l) => JSON.stringify(l)).join('\n');
    const { rows, summary } = await run(asUser(ann), text, { from: 'jsonl' });
    const reasons = rows.map((r) => [r.line, r.action, r.reason ?? '']);
    assert.deepEqual(reasons, [
      [1, 'created', ''],
      [2, 'refused', 'the slug "team-wiki" is already the slug of line 1 (written "Team_Wiki")'],
      [3, 'refused', 'slug is taken by a link you may not edit'],
      [4, 'updated', ''],
      [5, 'refused', 'url must start with http:// or https://'],
      [6, 'refused', '"日本" has no letters or digits to make a slug of'],
      [7, 'refused', reasons[6]![2]],
      [8, 'refused', 'the alias "cals-link" is the slug of another link'],
      [9, 'refused', 'the alias "team-wiki" is already the slug of line 1 (written "Team_Wiki")'],
      [10, 'created', ''],
    ]);
    assert.match(String(reasons[6]![2]), /"api" is reserved/);
    assert.deepEqual(rows[3]!.changes, ['url']);
    assert.equal(summaryLine(summary), '2 created, 1 updated, 0 skipped, 7 refused');
    assert.equal((await store.links.getBySlug('bens-link'))!.url, 'https://ben.example/', 'someone else’s link is untouched');
    assert.equal((await store.links.getBySlug('team-wiki'))!.url, 'https://wiki.example/', 'the first row wins, the second is reported');
  });

  test('owners: an admin may keep the file’s owners, unknown ones go to the fallback; anyone else may not ask', async () => {
    const { store, user, run, service } = await setup();
    const admin = await user('Root', 'admin');
    const kay = await store.users.create({ email: 'kay@acme.example', displayName: 'Kay' });
    const mel = await user('Mel');
    const kept = await run(asUser(admin), fixture('trotto.json'), {
      keepFileOwners: true,
      fallbackOwner: { id: admin.id, label: admin.email },
    });
    assert.equal(summaryLine(kept.summary), '4 created, 0 updated, 0 skipped, 1 refused');
    const owners = async (slug: string) => (await store.links.view((await store.links.getBySlug(slug))!.id))!.owners.map((o) => o.email);
    assert.deepEqual(await owners('benefits'), [kay.email]);
    assert.deepEqual(await owners('gh'), [admin.email], 'jay is not a user here');
    assert.match(kept.rows[1]!.notes.join('; '), /owner jay@acme.example matches no user; given to root-/);
    assert.equal((await store.links.getBySlug('jira'))!.url, 'https://acme.atlassian.net/browse/$arg1-$arg2');
    assert.equal(kept.summary.sourceClicks, 318 + 1204 + 77 + 0);

    await assert.rejects(
      service.importFile(asUser(mel), bytes(fixture('trotto.json')), { dryRun: true, fallbackOwner: null, keepFileOwners: true }),
      {
        code: 'FORBIDDEN',
      },
    );
    const operator = await run(asSystem('cli'), fixture('slash.json'), { dryRun: true });
    assert.equal(operator.summary.refused, 3, 'without owners in the file and no fallback, rows are refused');
    assert.match(operator.rows[0]!.reason!, /no owner/);
  });

  test('a URL longer than a POST can carry is refused as on POST; the other rows are imported', async () => {
    const { store, user, run } = await setup();
    const ann = await user('Ann');
    const huge = `https://long.example/${'x'.repeat(2 * 1024 * 1024)}`;
    const text = [
      { slug: 'huge-url', url: huge },
      { slug: 'fits-a-post', url: `https://long.example/${'y'.repeat(900_000)}` },
    ]
      .map((l) => JSON.stringify(l))
      .join('\n');
    const { rows } = await run(asUser(ann), text, { from: 'jsonl' });
    assert.deepEqual(
      rows.map((r) => [r.slug, r.action, r.reason]),
      [
        ['huge-url', 'refused', 'url must be at most 1 MiB'],
        ['fits-a-post', 'created', undefined],
      ],
    );
    assert.equal(await store.links.getBySlug('huge-url'), null);
  });

  test('re-importing keeps what the file does not carry: fields set here since stay, fields it carries update', async () => {
    const { store, service, user, run } = await setup();
    const ann = await user('Ann');
    const first = await run(asUser(ann), `${JSON.stringify({ slug: 'kept-fields', url: 'https://k.example/' })}\n`, { from: 'jsonl' });
    assert.equal(first.rows[0]!.action, 'created');
    const id = (await store.links.getBySlug('kept-fields'))!.id;
    await service.update(asUser(ann), id, { title: 'Set here', description: 'Since the import', tags: ['Team'] });
    const same = await run(asUser(ann), `${JSON.stringify({ slug: 'kept-fields', url: 'https://k.example/' })}\n`, { from: 'jsonl' });
    assert.deepEqual([same.rows[0]!.action, same.rows[0]!.reason], ['skipped', 'unchanged']);
    const moved = await run(asUser(ann), `${JSON.stringify({ slug: 'kept-fields', url: 'https://k.example/moved', tags: [] })}\n`, {
      from: 'jsonl',
    });
    assert.deepEqual([moved.rows[0]!.action, moved.rows[0]!.changes], ['updated', ['url', 'tags']]);
    const view = (await store.links.view(id))!;
    assert.equal(view.url, 'https://k.example/moved');
    assert.equal(view.title, 'Set here');
    assert.equal(view.description, 'Since the import');
    assert.deepEqual(view.tags, [], 'a field the row carries, even empty, is written');
  });

  test('an imported update is a change like any other: in the history with its format and its author', async () => {
    const { store, user } = await setup();
    const service = createLinkService(store, { mail: false });
    const ann = await user('Ann');
    const ben = await user('Ben');
    const link = await service.create(asUser(ben), { slug: 'shared-doc', url: 'https://doc.example/v1', title: 'Doc' });
    await service.addOwner(asUser(ben), link.id, ann.email);
    const imported = await service.importFile(
      asUser(ann),
      bytes(`${JSON.stringify({ slug: 'shared-doc', url: 'https://doc.example/v2' })}\n`),
      {
        from: 'jsonl',
        dryRun: false,
        fallbackOwner: null,
        keepFileOwners: false,
      },
    );
    const rows: ImportRow[] = [];
    for await (const r of imported.rows) rows.push(r);
    assert.deepEqual([rows[0]!.action, rows[0]!.changes], ['updated', ['url']]);
    const history = await service.history(asUser(ben), link.id, {});
    const newest = history.events[0]!;
    assert.equal(newest.kind, 'updated');
    assert.equal(newest.source, 'jsonl');
    assert.equal(newest.actor?.email, ann.email);
    assert.deepEqual(newest.changes.url, { from: 'https://doc.example/v1', to: 'https://doc.example/v2' });
    assert.equal((await store.links.get(link.id))!.title, 'Doc', 'a title the row does not carry is kept');
  });

  test('a member racing someone who creates the same slugs never overwrites their links', async () => {
    const { store, service, user, run } = await setup();
    const ann = await user('Ann');
    const ben = await user('Ben');
    const slugs = Array.from({ length: 60 }, (_, i) => `race-${i}`);
    const later = async (turns: number) => {
      for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
    };
    // Ben's create starts a few event-loop turns after each import, so it lands before, during or after Ann's row.
    const outcomes = await Promise.all(
      slugs.map(async (slug, i) => {
        const [imported, created] = await Promise.all([
          run(asUser(ann), `${JSON.stringify({ slug, url: 'https://ann.example/' })}\n`, { from: 'jsonl' }),
          later(i % 30)
            .then(() => service.create(asUser(ben), { slug, url: 'https://ben.example/' }))
            .then(
              () => 'created',
              (e: { code?: string }) => e.code,
            ),
        ]);
        return { slug, row: imported.rows[0]!, created };
      }),
    );
    for (const { slug, row, created } of outcomes) {
      const link = (await store.links.view((await store.links.getBySlug(slug))!.id))!;
      const owner = link.owners.find((o) => o.isPrimary)!.email;
      if (created === 'created') {
        assert.equal(owner, ben.email, slug);
        assert.equal(link.url, 'https://ben.example/', `${slug}: Ben's new link keeps his URL`);
        assert.deepEqual([row.action, row.reason], ['refused', 'slug is taken by a link you may not edit'], slug);
      } else {
        assert.equal(created, 'SLUG_CONFLICT', slug);
        assert.equal(owner, ann.email, slug);
        assert.equal(row.action, 'created', slug);
      }
    }
  });

  test('files refused whole before anything is written: empty, unknown, ambiguous, not UTF-8, unknown from', async () => {
    const { store, service, user } = await setup();
    const ann = await user('Ann');
    const before = await store.links.count();
    const start = (input: AsyncIterable<Uint8Array>, from?: string) =>
      service.importFile(asUser(ann), input, { from, dryRun: false, fallbackOwner: null, keepFileOwners: false });
    await assert.rejects(start(bytes('  \n')), { code: 'BAD_REQUEST', message: 'the file is empty' });
    await assert.rejects(start(bytes('name,email\nann,ann@example.test\n')), { code: 'BAD_REQUEST', message: /no format joe-links knows/ });
    await assert.rejects(start(bytes('link,long url,keyword,url\nx,https://x.example/,x,https://x.example/\n')), {
      code: 'BAD_REQUEST',
      message: /could be .*bitly-csv/,
    });
    await assert.rejects(start(bytes('slug,url\nok,https://ok.example/\n'), 'nope'), {
      code: 'BAD_REQUEST',
      message: /unknown format "nope"/,
    });
    async function* latin1(): AsyncIterable<Uint8Array> {
      yield Buffer.from('slug,url\ncaf\xe9,https://x.example/\n', 'latin1');
    }
    await assert.rejects(start(latin1()), { code: 'BAD_REQUEST', message: 'the file is not UTF-8 text (line 2)' });
    assert.equal(await store.links.count(), before);
  });

  test('a file broken anywhere, its last line too, is refused whole with the line named, and nothing is written', async () => {
    const { store, service, user } = await setup();
    const ann = await user('Ann');
    const before = await store.links.count();
    // Thousands of good rows first, far past what detection reads, in pieces that split characters.
    const good = Array.from({ length: 4000 }, (_, i) => JSON.stringify({ slug: `good-${i}`, url: 'https://a.example/', title: 'Grüße' }));
    const start = (parts: Array<Buffer | string>, dryRun = false) =>
      service.importFile(asUser(ann), bytes(Buffer.concat(parts.map((p) => Buffer.from(p))).toString('latin1'), 777, 'latin1'), {
        dryRun,
        fallbackOwner: null,
        keepFileOwners: false,
      });
    const badTail = [`${good.join('\n')}\n`, Buffer.from('{"slug":"last","url":"https://x.example/caf'), Buffer.from([0xe9]), '"}\n'];
    for (const dryRun of [true, false]) {
      await assert.rejects(start(badTail, dryRun), { code: 'BAD_REQUEST', message: 'the file is not UTF-8 text (line 4001)' });
    }
    const unclosed = `slug,url,title\n${Array.from({ length: 4000 }, (_, i) => `csv-${i},https://c.example/,T`).join('\n')}\nlast,https://c.example/,"never closed\n`;
    await assert.rejects(start([unclosed]), { code: 'BAD_REQUEST', message: /^line 4002: not valid CSV/ });
    await assert.rejects(start(['{"shortUrls": {"data": [{"shortCode": "a", "longUrl": "https://a.example/"}']), {
      code: 'BAD_REQUEST',
      message: 'line 1: not valid JSON',
    });
    assert.equal(await store.links.count(), before, 'not one row of a broken file is written');
  });
});
