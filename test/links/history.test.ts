import assert from 'node:assert/strict';
import { test } from 'node:test';
import { asSystem, asUser, historyRecorder, LinkService, type HistoryEvent } from '../../src/links/index.js';
import type { User } from '../../src/store/types.js';
import { describeEachDatabase } from '../helpers/databases.js';

/**
 * Link history on every database (docs/history.md): every change of the
 * links layer leaves its event in the same transaction, a change that rolls
 * back (or a dry run) leaves none, events outlive the link, pages never
 * repeat or skip an event, and a viewer without CanManageShares never learns
 * who changed the members, or whom.
 */

let n = 0;
const unique = (p: string) => `${p}-${++n}-${process.pid}`;

describeEachDatabase('link history', (ctx) => {
  const setup = () => {
    const { store } = ctx();
    const service = new LinkService(store, { recorders: [historyRecorder(store)] });
    const user = async (name: string, role: 'user' | 'admin' = 'user'): Promise<User> =>
      store.users.create({ email: `${unique(name)}@example.test`, displayName: name, role });
    const system = asSystem('test');
    /** Every event of a link, newest first, as an admin reads them. */
    const all = async (linkId: string): Promise<HistoryEvent[]> => {
      const out: HistoryEvent[] = [];
      let cursor: string | undefined;
      do {
        const page = await service.history(system, linkId, { limit: 200, cursor });
        out.push(...page.events);
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      return out;
    };
    const count = async () => (await store.linkEvents.page({}, { limit: 100_000 })).events.length;
    return { store, service, user, all, count };
  };

  test('every kind of change leaves one event with its actor, surface, time and changed fields', async () => {
    const { store, service, user, all } = setup();
    const ann = await user('Ann');
    const ben = await user('Ben');
    const cat = await user('Cat');
    const admin = await user('Root', 'admin');
    const web = asUser(ann, 'web');
    const api = asUser(ann, 'api');
    const t0 = ctx().clock.now;
    const link = await service.create(web, { slug: unique('hist'), url: 'https://a.test', title: 'A', tags: ['One'] });
    ctx().clock.now += 1000;
    await service.update(api, link.id, { title: 'B', tags: ['One', 'Two'], expiresAt: t0 + 86_400_000 });
    await service.archive(asUser(ann, 'mcp'), link.id);
    await service.unarchive(web, link.id);
    await service.renew(web, link.id);
    await service.setHealthChecks(web, link.id, true);
    await service.addOwner(web, link.id, ben.email);
    await service.removeOwner(web, link.id, ben.id);
    await service.addShare(asUser(admin, 'api'), link.id, cat.email);
    await service.removeShare(web, link.id, cat.id);

    const events = await all(link.id);
    assert.deepEqual(
      events.map((e) => e.kind),
      [
        'share_removed',
        'share_added',
        'owner_removed',
        'owner_added',
        'updated',
        'renewed',
        'unarchived',
        'archived',
        'updated',
        'created',
      ],
    );
    const created = events.at(-1)!;
    assert.equal(created.at, t0);
    assert.deepEqual(created.actor, { id: ann.id, email: ann.email, displayName: 'Ann' });
    assert.equal(created.via, 'web');
    assert.deepEqual(created.changes.url, { from: null, to: 'https://a.test' });
    assert.deepEqual(created.changes.tags, { from: null, to: ['One'] });
    const updated = events.at(-2)!;
    assert.equal(updated.via, 'api');
    assert.equal(updated.at, t0 + 1000);
    assert.deepEqual(updated.changes, {
      title: { from: 'A', to: 'B' },
      tags: { from: ['One'], to: ['One', 'Two'] },
      expiresAt: { from: null, to: t0 + 86_400_000 },
    });
    assert.equal(events.at(-3)!.via, 'mcp');
    assert.deepEqual(Object.keys(events.at(-3)!.changes), ['archivedAt']);
    assert.deepEqual(events.at(-5)!.changes, { expiresAt: { from: t0 + 86_400_000, to: null } });
    assert.deepEqual(events.at(-6)!.changes, { healthChecksDisabled: { from: false, to: true } });
    assert.deepEqual(events[3]!.member, { id: ben.id, email: ben.email, displayName: 'Ben' });
    assert.deepEqual(events[1]!.actor, { id: admin.id, email: admin.email, displayName: 'Root' });
    assert.deepEqual(events[1]!.member, { id: cat.id, email: cat.email, displayName: 'Cat' });
    assert.ok(events.every((e) => e.slug === link.slug && e.linkId === link.id && !e.redacted));
    assert.equal(new Set(events.map((e) => e.id)).size, events.length);

    // The system: no actor unless the operator named a user, and the surface it gave.
    await service.update(asSystem('cli'), link.id, { title: 'C' });
    await service.update(asSystem('cli', cat), link.id, { title: 'D' });
    const [onBehalf, cli] = await all(link.id);
    assert.equal(cli!.actor, null);
    assert.equal(cli!.via, 'cli');
    assert.deepEqual(onBehalf!.actor, { id: cat.id, email: cat.email, displayName: 'Cat' });
    assert.equal(onBehalf!.via, 'cli');

    // Deleting: the events stay, with the slug, and the last one says what the link was.
    await service.delete(web, link.id);
    assert.equal(await store.links.get(link.id), null);
    const audit = await service.auditEvents(asUser(admin), { slug: link.slug.toUpperCase() });
    assert.equal(audit.events.length, 13);
    const deleted = audit.events[0]!;
    assert.equal(deleted.kind, 'deleted');
    assert.deepEqual(deleted.changes.url, { from: 'https://a.test', to: null });
    assert.deepEqual(deleted.changes.title, { from: 'D', to: null });
  });

  test('an import names its format: created as `imported`, later changes carry the source', async () => {
    const { service, user, all, count } = setup();
    const ann = await user('Ann');
    const slug = unique('imp');
    const record = { slug, url: 'https://imp.test', title: 'T', description: '', tags: ['X'], owners: [ann.email] };
    const before = await count();
    const dry = await service.importRecord(asSystem('cli'), record, { fallbackOwnerId: null, dryRun: true, source: 'jsonl' });
    assert.equal(dry.action, 'created');
    assert.equal(await count(), before, 'a dry run records nothing');

    await service.importRecord(asSystem('cli', ann), record, { fallbackOwnerId: null, dryRun: false, source: 'jsonl' });
    const link = (await ctx().store.links.getBySlug(slug))!;
    await service.importRecord(asSystem('cli'), { ...record, title: 'U' }, { fallbackOwnerId: null, dryRun: false, source: 'csv' });
    const [updated, imported] = await all(link.id);
    assert.equal(imported!.kind, 'imported');
    assert.equal(imported!.source, 'jsonl');
    assert.deepEqual(imported!.actor, { id: ann.id, email: ann.email, displayName: 'Ann' });
    assert.deepEqual(imported!.changes.url, { from: null, to: 'https://imp.test' });
    assert.equal(updated!.kind, 'updated');
    assert.equal(updated!.source, 'csv');
    assert.deepEqual(updated!.changes, { title: { from: 'T', to: 'U' } });
  });

  test('events are written in the change’s transaction: a failing recorder undoes both, a refused change records nothing', async () => {
    const { store, service, user, count } = setup();
    const ann = asUser(await user('Ann'), 'web');
    const failing = new LinkService(store, {
      recorders: [
        historyRecorder(store),
        async () => {
          throw new Error('outbox refused');
        },
      ],
    });
    const link = await service.create(ann, { slug: unique('tx'), url: 'https://tx.test', title: 'kept' });
    const before = await count();
    await assert.rejects(failing.update(ann, link.id, { title: 'lost' }), /outbox refused/);
    assert.equal((await store.links.get(link.id))!.title, 'kept');
    const undone = unique('undone');
    await assert.rejects(failing.create(ann, { slug: undone, url: 'https://undone.test' }), /outbox refused/);
    assert.equal(await store.links.getBySlug(undone), null);
    assert.equal(await count(), before, 'the history rows rolled back with the change');

    // Refused before or inside the transaction: no event.
    await assert.rejects(service.create(ann, { slug: link.slug, url: 'https://dup.test' }), { code: 'SLUG_CONFLICT' });
    await assert.rejects(service.addOwner(ann, link.id, 'nobody@example.test'), { code: 'NOT_FOUND' });
    await assert.rejects(service.update(ann, link.id, { url: 'ftp://nope' }), { code: 'INVALID_URL' });
    // A change that changes nothing is no event either.
    await service.update(ann, link.id, { title: 'kept' });
    assert.equal(await count(), before);
  });

  test('user deletion: transfers, removals and deletions are recorded with the admin as actor', async () => {
    const { service, user, all } = setup();
    const admin = await user('Root', 'admin');
    const gone = await user('Gone');
    const other = await user('Other');
    const owned = await service.create(asUser(gone), { slug: unique('owned'), url: 'https://o.test' });
    const coOwned = await service.create(asUser(other), { slug: unique('co'), url: 'https://c.test' });
    await service.addOwner(asUser(other), coOwned.id, gone.email);
    await service.deleteUser(asUser(admin, 'web'), gone.id, { linkAction: 'reassign' });
    const [transferred] = await all(owned.id);
    assert.equal(transferred!.kind, 'transferred');
    assert.deepEqual(transferred!.actor, { id: admin.id, email: admin.email, displayName: 'Root' });
    assert.deepEqual(transferred!.changes.primaryOwner, {
      from: { id: gone.id, email: gone.email, displayName: 'Gone' },
      to: { id: admin.id, email: admin.email, displayName: 'Root' },
    });
    const [removed] = await all(coOwned.id);
    assert.equal(removed!.kind, 'owner_removed');
    assert.equal(removed!.member!.email, gone.email);
  });

  test('a viewer without CanManageShares sees member events without who or whom', async () => {
    const { service, user } = setup();
    const ann = await user('Ann');
    const ben = await user('Ben');
    const cat = await user('Cat');
    const link = await service.create(asUser(ann), { slug: unique('sec'), url: 'https://s.test', visibility: 'secure' });
    await service.addShare(asUser(ann), link.id, ben.email);
    await service.addOwner(asUser(ann), link.id, cat.email);
    await service.removeOwner(asUser(ann), link.id, cat.id);
    await service.update(asUser(ann), link.id, { title: 'T' });

    const asRecipient = await service.history(asUser(ben), link.id, {});
    assert.deepEqual(
      asRecipient.events.map((e) => e.kind),
      ['updated', 'owner_removed', 'owner_added', 'share_added', 'created'],
    );
    for (const e of asRecipient.events.filter((e) => e.kind !== 'updated' && e.kind !== 'created')) {
      assert.equal(e.actor, null);
      assert.equal(e.member, null);
      assert.deepEqual(e.changes, {});
      assert.equal(e.redacted, true);
      const text = JSON.stringify(e);
      for (const secret of [ann.email, ann.id, ben.email, ben.id, cat.email, cat.id, 'Cat', 'Ben']) {
        assert.ok(!text.includes(secret), `${e.kind} shows ${secret} to a share recipient`);
      }
    }
    assert.deepEqual(asRecipient.events[0]!.actor?.id, ann.id, 'who edited the fields is not a member secret');

    const asOwner = await service.history(asUser(ann), link.id, {});
    assert.equal(asOwner.events[1]!.member!.email, cat.email);
    assert.equal(asOwner.events[3]!.member!.email, ben.email);

    const stranger = await user('Eve');
    await assert.rejects(service.history(asUser(stranger), link.id, {}), { code: 'FORBIDDEN' });
    await assert.rejects(service.history(asUser(stranger), '00000000-0000-4000-8000-000000000000', {}), { code: 'NOT_FOUND' });
    await assert.rejects(service.auditEvents(asUser(ann), {}), { code: 'FORBIDDEN' });
  });

  test('pages follow one another without repeating or skipping, even while events are added; a bad cursor is refused', async () => {
    const { service, user, all } = setup();
    const ann = asUser(await user('Ann'));
    const link = await service.create(ann, { slug: unique('page'), url: 'https://p.test' });
    // Several events share one millisecond: the order is still the order they happened in.
    for (let i = 0; i < 12; i++) await service.update(ann, link.id, { title: `t${i}` });
    const expected = (await all(link.id)).map((e) => e.id);
    assert.equal(expected.length, 13);

    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await service.history(ann, link.id, { limit: 5, cursor });
      seen.push(...page.events.map((e) => e.id));
      cursor = page.nextCursor ?? undefined;
      // A change between two pages lands before the first page and moves no boundary.
      if (pages++ === 0) await service.update(ann, link.id, { title: 'meanwhile' });
    } while (cursor);
    assert.deepEqual(seen, expected);
    assert.equal(pages, 3);
    assert.deepEqual(
      (await all(link.id)).slice(1).map((e) => e.changes.title?.to),
      ['t11', 't10', 't9', 't8', 't7', 't6', 't5', 't4', 't3', 't2', 't1', 't0', ''],
    );

    for (const bad of [
      'x',
      'bm90IGEgY3Vyc29y',
      Buffer.from('abc\u0000not-a-uuid!').toString('base64url'),
      Buffer.from('0\u0000x').toString('base64'),
    ]) {
      await assert.rejects(service.history(ann, link.id, { cursor: bad }), { code: 'BAD_REQUEST', field: 'cursor' }, bad);
    }
    assert.equal((await service.history(ann, link.id, { limit: 0 })).events.length, 14, 'limit 0 means the default');
    assert.equal((await service.history(ann, link.id, { limit: 2 })).events.length, 2);
  });

  test('Newer pages walk back towards the newest: the same pages, in order, as Older walked', async () => {
    const { service, user } = setup();
    const ann = asUser(await user('Ann'));
    const link = await service.create(ann, { slug: unique('newer'), url: 'https://n.test' });
    for (let i = 0; i < 11; i++) await service.update(ann, link.id, { title: `t${i}` });
    const first = await service.history(ann, link.id, { limit: 5 });
    assert.equal(first.newerCursor, null, 'the newest page has nothing newer');
    const second = await service.history(ann, link.id, { limit: 5, cursor: first.nextCursor! });
    const third = await service.history(ann, link.id, { limit: 5, cursor: second.nextCursor! });
    assert.equal(third.events.length, 2);
    assert.equal(third.nextCursor, null);
    const ids = (p: { events: HistoryEvent[] }) => p.events.map((e) => e.id);

    const backToSecond = await service.history(ann, link.id, { limit: 5, newerThan: third.newerCursor! });
    assert.deepEqual(ids(backToSecond), ids(second));
    assert.ok(backToSecond.nextCursor !== null && backToSecond.newerCursor !== null, 'both ways go on from the middle page');
    const backToFirst = await service.history(ann, link.id, { limit: 5, newerThan: backToSecond.newerCursor! });
    assert.deepEqual(ids(backToFirst), ids(first));
    assert.equal(backToFirst.newerCursor, null);
    assert.deepEqual(ids(await service.history(ann, link.id, { limit: 5, cursor: backToFirst.nextCursor! })), ids(second));
    await assert.rejects(service.history(ann, link.id, { newerThan: 'x' }), { code: 'BAD_REQUEST', field: 'cursor' });
    // Asked for, a page also says where it sits: 12 events, pages of 5.
    const placed = await service.history(ann, link.id, { limit: 5, cursor: first.nextCursor!, withPosition: true });
    assert.deepEqual(placed.position, { from: 6, to: 10, total: 12 });
    assert.equal(first.position, undefined, 'counted only when asked');
  });

  test('the audit: every link’s events, filtered by slug, actor email and kind', async () => {
    const { service, user } = setup();
    const admin = asUser(await user('Root', 'admin'));
    const ann = await user('Ann');
    const ben = await user('Ben');
    const a = await service.create(asUser(ann, 'web'), { slug: unique('aud-a'), url: 'https://a.test' });
    const b = await service.create(asUser(ben, 'api'), { slug: unique('aud-b'), url: 'https://b.test' });
    await service.update(asUser(ben), b.id, { title: 'B' });
    await service.delete(asUser(ann), a.id);

    const byAnn = await service.auditEvents(admin, { actor: `  ${ann.email.toUpperCase()} ` });
    assert.deepEqual(
      byAnn.events.map((e) => `${e.kind}:${e.slug}`),
      [`deleted:${a.slug}`, `created:${a.slug}`],
    );
    const benUpdates = await service.auditEvents(admin, { actor: ben.email, kind: 'updated' });
    assert.deepEqual(
      benUpdates.events.map((e) => e.slug),
      [b.slug],
    );
    const deletions = await service.auditEvents(admin, { kind: 'deleted', slug: a.slug });
    assert.equal(deletions.events.length, 1);
    assert.equal((await service.auditEvents(admin, { slug: 'no-such-slug' })).events.length, 0);
    await assert.rejects(service.auditEvents(admin, { kind: 'exploded' }), { code: 'BAD_REQUEST', field: 'kind' });
    const everything = await service.auditEvents(admin, { limit: 200 });
    assert.ok(everything.events.length >= 4);
    const seqOrder = everything.events.map((e) => e.at);
    assert.deepEqual(
      seqOrder,
      [...seqOrder].sort((x, y) => y - x),
      'newest first',
    );
  });

  test('restore puts the fields back to what they were right after the event, as one restored event', async () => {
    const { store, service, user, all, count } = setup();
    const ann = await user('Ann');
    const as = asUser(ann, 'web');
    const link = await service.create(as, { slug: unique('rst'), url: 'https://one.test', title: 'One', tags: ['A'] });
    await service.update(as, link.id, { url: 'https://two.test', title: 'Two', tags: ['A', 'B'], description: 'd' });
    await service.setHealthChecks(as, link.id, true);
    await service.archive(as, link.id);
    await service.update(as, link.id, { url: 'https://three.test', visibility: 'private' });
    const [, archived, , second, first] = await all(link.id);

    const restored = await service.restore(asUser(ann, 'api'), link.id, second!.id);
    assert.equal(restored.url, 'https://two.test');
    assert.equal(restored.title, 'Two');
    assert.equal(restored.description, 'd');
    assert.deepEqual(
      restored.tags.map((t) => t.name),
      ['A', 'B'],
    );
    assert.equal(restored.visibility, 'public');
    assert.equal(restored.healthChecksDisabled, false);
    assert.notEqual(restored.archivedAt, null, 'the archive state is not a version');
    const [event] = await all(link.id);
    assert.equal(event!.kind, 'restored');
    assert.equal(event!.via, 'api');
    assert.deepEqual(event!.restores, { eventId: second!.id, at: second!.at });
    assert.deepEqual(event!.changes, {
      url: { from: 'https://three.test', to: 'https://two.test' },
      visibility: { from: 'private', to: 'public' },
      healthChecksDisabled: { from: true, to: false },
    });

    // Back to the very first version, across the restore itself.
    const original = await service.restore(as, link.id, first!.id);
    assert.equal(original.url, 'https://one.test');
    assert.equal(original.title, 'One');
    assert.equal(original.description, '');
    assert.deepEqual(
      original.tags.map((t) => t.name),
      ['A'],
    );
    // Restoring the version the link is at changes nothing and records nothing.
    const before = await count();
    await service.restore(as, link.id, first!.id);
    assert.equal(await count(), before);
    // A lifecycle event is a version too: right after archiving, the fields were those of `second` with checks off.
    const again = await service.restore(as, link.id, archived!.id);
    assert.equal(again.url, 'https://two.test');
    assert.equal(again.healthChecksDisabled, true);
    assert.equal((await store.links.get(link.id))!.visibility, 'public');
  });

  test('restore refuses what today’s rules refuse (409), member events (400), other links’ events (404) and non-editors', async () => {
    const { store, service, user, all, count } = setup();
    const ann = await user('Ann');
    const ben = await user('Ben');
    const eve = await user('Eve');
    const as = asUser(ann);
    const now = ctx().clock.now;
    const link = await service.create(as, { slug: unique('rfz'), url: 'https://one.test', visibility: 'secure' });
    await service.update(as, link.id, { title: 'expiring', expiresAt: now + 3_600_000 });
    await service.renew(as, link.id);
    await service.addShare(as, link.id, ben.email);
    const [shared, , expiring] = await all(link.id);
    const snapshot = async () => JSON.stringify(await store.links.view(link.id));

    ctx().clock.now += 2 * 3_600_000;
    const unchanged = await snapshot();
    const events = await count();
    await assert.rejects(service.restore(as, link.id, expiring!.id), (e: unknown) => {
      const err = e as { code: string; field?: string; message: string; status: number };
      assert.equal(err.code, 'RESTORE_CONFLICT');
      assert.equal(err.status, 409);
      assert.equal(err.field, 'expires_at');
      assert.match(err.message, /cannot be restored: expiration must be in the future/);
      return true;
    });
    await assert.rejects(service.restore(as, link.id, shared!.id), { code: 'NOT_RESTORABLE', status: 400 });
    await assert.rejects(
      service.restore(asUser(ben), link.id, expiring!.id),
      { code: 'FORBIDDEN' },
      'a share recipient may read, not restore',
    );
    await assert.rejects(service.restore(asUser(eve), link.id, expiring!.id), { code: 'FORBIDDEN' });
    await assert.rejects(service.restore(as, '00000000-0000-4000-8000-000000000000', expiring!.id), { code: 'NOT_FOUND' });
    for (const bad of ['00000000-0000-4000-8000-000000000000', 'not-an-id', '']) {
      await assert.rejects(service.restore(as, link.id, bad), { code: 'NOT_FOUND', field: 'event_id' });
    }
    // Another link's event, and a deleted link's, are not this link's versions.
    const other = await service.create(as, { slug: unique('oth'), url: 'https://other.test' });
    const [otherCreated] = await all(other.id);
    await assert.rejects(service.restore(as, link.id, otherCreated!.id), { code: 'NOT_FOUND' });
    await service.delete(as, other.id);
    const [gone] = (await service.auditEvents(asUser(await user('Root', 'admin')), { slug: other.slug })).events;
    assert.equal(gone!.kind, 'deleted');
    await assert.rejects(service.restore(as, link.id, gone!.id), { code: 'NOT_FOUND' });
    assert.equal(await snapshot(), unchanged, 'nothing changed on refusal');
    assert.equal(await count(), events + 2, 'only the other link’s create and delete were recorded');

    // A failing recorder undoes a restore like any change.
    const failing = new LinkService(store, {
      recorders: [
        historyRecorder(store),
        async () => {
          throw new Error('outbox refused');
        },
      ],
    });
    const [, , , created] = await all(link.id);
    await assert.rejects(failing.restore(as, link.id, created!.id), /outbox refused/);
    assert.equal(await snapshot(), unchanged);
  });

  test('an expiry that has passed may stay when the link still has it; a value today’s rules refuse is a 409 naming the field', async () => {
    const { store, service, user, all } = setup();
    const as = asUser(await user('Ann'));
    const now = ctx().clock.now;
    const link = await service.create(as, { slug: unique('old'), url: 'https://old.test', title: 'First', expiresAt: now + 1000 });
    await service.update(as, link.id, { title: 'Second' });
    const [, created] = await all(link.id);
    ctx().clock.now += 5000;
    const back = await service.restore(as, link.id, created!.id);
    assert.equal(back.title, 'First');
    assert.equal(back.expiresAt, now + 1000, 'the expiry is the one the link has: no change, no refusal');

    // A URL stored under older rules: the event that replaced it is recorded, the rules refuse it now.
    await store.linkEvents.insert(
      [
        {
          id: '11111111-1111-4111-8111-111111111111',
          linkId: link.id,
          slug: link.slug,
          kind: 'updated',
          at: ctx().clock.now,
          via: null,
          actorId: null,
          actorEmail: null,
          actorName: null,
          data: JSON.stringify({ changes: { url: { from: 'ftp://legacy.test', to: 'https://old.test' } } }),
        },
      ],
      store.db.kysely,
    );
    const [, restoredEvent] = await all(link.id);
    assert.equal(restoredEvent!.kind, 'restored');
    await assert.rejects(service.restore(as, link.id, restoredEvent!.id), { code: 'RESTORE_CONFLICT', field: 'url' });
    assert.equal((await store.links.get(link.id))!.url, 'https://old.test');
  });
});
