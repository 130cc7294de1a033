import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import type { KyselyPlugin } from 'kysely';
import { connect } from '../../src/db/connect.js';
import { AppError, type ErrorCode } from '../../src/domain/errors.js';
import { RESERVED_SLUGS } from '../../src/domain/slug.js';
import type { LinkChanges, LinkDraft } from '../../src/domain/linkInput.js';
import { createStore, type Store } from '../../src/store/index.js';
import type { User } from '../../src/store/types.js';
import { describeEachDatabase, type DbContext } from '../helpers/databases.js';
import { addOwner, addShare, createLink, removeOwner, removeShare, updateLink } from '../helpers/links.js';

/** Links, owners, shares and tags (docs/server.md#databases, docs/links.md#slugs, docs/links.md#destinations-and-templates, docs/links.md#field-validation) behave identically on every database. */

let seq = 0;
const unique = (prefix: string): string => `${prefix}-${++seq}`;

async function newUser(store: Store, displayName?: string): Promise<User> {
  return store.users.create({ email: `${unique('u')}@example.com`, displayName });
}

function isAppError(code: ErrorCode, message?: string | RegExp): (e: unknown) => boolean {
  return (e) => {
    assert.ok(e instanceof AppError, `expected AppError ${code}, got ${String(e)}`);
    assert.equal(e.code, code);
    if (typeof message === 'string') assert.equal(e.message, message);
    else if (message) assert.match(e.message, message);
    return true;
  };
}

const LINK_TABLES = ['links', 'link_owners', 'tags', 'link_tags', 'link_shares', 'link_clicks', 'link_health'] as const;

/** Row count of every table a link write can touch: equal snapshots mean nothing changed. */
async function rowCounts(ctx: DbContext): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of LINK_TABLES) {
    const r = await ctx.db.kysely
      .selectFrom(t)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    out[t] = Number(r.n);
  }
  return out;
}

/** Rows in any table with a `link_id` column that still point at `linkId`, by table. */
async function rowsReferencing(ctx: DbContext, linkId: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of await ctx.db.kysely.introspection.getTables()) {
    if (!table.columns.some((c) => c.name === 'link_id')) continue;
    const r = await ctx.db.kysely
      .selectFrom(table.name as 'link_owners')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('link_id', '=', linkId)
      .executeTakeFirstOrThrow();
    out[table.name] = Number(r.n);
  }
  return out;
}

