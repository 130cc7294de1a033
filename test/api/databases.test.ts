import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { DbDriver } from '../../src/config.js';
import { asSystem } from '../../src/links/index.js';
import { linkService } from '../helpers/links.js';
import { get, type TestServer } from '../helpers/server.js';
import { actor, call, createLink, snapshot, startApi, type Actor } from './support.js';

/**
 * The API's own queries (the owned-or-shared list, `?url=`, tag and user
 * pages, the export and the import) on each database, so ordering, ties and
 * transactions behave the same on SQLite, PostgreSQL and MySQL.
 */

const DRIVERS: Array<[DbDriver, string | undefined]> = [
  ['sqlite3', undefined],
  ['postgres', 'JOE_TEST_PG_DSN'],
  ['mysql', 'JOE_TEST_MYSQL_DSN'],
];

async function pages(s: TestServer, as: Actor, path: string, key: string, limit: number): Promise<Array<Record<string, unknown>>> {
  const out: Array<Record<string, unknown>> = [];
  let cursor: string | null = null;
  do {
    const r = await call(s, 'GET', `${path}?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { as });
    assert.equal(r.status, 200, r.text);
    out.push(...r.body[key]);
    cursor = r.body.next_cursor;
  } while (cursor !== null);
  return out;
}

for (const [driver, env] of DRIVERS) {
  describe(`REST API queries [${driver}]`, { skip: env !== undefined && !process.env[env] ? `${env} not set` : false }, () => {
    let s: TestServer;
    let ann: Actor;
    let ben: Actor;
    let admin: Actor;
    before(async () => {
      s = await startApi({ driver });
      ann = await actor(s, 'ann');
      ben = await actor(s, 'ben');
      admin = await actor(s, 'admin', { admin: true });
    });
    after(async () => s.stop());

    test('owned and shared links, in byte order of slug, one page at a time', async () => {
      const slugs = ['b-2', 'a-1', 'a-10', 'z', '0-zero', 'a-2'];
      for (const slug of slugs) await createLink(s, ann, { slug, tags: ['Shared Tag'] });
      const shared = await createLink(s, ben, { slug: 'm-bens', visibility: 'secure' });
      await call(s, 'POST', `/api/v1/links/${shared.id}/shares`, { as: ben, body: { email: ann.user.email } });
      await createLink(s, ben, { slug: 'n-not-anns' });
      const listed = (await pages(s, ann, '/api/v1/links', 'links', 2)).map((l) => l.slug);
      assert.deepEqual(listed, [...slugs, 'm-bens'].sort());
    });

    test('?url= newest first across owners and visibility', async () => {
      const url = `https://same-${driver}.test/`;
      await createLink(s, ann, { slug: 'u-first', url });
      await new Promise((r) => setTimeout(r, 5));
      await createLink(s, ben, { slug: 'u-second', url });
      await createLink(s, ben, { slug: 'u-hidden', url, visibility: 'private' });
      const r = await call(s, 'GET', `/api/v1/links?url=${encodeURIComponent(url)}`, { as: ann });
      assert.deepEqual(
        r.body.links.map((l: { slug: string }) => l.slug),
        ['u-second', 'u-first'],
      );
    });

    test('tags and users page through ties in name order without repeats', async () => {
      for (let i = 0; i < 7; i++) {
        await s.store.users.create({ email: `tie-${i}-${driver}@example.test`, displayName: 'Tied Name' });
        await createLink(s, ann, { slug: `tagged-${i}`, tags: [`Tag ${i}`, i % 2 ? 'lower' : 'Upper'] });
      }
      const users = await pages(s, admin, '/api/v1/admin/users', 'users', 3);
      assert.equal(new Set(users.map((u) => u.id)).size, users.length);
      assert.equal(users.length, await s.store.users.count());
      const names = users.map((u) => u.display_name as string);
      assert.deepEqual(names, [...names].sort(), 'byte order on every database');
      const tags = await pages(s, ann, '/api/v1/tags', 'tags', 2);
      const tagNames = tags.map((t) => t.name as string);
      assert.deepEqual(tagNames, [...tagNames].sort());
      assert.equal(tags.find((t) => t.slug === 'shared-tag')?.link_count, 6);
      const tagged = await call(s, 'GET', '/api/v1/tags/upper/links', { as: ann });
      assert.deepEqual(
        tagged.body.links.map((l: { slug: string }) => l.slug),
        ['tagged-0', 'tagged-2', 'tagged-4', 'tagged-6'],
      );
    });

    test('export streams every link; import of the export changes nothing; a dry run rolls back', async () => {
      const r = await get(`${s.url}/api/v1/links/export`, { authorization: `Bearer ${admin.token}` });
      const lines = (await r.text())
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l));
      assert.equal(lines.length, await s.store.links.count());
      const before = await snapshot(s);
      const transfer = linkService(s.store);
      for (const l of lines) {
        const outcome = await transfer.importRecord(
          asSystem('test'),
          {
            slug: l.slug,
            url: l.url,
            title: l.title,
            description: l.description,
            visibility: l.visibility,
            tags: l.tags,
            owners: l.owners,
            expiresAt: l.expires_at === null ? null : Date.parse(l.expires_at),
            archivedAt: l.archived_at === null ? null : Date.parse(l.archived_at),
            healthChecksDisabled: l.health_checks_disabled,
            createdAt: Date.parse(l.created_at),
          },
          { fallbackOwnerId: null, dryRun: false, source: 'jsonl' },
        );
        assert.equal(outcome.action, 'skipped', l.slug);
      }
      assert.equal(await snapshot(s), before);

      const dry = await transfer.importRecord(
        asSystem('test'),
        { slug: `dry-${driver}`, url: 'https://dry.test', title: '', description: '', tags: ['Dry'] },
        { fallbackOwnerId: ann.user.id, dryRun: true, source: 'jsonl' },
      );
      assert.equal(dry.action, 'created');
      assert.equal(await snapshot(s), before, 'the dry run left nothing behind');
      const changed = await transfer.importRecord(
        asSystem('test'),
        { slug: 'z', url: 'https://moved.test', title: '', description: '', tags: ['New Tag'], owners: [ben.user.email] },
        { fallbackOwnerId: null, dryRun: false, source: 'jsonl' },
      );
      assert.equal(changed.action, 'updated');
      const z = (await s.store.links.view((await s.store.links.getBySlug('z'))!.id))!;
      assert.equal(z.url, 'https://moved.test');
      assert.deepEqual(
        z.tags.map((t) => t.name),
        ['New Tag'],
      );
      assert.deepEqual(
        z.owners.map((o) => [o.email, o.isPrimary]),
        [
          [ann.user.email, true],
          [ben.user.email, false],
        ],
        'owners are added, the primary kept',
      );
    });
  });
}
