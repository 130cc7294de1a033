import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../../src/domain/errors.js';
import { asSystem, asUser, LinkService, type LinkEvent } from '../../src/links/index.js';
import type { User } from '../../src/store/types.js';
import { describeEachDatabase } from '../helpers/databases.js';

/**
 * The links application layer on every database: one event per committed
 * change, published only after the commit, none for a change that changes
 * nothing, fails or is a dry run; and the one access rule.
 */

let n = 0;
const unique = (p: string) => `${p}-${++n}-${process.pid}`;

describeEachDatabase('links application layer', (ctx) => {
  const setup = async () => {
    const { store } = ctx();
    const service = new LinkService(store);
    const seen: Array<{ event: LinkEvent; visible: boolean }> = [];
    // A listener reads through the store, outside the writer's transaction: it must see what the event describes.
    service.events.subscribe(async (event) => {
      const stored = await store.links.get(event.linkId);
      seen.push({ event, visible: event.kind === 'deleted' ? stored === null : stored !== null });
    });
    const user = async (name: string, role: 'user' | 'admin' = 'user'): Promise<User> =>
      store.users.create({ email: `${unique(name)}@example.test`, displayName: name, role });
    const events = async () => {
      await service.events.idle();
      return seen.splice(0).map((s) => {
        assert.ok(s.visible, `${s.event.kind} was published before its change could be read`);
        return s.event;
      });
    };
    return { store, service, user, events };
  };

  test('each committed change publishes one event naming what changed and who changed it', async () => {
    const { service, user, events } = await setup();
    const ann = await user('Ann');
    const ben = await user('Ben');
    const as = asUser(ann);
    const link = await service.create(as, { slug: unique('ev'), url: 'https://a.test', title: 'A', tags: ['One'] });
    let got = await events();
    assert.deepEqual(
      got.map((e) => e.kind),
      ['created'],
    );
    assert.deepEqual(got[0]!.actor, { kind: 'user', id: ann.id, email: ann.email, displayName: 'Ann' });
    assert.equal(got[0]!.kind === 'created' && got[0]!.changes.url?.to, 'https://a.test');

    await service.update(as, link.id, { title: 'B', tags: ['One', 'Two'] });
    got = await events();
    assert.equal(got.length, 1);
    const updated = got[0]!;
    assert.equal(updated.kind, 'updated');
    assert.deepEqual(updated.kind === 'updated' && updated.changes, {
      title: { from: 'A', to: 'B' },
      tags: { from: ['One'], to: ['One', 'Two'] },
    });

    await service.archive(as, link.id);
    await service.unarchive(as, link.id);
    await service.addOwner(as, link.id, ben.email);
    await service.removeOwner(as, link.id, ben.id);
    await service.delete(as, link.id);
    assert.deepEqual(
      (await events()).map((e) => e.kind),
      ['archived', 'unarchived', 'owner_added', 'owner_removed', 'deleted'],
    );
  });

  test('a change that changes nothing publishes nothing and leaves updated_at alone', async () => {
    const { store, service, user, events, clock } = { ...(await setup()), clock: ctx().clock };
    const ann = asUser(await user('Ann'));
    const link = await service.create(ann, { slug: unique('same'), url: 'https://same.test', title: 'Same', tags: ['T'] });
    await events();
    clock.now += 60_000;
    await service.update(ann, link.id, { url: 'https://same.test', title: 'Same', tags: ['T'] });
    await service.unarchive(ann, link.id);
    await service.setHealthChecks(ann, link.id, false);
    assert.deepEqual(await events(), []);
    assert.equal((await store.links.get(link.id))!.updatedAt, link.updatedAt);
    await service.archive(ann, link.id);
    const archivedAt = (await store.links.get(link.id))!.archivedAt;
    clock.now += 60_000;
    await service.archive(ann, link.id);
    assert.equal((await events()).length, 1, 'archiving again is no change');
    assert.equal((await store.links.get(link.id))!.archivedAt, archivedAt, 'the first archive time is kept');
  });

  test('a refused or failed change writes nothing and publishes nothing', async () => {
    const { store, service, user, events } = await setup();
    const ann = asUser(await user('Ann'));
    const eve = asUser(await user('Eve'));
    const link = await service.create(ann, { slug: unique('keep'), url: 'https://keep.test', visibility: 'private' });
    await events();
    const before = JSON.stringify(await store.links.view(link.id));
    await assert.rejects(service.update(ann, link.id, { url: 'javascript:alert(1)' }), { code: 'INVALID_URL' });
    await assert.rejects(service.update(ann, link.id, { title: 'ok', tags: ['<bad>'] }), { code: 'INVALID_TAG_NAME' });
    await assert.rejects(service.update(eve, link.id, { title: 'mine now' }), { code: 'FORBIDDEN' });
    await assert.rejects(service.delete(eve, link.id), { code: 'FORBIDDEN' });
    await assert.rejects(service.addOwner(ann, link.id, 'nobody@example.test'), { code: 'NOT_FOUND' });
    await assert.rejects(service.create(ann, { slug: link.slug, url: 'https://dup.test' }), { code: 'SLUG_CONFLICT' });
    await assert.rejects(service.create(ann, { slug: unique('s'), url: 'https://x.test', shareWith: ['nobody@example.test'] }), {
      code: 'NOT_FOUND',
    });
    assert.equal(JSON.stringify(await store.links.view(link.id)), before);
    assert.deepEqual(await events(), []);
  });

  test('a dry-run import validates and rolls back, publishing nothing', async () => {
    const { store, service, user, events } = await setup();
    const ann = await user('Ann');
    const slug = unique('dry');
    const outcome = await service.importRecord(
      asSystem('test'),
      { slug, url: 'https://dry.test', title: '', description: '', tags: ['Dry'], owners: [ann.email] },
      { fallbackOwnerId: null, dryRun: true, source: 'jsonl' },
    );
    assert.equal(outcome.action, 'created');
    assert.equal(await store.links.getBySlug(slug), null);
    assert.deepEqual(await events(), []);
    await service.importRecord(
      asSystem('test'),
      { slug, url: 'https://dry.test', title: '', description: '', tags: ['Dry'], owners: [ann.email] },
      { fallbackOwnerId: null, dryRun: false, source: 'jsonl' },
    );
    const got = await events();
    assert.deepEqual(
      got.map((e) => [e.kind, e.actor]),
      [['created', { kind: 'system', via: 'test' }]],
    );
  });

  test('a failing listener never undoes or fails the change', async () => {
    const { store, user } = await setup();
    const errors: unknown[] = [];
    const { LinkEventBus } = await import('../../src/links/index.js');
    const bus = new LinkEventBus((err) => errors.push(err));
    bus.subscribe(() => {
      throw new Error('listener broke');
    });
    bus.subscribe(() => Promise.reject(new Error('listener rejected')));
    const service = new LinkService(store, { events: bus });
    const link = await service.create(asUser(await user('Ann')), { slug: unique('robust'), url: 'https://r.test' });
    await bus.idle();
    assert.ok(await store.links.get(link.id));
    assert.deepEqual(
      errors.map((e) => (e as Error).message),
      ['listener broke', 'listener rejected'],
    );
  });

  test('recorders run inside the transaction of the change: they see its events, and one that throws undoes the change', async () => {
    const { store, user } = await setup();
    const ann = asUser(await user('Ann'));
    const recorded: string[] = [];
    const recording = new LinkService(store, {
      recorders: [
        async (tx, events) => {
          // Inside the transaction the change is already readable.
          for (const e of events) if (await store.links.get(e.linkId, tx)) recorded.push(`${e.kind}:${e.slug}`);
        },
      ],
    });
    const slug = unique('rec');
    await recording.create(ann, { slug, url: 'https://rec.test' });
    assert.deepEqual(recorded, [`created:${slug}`]);

    const refusing = new LinkService(store, {
      recorders: [
        async () => {
          throw new Error('recorder refused');
        },
      ],
    });
    const undone = unique('undone');
    await assert.rejects(refusing.create(ann, { slug: undone, url: 'https://undone.test' }), /recorder refused/);
    assert.equal(await store.links.getBySlug(undone), null);
  });

  test('access: unknown is not_found before any capability, a stranger is forbidden, an owner and an admin are ok', async () => {
    const { service, user } = await setup();
    const ann = asUser(await user('Ann'));
    const eve = asUser(await user('Eve'));
    const admin = asUser(await user('Root', 'admin'));
    const link = await service.create(ann, { slug: unique('acc'), url: 'https://acc.test', visibility: 'secure' });
    assert.equal((await service.access(eve, { id: '00000000-0000-4000-8000-000000000000' }, 'canView')).outcome, 'not_found');
    assert.equal((await service.access(eve, { id: 'not-a-uuid' }, 'canView')).outcome, 'not_found');
    assert.equal((await service.access(eve, { id: link.id }, 'canEdit')).outcome, 'forbidden');
    assert.equal((await service.access(ann, { slugOrId: ` ${link.slug.toUpperCase()} ` }, 'canEdit')).outcome, 'ok');
    assert.equal((await service.access(admin, { slugOrId: link.id }, 'canDelete')).outcome, 'ok');
    assert.equal((await service.access(asSystem('cli'), { id: link.id }, 'canDelete')).outcome, 'ok');
  });

  test('the system may create only for a named owner; a user may not create for someone else', async () => {
    const { service, user } = await setup();
    const ann = await user('Ann');
    const ben = await user('Ben');
    await assert.rejects(service.create(asSystem('cli'), { slug: unique('o'), url: 'https://o.test' }), (e: unknown) => {
      return e instanceof AppError && e.code === 'BAD_REQUEST' && e.field === 'owner';
    });
    await assert.rejects(service.create(asUser(ann), { slug: unique('o'), url: 'https://o.test', ownerId: ben.id }), { code: 'FORBIDDEN' });
    const made = await service.create(asSystem('cli'), { slug: unique('o'), url: 'https://o.test', ownerId: ben.id });
    assert.deepEqual(
      made.owners.map((o) => [o.userId, o.isPrimary]),
      [[ben.id, true]],
    );
  });

  test('finding people by email ignores case and surrounding spaces', async () => {
    const { store, service } = await setup();
    const name = unique('Carol.Smith');
    const carol = await store.users.create({ email: `${name}@Example.TEST`, displayName: 'Carol' });
    assert.equal((await service.userByEmail(`  ${name.toLowerCase()}@example.test `)).id, carol.id);
    assert.equal((await service.userByEmail(`${name.toUpperCase()}@EXAMPLE.test`)).id, carol.id);
    await assert.rejects(service.userByEmail('   '), { code: 'BAD_REQUEST', message: 'email is required' });
    await assert.rejects(service.userByEmail(`${name}@example.org`), { code: 'NOT_FOUND' });
  });
});