describeEachDatabase('link store', (ctx) => {
  test('the creator is the single primary owner', async () => {
    const { store, db } = ctx();
    const u = await newUser(store);
    const link = await createLink(store, { slug: unique('owned'), url: 'https://e.test' }, u.id);
    const rows = await db.kysely.selectFrom('link_owners').selectAll().where('link_id', '=', link.id).execute();
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.user_id, u.id);
    assert.equal(Number(rows[0]!.is_primary), 1);
    assert.deepEqual(
      link.owners.map((o) => [o.userId, o.isPrimary]),
      [[u.id, true]],
    );
  });

  test('create stores the link as given and reads absent title/description as empty', async () => {
    const { store, clock } = ctx();
    const u = await newUser(store);
    const slug = unique('plain');
    const link = await createLink(store, { slug, url: '  https://e.test/x  ' }, u.id);
    assert.equal(link.slug, slug);
    assert.equal(link.url, 'https://e.test/x');
    assert.equal(link.title, '');
    assert.equal(link.description, '');
    assert.equal(link.visibility, 'public');
    assert.equal(link.createdAt, clock.now);
    assert.equal(link.updatedAt, clock.now);
    assert.equal(link.expiresAt, null);
    assert.equal(link.archivedAt, null);
    assert.equal(link.healthChecksDisabled, false);
    assert.deepEqual(await store.links.get(link.id), (({ tags: _t, owners: _o, aliases: _a, ...rest }) => rest)(link));
  });

  test('deleting a link leaves no row referencing it in any table', async () => {
    const c = ctx();
    const { store, db, clock } = c;
    const owner = await newUser(store);
    const co = await newUser(store);
    const reader = await newUser(store);
    const link = await createLink(store, { slug: unique('doomed'), url: 'https://e.test', tags: ['Doomed Tag', 'Other'] }, owner.id, {
      shareWith: [reader.id],
    });
    await addOwner(store, link.id, co.id);
    await store.clicks.insertBatch([
      {
        id: randomUUID(),
        link_id: link.id,
        user_id: reader.id,
        ip_hash: 'a'.repeat(64),
        user_agent: 'ua',
        referrer: null,
        clicked_at: clock.now,
      },
      { id: randomUUID(), link_id: link.id, user_id: null, ip_hash: 'b'.repeat(64), user_agent: null, referrer: '', clicked_at: clock.now },
    ]);
    await db.kysely
      .insertInto('link_health')
      .values({
        link_id: link.id,
        last_checked_at: clock.now,
        last_status: 500,
        last_error: 'boom',
        consecutive_failures: 3,
        next_check_at: null,
        skipped: 0,
      })
      .execute();

    const before = await rowsReferencing(c, link.id);
    for (const t of ['links', 'link_owners', 'link_tags', 'link_shares', 'link_clicks', 'link_health']) {
      if (t !== 'links') assert.ok((before[t] ?? 0) > 0, `fixture should have ${t} rows`);
    }
    assert.equal(await store.links.delete(link.id), true);
    const after = await rowsReferencing(c, link.id);
    for (const [table, n] of Object.entries(after)) {
      // A link's history and what its owners were told about it outlive it (docs/history.md, docs/notifications.md).
      if (table === 'link_events' || table === 'notifications') continue;
      assert.equal(n, 0, `${table} still references the deleted link`);
    }
    assert.equal(await store.links.get(link.id), null);
    assert.equal(await store.links.slugTaken(link.slug), false, 'the slug becomes free');
    // Users and tags themselves survive.
    assert.ok(await store.users.findById(reader.id));
    assert.ok(await store.tags.findBySlug('doomed-tag'));
    assert.equal(await store.links.delete(link.id), false);
  });

  test('tags that differ only in case and spacing collapse into one, first spelling wins', async () => {
    const { store } = ctx();
    const u = await newUser(store);
    const link = await createLink(
      store,
      { slug: unique('tagged'), url: 'https://e.test', tags: ['Engineering Tools', 'engineering tools', ' Engineering_Tools '] },
      u.id,
    );
    assert.deepEqual(
      link.tags.map((t) => [t.slug, t.name]),
      [['engineering-tools', 'Engineering Tools']],
    );
    // A later spelling never renames the stored tag.
    const second = await createLink(store, { slug: unique('tagged'), url: 'https://e.test', tags: ['ENGINEERING tools'] }, u.id);
    assert.deepEqual(
      second.tags.map((t) => [t.id, t.name]),
      [[link.tags[0]!.id, 'Engineering Tools']],
    );
  });

  test('setting tags replaces the whole set; omitting tags leaves them alone', async () => {
    const { store } = ctx();
    const u = await newUser(store);
    const link = await createLink(store, { slug: unique('retag'), url: 'https://e.test', tags: ['alpha', 'beta'] }, u.id);
    const replaced = await updateLink(store, link.id, { tags: ['gamma', 'Alpha'] });
    assert.deepEqual(
      replaced.tags.map((t) => t.name),
      ['alpha', 'gamma'],
      'tags are listed by name and the stored spelling of alpha is kept',
    );
    const untouched = await updateLink(store, link.id, { title: 'renamed' });
    assert.deepEqual(
      untouched.tags.map((t) => t.slug),
      ['alpha', 'gamma'],
    );
    const cleared = await updateLink(store, link.id, { tags: [] });
    assert.deepEqual(cleared.tags, []);
  });

  test('owners are listed primary first, then by display name in byte order', async () => {
    const { store } = ctx();
    const primary = await newUser(store, 'zoe primary');
    const bob = await newUser(store, 'bob');
    const amy = await newUser(store, 'Amy');
    const carl = await newUser(store, 'Carl');
    const link = await createLink(store, { slug: unique('owners'), url: 'https://e.test' }, primary.id);
    for (const u of [bob, amy, carl]) await addOwner(store, link.id, u.id);
    assert.deepEqual(
      (await store.owners.list(link.id)).map((o) => [o.displayName, o.isPrimary]),
      [
        ['zoe primary', true],
        ['Amy', false],
        ['Carl', false],
        ['bob', false],
      ],
    );
  });

  test('owner management: duplicate, primary removal and non-owner removal are refused', async () => {
    const { store, db } = ctx();
    const primary = await newUser(store);
    const co = await newUser(store);
    const stranger = await newUser(store);
    const link = await createLink(store, { slug: unique('guarded'), url: 'https://e.test' }, primary.id);
    await addOwner(store, link.id, co.id);
    await assert.rejects(addOwner(store, link.id, co.id), isAppError('DUPLICATE_OWNER', 'user is already an owner of this link'));
    await assert.rejects(addOwner(store, link.id, primary.id), isAppError('DUPLICATE_OWNER'));
    await assert.rejects(removeOwner(store, link.id, primary.id), isAppError('PRIMARY_OWNER_PROTECTED', 'primary owner cannot be removed'));
    await assert.rejects(removeOwner(store, link.id, stranger.id), isAppError('NOT_FOUND', 'user is not an owner of this link'));
    await assert.rejects(addOwner(store, link.id, randomUUID()), isAppError('NOT_FOUND'));
    const rows = await db.kysely.selectFrom('link_owners').select(['user_id', 'is_primary']).where('link_id', '=', link.id).execute();
    assert.equal(rows.length, 2, 'no duplicate row was added and the primary row remains');
    assert.ok(rows.some((r) => r.user_id === primary.id && Number(r.is_primary) === 1));
    await removeOwner(store, link.id, co.id);
    assert.deepEqual(
      (await store.owners.list(link.id)).map((o) => o.userId),
      [primary.id],
    );
  });

  test('shares: a duplicate is refused and the roster is ordered by created_at', async () => {
    const { store, clock } = ctx();
    const owner = await newUser(store);
    const late = await newUser(store, 'Aaron');
    const early = await newUser(store, 'Zed');
    const link = await createLink(store, { slug: unique('shared'), url: 'https://e.test', visibility: 'secure' }, owner.id);
    const t0 = clock.now;
    try {
      // Inserted first but stamped later, so insertion order and name order both disagree with created_at.
      clock.now = t0 + 10_000;
      await addShare(store, link.id, late.id, owner.id);
      clock.now = t0 + 5_000;
      await addShare(store, link.id, early.id, owner.id);
    } finally {
      clock.now = t0;
    }
    await assert.rejects(addShare(store, link.id, late.id, owner.id), isAppError('DUPLICATE_SHARE'));
    await assert.rejects(addShare(store, link.id, randomUUID(), owner.id), isAppError('NOT_FOUND'));
    const roster = await store.shares.list(link.id);
    assert.deepEqual(
      roster.map((s) => [s.userId, s.createdAt, s.sharedBy]),
      [
        [early.id, t0 + 5_000, owner.id],
        [late.id, t0 + 10_000, owner.id],
      ],
    );
    await removeShare(store, link.id, early.id);
    await assert.rejects(removeShare(store, link.id, early.id), isAppError('NOT_FOUND', 'share not found'));
    assert.deepEqual(
      (await store.shares.list(link.id)).map((s) => s.userId),
      [late.id],
    );
  });

  test('update sets updated_at, archive keeps its first stamp, expiry must lie in the future', async () => {
    const { store, clock } = ctx();
    const u = await newUser(store);
    const link = await createLink(store, { slug: unique('life'), url: 'https://e.test' }, u.id);
    const t0 = clock.now;
    try {
      clock.now = t0 + 1_000;
      const archived = await updateLink(store, link.id, { archived: true });
      assert.equal(archived.archivedAt, t0 + 1_000);
      assert.equal(archived.updatedAt, t0 + 1_000);
      clock.now = t0 + 2_000;
      assert.equal((await updateLink(store, link.id, { archived: true })).archivedAt, t0 + 1_000);
      assert.equal((await updateLink(store, link.id, { archived: false })).archivedAt, null);
      await assert.rejects(
        updateLink(store, link.id, { expiresAt: clock.now - 1 }),
        isAppError('INVALID_EXPIRES_AT', 'expiration must be in the future'),
      );
      const expiring = await updateLink(store, link.id, { expiresAt: clock.now + 3_600_500 });
      assert.equal(expiring.expiresAt, clock.now + 3_600_000, 'stored at whole seconds');
      assert.equal((await updateLink(store, link.id, { expiresAt: null })).expiresAt, null);
      assert.equal((await updateLink(store, link.id, { healthChecksDisabled: true })).healthChecksDisabled, true);
    } finally {
      clock.now = t0;
    }
    await assert.rejects(updateLink(store, randomUUID(), { title: 'x' }), isAppError('NOT_FOUND'));
  });

  test('the host keyword and the slug read together answer what the two lookups answer apart', async () => {
    const { store, clock } = ctx();
    const u = await newUser(store);
    const kw = unique('hk');
    await store.keywords.create({ keyword: kw, urlTemplate: `https://${kw}.test/{slug}` });
    const plain = unique('hs-plain');
    const secure = unique('hs-secure');
    await createLink(store, { slug: plain, url: 'https://plain.test/a' }, u.id);
    const s = await createLink(
      store,
      { slug: secure, url: 'https://secure.test/', visibility: 'secure', expiresAt: clock.now + 7_200_000 },
      u.id,
    );
    await updateLink(store, s.id, { archived: true });
    // A slug spelled like the keyword, and a host spelled like a slug, must not cross over.
    await createLink(store, { slug: kw, url: 'https://same-name.test/' }, u.id);
    for (const host of [kw, plain, 'nokeyword', kw.toUpperCase()]) {
      for (const slug of [plain, secure, kw, 'no-such-slug', plain.toUpperCase()]) {
        const together = await store.links.lookupKeywordAndSlug(host, slug);
        const apart = { keywordTemplate: await store.keywords.templateFor(host), link: await store.links.lookupForResolve(slug) };
        assert.deepEqual(together, apart, `host=${host} slug=${slug}`);
      }
    }
    const both = await store.links.lookupKeywordAndSlug(kw, secure);
    assert.equal(both.keywordTemplate, `https://${kw}.test/{slug}`);
    assert.deepEqual(both.link, {
      id: s.id,
      url: 'https://secure.test/',
      visibility: 'secure',
      expiresAt: clock.now + 7_200_000,
      archivedAt: clock.now,
      forwardPathAndQuery: false,
      defaultUrl: null,
    });
    assert.deepEqual(await store.links.lookupKeywordAndSlug('nokeyword', 'no-such-slug'), { keywordTemplate: null, link: null });
  });
});

