import assert from 'node:assert/strict';
import { test } from 'node:test';
import { asUser, LinkService, type ImportRequest } from '../../src/links/index.js';
import type { User } from '../../src/store/types.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { runImport } from './support.js';

/**
 * What an import carries from another tool's file and what it leaves alone,
 * on every database: re-importing a file keeps the fields the file has no
 * column for, so what people set here since survives.
 */

async function* bytes(text: string): AsyncIterable<Uint8Array> {
  yield Buffer.from(text, 'utf8');
}

describeEachDatabase('import fidelity', (ctx) => {
  let n = 0;
  const setup = async () => {
    const { store } = ctx();
    const service = new LinkService(store);
    const user = (name: string): Promise<User> =>
      store.users.create({ email: `${name.toLowerCase()}-fid-${++n}@example.test`, displayName: name, role: 'user' });
    const run = (actor: Parameters<LinkService['importFile']>[0], text: string, request: Partial<ImportRequest> = {}) =>
      runImport(service, actor, bytes(text), request);
    return { store, service, user, run };
  };

  test('re-importing a golink export keeps the title, description and tags set here since', async () => {
    const { store, service, user, run } = await setup();
    const ann = await user('Ann');
    const slug = `wiki${n}`;
    const line = `{"Short":"${slug}","Long":"https://wiki.example/","Created":"2022-06-03T22:15:29Z","LastEdit":"2022-06-03T22:15:29Z","Owner":"x@example.test"}\n`;
    await run(asUser(ann), line);
    const link = (await store.links.getBySlug(slug))!;
    await service.update(asUser(ann), link.id, { title: 'Team wiki', description: 'Where we write things down', tags: ['docs'] });
    const again = await run(asUser(ann), line);
    assert.equal(again.rows[0]!.action, 'skipped', 'nothing the file carries differs');
    const after = (await store.links.getBySlug(slug))!;
    assert.equal(after.title, 'Team wiki');
    assert.equal(after.description, 'Where we write things down');
    assert.deepEqual(
      ((await store.tags.forLinks([after.id])).get(after.id) ?? []).map((t) => t.name),
      ['docs'],
    );
  });

  test('re-importing a YOURLS table keeps the description and tags it has no column for, and updates the title it has', async () => {
    const { store, service, user, run } = await setup();
    const ann = await user('Ann');
    const slug = `ozh${n}`;
    const file = (title: string) =>
      `"keyword","url","title","timestamp","ip","clicks"\n"${slug}","http://ozh.org/","${title}","2009-06-23 18:08:07","127.0.0.1","12"\n`;
    await run(asUser(ann), file('Ozh'));
    const link = (await store.links.getBySlug(slug))!;
    await service.update(asUser(ann), link.id, { description: 'A blog', tags: ['blogs'] });
    const again = await run(asUser(ann), file('Ozh, renamed'));
    assert.equal(again.rows[0]!.action, 'updated');
    assert.deepEqual(again.rows[0]!.changes, ['title']);
    const after = (await store.links.getBySlug(slug))!;
    assert.equal(after.title, 'Ozh, renamed');
    assert.equal(after.description, 'A blog');
    assert.deepEqual(
      ((await store.tags.forLinks([after.id])).get(after.id) ?? []).map((t) => t.name),
      ['blogs'],
    );
  });

  test('Shlink short codes differing only in case all stay reachable, the rename reported', async () => {
    const { store, user, run } = await setup();
    const ann = await user('Ann');
    const code = `cAsE${n}`;
    const item = (shortCode: string, longUrl: string) => ({
      shortCode,
      longUrl,
      dateCreated: '2024-01-01T00:00:00+00:00',
      tags: [],
      meta: {},
    });
    const file = JSON.stringify({
      shortUrls: { data: [item(code, 'https://one.example/'), item(code.toUpperCase(), 'https://two.example/')] },
    });
    const result = await run(asUser(ann), file, {});
    assert.equal(result.format, 'shlink-json');
    assert.deepEqual(
      result.rows.map((r) => r.action),
      ['created', 'created'],
    );
    const renamed = `${code.toLowerCase()}-2`;
    assert.ok(
      result.rows[1]!.notes?.some((note) => note.includes(`renamed ${code.toUpperCase()}-2`)),
      JSON.stringify(result.rows[1]),
    );
    assert.equal((await store.links.getBySlug(code.toLowerCase()))!.url, 'https://one.example/');
    assert.equal((await store.links.getBySlug(renamed))!.url, 'https://two.example/');
  });

  // The shape of Kutt's `sanitize.link` (server/utils/utils.js): the row's own fields, `banned` and `password` as booleans.
  test('a banned Kutt link arrives archived, never live', async () => {
    const { store, user, run } = await setup();
    const ann = await user('Ann');
    const address = `banned${n}`;
    const file = JSON.stringify({
      data: [
        {
          address,
          target: 'https://spam.example/',
          banned: true,
          created_at: '2024-02-01T09:30:00.000Z',
          updated_at: '2024-02-03T10:00:00.000Z',
          visit_count: 5,
        },
      ],
    });
    const result = await run(asUser(ann), file, { from: 'kutt' });
    assert.equal(result.rows[0]!.action, 'created');
    assert.equal((await store.links.getBySlug(address))!.archivedAt, Date.parse('2024-02-03T10:00:00Z'));
  });

  // Items as Shlink's ShortUrlDataTransformer writes them: `meta` holds validSince, validUntil and maxVisits.
  test('a Shlink link not live yet arrives archived until its "valid since"; one already live stays live', async () => {
    const { store, user, run } = await setup();
    const ann = await user('Ann');
    // The store's clock is the import's: 30 days after it is still ahead.
    const ahead = new Date(store.now() + 30 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, '+00:00');
    const item = (shortCode: string, meta: Record<string, unknown>, total = 3) => ({
      shortCode,
      longUrl: `https://${shortCode}.example/`,
      dateCreated: '2024-01-02T03:04:05+00:00',
      visitsSummary: { total, nonBots: total, bots: 0 },
      tags: [],
      meta: { validSince: null, validUntil: null, maxVisits: null, ...meta },
      domain: null,
      title: null,
      crawlable: false,
      forwardQuery: true,
    });
    const file = JSON.stringify({
      shortUrls: {
        data: [
          item(`soon${n}`, { validSince: ahead, validUntil: '2031-01-01T00:00:00+00:00', maxVisits: 50 }),
          item(`began${n}`, { validSince: '2020-01-01T00:00:00+00:00' }),
          item(`spent${n}`, { validSince: ahead, maxVisits: 3 }),
          item(`garbled${n}`, { validSince: 'next spring' }),
        ],
      },
    });
    const before = store.now();
    const result = await run(asUser(ann), file, { from: 'shlink' });
    const [soon, began, spent, garbled] = result.rows;
    assert.equal(soon!.action, 'created');
    assert.ok(
      soon!.notes.some(
        (note) =>
          note.includes(`starts redirecting it at ${new Date(Date.parse(ahead)).toISOString()}`) && note.includes('unarchive it then'),
      ),
      soon!.notes.join('; '),
    );
    const soonLink = (await store.links.getBySlug(`soon${n}`))!;
    assert.ok(soonLink.archivedAt !== null && soonLink.archivedAt >= Math.floor(before / 1000) * 1000, 'archived at the import, not live');
    assert.equal(soonLink.expiresAt, Date.parse('2031-01-01T00:00:00Z'), 'its "valid until" is still its expiry');
    assert.equal(began!.action, 'created');
    assert.deepEqual(began!.notes, [], 'a "valid since" already past says nothing');
    assert.equal((await store.links.getBySlug(`began${n}`))!.archivedAt, null);
    // Spent visits archive it at its creation, whatever its "valid since" says.
    assert.deepEqual(spent!.notes, ["reached Shlink's limit of 3 visits; imported archived"]);
    assert.equal((await store.links.getBySlug(`spent${n}`))!.archivedAt, Date.parse('2024-01-02T03:04:05Z'));
    assert.equal(garbled!.action, 'refused');
    assert.equal(garbled!.reason, 'meta.validSince "next spring" is not a date and time');
    assert.equal(await store.links.getBySlug(`garbled${n}`), null);
  });

  test('imported times are checked as the API checks them: no creation or archive in the future, no year past 9999', async () => {
    const { store, user, run } = await setup();
    const ann = await user('Ann');
    const line = (slug: string, extra: string) => `{"slug":"${slug}","url":"https://t.example/",${extra}}`;
    const file = [
      line(`future${n}`, '"created_at":"2999-01-01T00:00:00Z"'),
      line(`archived${n}`, '"archived_at":"2999-01-01T00:00:00Z"'),
      line(`before${n}`, '"created_at":"1969-12-31T23:59:59Z"'),
      line(`expired${n}`, '"expires_at":"2001-01-01T00:00:00Z"'),
    ].join('\n');
    const result = await run(asUser(ann), file);
    assert.deepEqual(
      result.rows.map((r) => [r.action, r.reason]),
      [
        ['refused', 'created_at must not be in the future'],
        ['refused', 'archived_at must not be in the future'],
        ['refused', 'created_at must be a date between 1970 and 9999'],
        ['created', undefined],
      ],
    );
    assert.equal(await store.links.getBySlug(`future${n}`), null);
  });
});