describeEachDatabase('link store: bad input changes nothing', (ctx) => {
  const reservedMessage = (slug: string): string =>
    `slug is reserved and cannot be used: "${slug}" (reserved: ${RESERVED_SLUGS.join(', ')})`;

  test('invalid creates are refused with the canonical error and insert no row', async () => {
    const c = ctx();
    const u = await newUser(c.store);
    const cases: Array<[string, LinkDraft, ErrorCode, string]> = [
      [
        '201-char title',
        { slug: unique('t'), url: 'https://e.test', title: 'x'.repeat(201) },
        'INVALID_FIELD_LENGTH',
        'title must be at most 200 characters',
      ],
      [
        '2001-char description',
        { slug: unique('d'), url: 'https://e.test', description: 'é'.repeat(2001) },
        'INVALID_FIELD_LENGTH',
        'description must be at most 2000 characters',
      ],
      ['javascript url', { slug: unique('j'), url: 'javascript:alert(1)' }, 'INVALID_URL', 'url must start with http:// or https://'],
      ['hostless url', { slug: unique('h'), url: 'https://' }, 'INVALID_URL', 'url must include a host (e.g. https://example.com)'],
      [
        'duplicate variable',
        { slug: unique('v'), url: 'https://x.test/$foo/$foo' },
        'INVALID_URL',
        'duplicate variable name in URL template: $foo',
      ],
      ['reserved slug', { slug: 'links', url: 'https://e.test' }, 'INVALID_SLUG', reservedMessage('links')],
      ['uppercase slug', { slug: 'Jira', url: 'https://e.test' }, 'INVALID_SLUG', 'slug must match [a-z0-9][a-z0-9-]*[a-z0-9]'],
      ['leading hyphen', { slug: '-foo', url: 'https://e.test' }, 'INVALID_SLUG', 'slug must match [a-z0-9][a-z0-9-]*[a-z0-9]'],
      ['129-char slug', { slug: 'a'.repeat(129), url: 'https://e.test' }, 'INVALID_SLUG', 'slug must be at most 128 characters'],
      [
        'bad visibility',
        { slug: unique('vis'), url: 'https://e.test', visibility: 'hidden' },
        'INVALID_VISIBILITY',
        'visibility must be one of: public, private, secure, internal',
      ],
      [
        '21 tags',
        { slug: unique('many'), url: 'https://e.test', tags: Array.from({ length: 21 }, (_, i) => `t${i}`) },
        'TOO_MANY_TAGS',
        'a link may have at most 20 tags',
      ],
      [
        'script tag',
        { slug: unique('xss'), url: 'https://e.test', tags: ['ok', '<script>'] },
        'INVALID_TAG_NAME',
        'tag names must start with a letter or digit and may contain only letters, digits, spaces, hyphens, and underscores: "<script>"',
      ],
      [
        '51-char tag',
        { slug: unique('long'), url: 'https://e.test', tags: ['a'.repeat(51)] },
        'INVALID_TAG_NAME',
        `tag names must be at most 50 characters: "${'a'.repeat(51)}"`,
      ],
      [
        'past expiry',
        { slug: unique('past'), url: 'https://e.test', expiresAt: c.clock.now - 1000 },
        'INVALID_EXPIRES_AT',
        'expiration must be in the future',
      ],
    ];
    for (const [name, input, code, message] of cases) {
      const before = await rowCounts(c);
      await assert.rejects(createLink(c.store, input, u.id), isAppError(code, message), name);
      assert.deepEqual(await rowCounts(c), before, `${name} changed the database`);
      if (code !== 'INVALID_SLUG') assert.equal(await c.store.links.slugTaken(input.slug!), false, name);
    }
  });

  test('200 multi-byte code points are a valid title', async () => {
    const { store } = ctx();
    const u = await newUser(store);
    const title = '😀'.repeat(200);
    const link = await createLink(store, { slug: unique('emoji'), url: 'https://e.test', title, description: 'ü'.repeat(2000) }, u.id);
    assert.equal((await store.links.get(link.id))!.title, title);
  });

  test('invalid updates are refused and leave the link, its tags and every table untouched', async () => {
    const c = ctx();
    const u = await newUser(c.store);
    const link = await createLink(c.store, { slug: unique('keep'), url: 'https://keep.test', title: 'Keep', tags: ['one', 'two'] }, u.id);
    const original = await c.store.links.view(link.id);
    const cases: Array<[string, LinkChanges, ErrorCode]> = [
      ['21 tags', { title: 'changed', tags: Array.from({ length: 21 }, (_, i) => `n${i}`) }, 'TOO_MANY_TAGS'],
      ['script tag', { title: 'changed', tags: ['three', '<script>'] }, 'INVALID_TAG_NAME'],
      ['201-char title', { url: 'https://changed.test', title: 'y'.repeat(201), tags: ['three'] }, 'INVALID_FIELD_LENGTH'],
      ['bad url', { url: 'data:text/html,hi', tags: ['three'] }, 'INVALID_URL'],
      ['bad visibility', { visibility: 'everyone', title: 'changed' }, 'INVALID_VISIBILITY'],
    ];
    for (const [name, patch, code] of cases) {
      const before = await rowCounts(c);
      await assert.rejects(updateLink(c.store, link.id, patch), isAppError(code), name);
      assert.deepEqual(await rowCounts(c), before, `${name} changed the database`);
      assert.deepEqual(await c.store.links.view(link.id), original, `${name} changed the link`);
    }
  });

  test('a create whose share list names a missing user fails and leaves nothing behind', async () => {
    const c = ctx();
    const owner = await newUser(c.store);
    const reader = await newUser(c.store);
    const slug = unique('atomic');
    const before = await rowCounts(c);
    await assert.rejects(
      createLink(c.store, { slug, url: 'https://e.test', tags: ['Brand New Atomic Tag'] }, owner.id, {
        shareWith: [reader.id, randomUUID()],
      }),
      isAppError('NOT_FOUND'),
    );
    assert.deepEqual(await rowCounts(c), before, 'no link, owner, tag, tag link or share row remains');
    assert.equal(await c.store.links.getBySlug(slug), null);
    assert.equal(await c.store.tags.findBySlug('brand-new-atomic-tag'), null);
    // The slug is still free afterwards.
    const ok = await createLink(c.store, { slug, url: 'https://e.test' }, owner.id, { shareWith: [reader.id, owner.id] });
    assert.deepEqual(
      (await c.store.shares.list(ok.id)).map((s) => s.userId),
      [reader.id],
      'the creator is never share-listed for their own link',
    );
  });
});

describeEachDatabase('link store: races', (ctx) => {
  test('two concurrent creates of one slug: exactly one wins, the other gets SLUG_CONFLICT', async () => {
    const { store } = ctx();
    const a = await newUser(store);
    const b = await newUser(store);
    const slug = unique('race');
    const results = await Promise.allSettled([
      createLink(store, { slug, url: 'https://a.test' }, a.id),
      createLink(store, { slug, url: 'https://b.test' }, b.id),
    ]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    assert.equal(won.length, 1);
    assert.equal(lost.length, 1);
    isAppError('SLUG_CONFLICT', 'slug is already taken')(lost[0]!.reason);
    const stored = await store.links.getBySlug(slug);
    const owners = await store.owners.list(stored!.id);
    assert.equal(owners.length, 1, 'the loser left no owner row behind');
  });

  test('many concurrent creates of one slug past the friendly check: one row, every loser SLUG_CONFLICT', async () => {
    const { store, db } = ctx();
    const u = await newUser(store);
    const slug = unique('stampede');
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => createLink(store, { slug, url: `https://e.test/${i}`, tags: [`stampede ${i}`] }, u.id)),
    );
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    for (const r of results) if (r.status === 'rejected') isAppError('SLUG_CONFLICT')(r.reason);
    const rows = await db.kysely.selectFrom('links').select('id').where('slug', '=', slug).execute();
    assert.equal(rows.length, 1);
    const tagLinks = await db.kysely.selectFrom('link_tags').select('link_id').where('link_id', '=', rows[0]!.id).execute();
    assert.equal(tagLinks.length, 1);
  });

  test('the unique index alone reports a taken slug as SLUG_CONFLICT', async (t) => {
    const { store, config, clock } = ctx();
    if (config.driver === 'sqlite3') {
      // A write transaction on SQLite holds the file's write lock from its BEGIN IMMEDIATE
      // (test/db/sqliteWrites.test.ts): no other connection can commit between the pre-check and the insert.
      t.skip('no other connection can commit inside a write transaction on SQLite');
      return;
    }
    const u = await newUser(store);
    const slug = unique('bypass');
    // Another replica (a second connection) commits the slug right after this
    // store's friendly pre-check has read it as free, so only the unique index
    // can catch the duplicate.
    const other = connect(config);
    let competed = false;
    const competitor: KyselyPlugin = {
      transformQuery: (args) => args.node,
      async transformResult(args) {
        if (!competed) {
          competed = true;
          await createLink(
            createStore(other, () => clock.now),
            { slug, url: 'https://winner.test' },
            u.id,
          );
        }
        return args.result;
      },
    };
    const racing = createStore({ ...ctx().db, kysely: ctx().db.kysely.withPlugin(competitor) }, () => clock.now);
    try {
      await assert.rejects(
        createLink(racing, { slug, url: 'https://loser.test' }, u.id),
        isAppError('SLUG_CONFLICT', 'slug is already taken'),
      );
    } finally {
      await other.close();
    }
    assert.ok(competed);
    assert.equal((await store.links.getBySlug(slug))!.url, 'https://winner.test');
  });

  test('concurrent creates with the same new tag both succeed and share one tag row', async () => {
    const { store, db } = ctx();
    const u = await newUser(store);
    const tagName = unique('Fresh Tag');
    const links = await Promise.all(
      Array.from({ length: 4 }, () =>
        createLink(store, { slug: unique('tagrace'), url: 'https://e.test', tags: [tagName, 'common'] }, u.id),
      ),
    );
    const slug = tagName.toLowerCase().replace(/ /g, '-');
    const tagRows = await db.kysely.selectFrom('tags').select('id').where('slug', '=', slug).execute();
    assert.equal(tagRows.length, 1);
    for (const l of links) {
      // Listed by name in byte order: the capitalised name sorts before `common`.
      assert.deepEqual(
        l.tags.map((t) => t.name),
        [tagName, 'common'],
      );
      assert.equal(l.tags.find((t) => t.slug === slug)!.id, tagRows[0]!.id);
    }
  });

  test('concurrent tag updates of different links with a shared new tag all succeed', async () => {
    const { store } = ctx();
    const u = await newUser(store);
    const links = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        createLink(store, { slug: unique('retagrace'), url: 'https://e.test', tags: [`old ${i}`] }, u.id),
      ),
    );
    const tagName = unique('Updated Tag');
    const updated = await Promise.all(links.map((l) => updateLink(store, l.id, { tags: [tagName] })));
    const ids = new Set(updated.map((l) => l.tags[0]!.id));
    assert.equal(ids.size, 1);
  });
});

describeEachDatabase('link store: a page recently used first', (ctx) => {
  test('recent: the newest click first, never-clicked links after them by slug, counted and paged as by slug', async () => {
    const { store } = ctx();
    const owner = await newUser(store);
    const prefix = unique('recent');
    const make = (name: string) => createLink(store, { slug: `${prefix}-${name}`, url: 'https://example.com/' }, owner.id);
    const [apple, banana, cherry, date, elder] = await Promise.all(['apple', 'banana', 'cherry', 'date', 'elder'].map(make));
    const click = (linkId: string, at: number) => ({
      id: randomUUID(),
      link_id: linkId,
      user_id: null,
      ip_hash: 'h',
      user_agent: null,
      referrer: null,
      clicked_at: at,
    });
    const t = Date.UTC(2026, 0, 10);
    // banana: clicked long ago and once lately; date: the latest; apple and elder never.
    await store.clicks.insertBatch([
      click(banana!.id, t - 86_400_000),
      click(banana!.id, t + 1_000),
      click(date!.id, t + 5_000),
      click(cherry!.id, t),
    ]);
    const viewer = { id: owner.id, isAdmin: false };
    const all = await store.links.page({ scope: 'owned', viewer, limit: 10 }, 0, 'recent');
    assert.equal(all.total, 5);
    assert.deepEqual(
      all.links.map((l) => l.slug.slice(prefix.length + 1)),
      ['date', 'banana', 'cherry', 'apple', 'elder'],
    );
    const second = await store.links.page({ scope: 'owned', viewer, limit: 2 }, 2, 'recent');
    assert.deepEqual(
      second.links.map((l) => l.id),
      [cherry!.id, apple!.id],
    );
    const bySlug = await store.links.page({ scope: 'owned', viewer, limit: 10 }, 0);
    assert.deepEqual(
      bySlug.links.map((l) => l.id),
      [apple!.id, banana!.id, cherry!.id, date!.id, elder!.id],
    );
  });
});
