import assert from 'node:assert/strict';
import { test } from 'node:test';
import { asUser, LinkService, type LinkEvent } from '../../src/links/index.js';
import type { User } from '../../src/store/types.js';
import { describeEachDatabase } from '../helpers/databases.js';

/**
 * Aliases and path forwarding through the links application layer, on every
 * database (docs/links.md#aliases, docs/links.md#path-and-query-forwarding):
 * one namespace for slugs and aliases, enforced by the database too, and
 * every change to them an event with its before and after.
 */

let n = 0;
const unique = (p: string) => `${p}-${++n}-${process.pid}`;

describeEachDatabase('aliases and forwarding in the links layer', (ctx) => {
  let service: LinkService;
  let owner: User;
  const seen: LinkEvent[] = [];
  const events = async () => {
    await service.events.idle();
    return seen.splice(0);
  };
  const setup = async () => {
    if (service) return;
    const { store } = ctx();
    service = new LinkService(store);
    service.events.subscribe((e) => void seen.push(e));
    owner = await store.users.create({ email: `${unique('owner')}@example.test`, displayName: 'Owner' });
  };
  const create = (slug: string, extra: { aliases?: string[]; forwardPathAndQuery?: boolean } = {}) =>
    service.create(asUser(owner), { slug, url: `https://${slug}.test/`, ...extra });
  const refused = async (p: Promise<unknown>, code: string, message?: RegExp) => {
    await assert.rejects(p, (e: { code?: string; message?: string }) => {
      assert.equal(e.code, code);
      if (message) assert.match(e.message ?? '', message);
      return true;
    });
  };

  test('a link keeps its aliases sorted and de-duplicated, and the created event carries them', async () => {
    await setup();
    await events();
    const slug = unique('cal');
    const view = await create(slug, { aliases: [` ${slug}-z `, `${slug}-a`, `${slug}-z`, ''], forwardPathAndQuery: true });
    assert.deepEqual(view.aliases, [`${slug}-a`, `${slug}-z`]);
    assert.equal(view.forwardPathAndQuery, true);
    const [created] = await events();
    assert.equal(created!.kind, 'created');
    assert.deepEqual(created!.kind === 'created' && created!.changes.aliases, { from: null, to: [`${slug}-a`, `${slug}-z`] });
    assert.deepEqual(created!.kind === 'created' && created!.changes.forwardPathAndQuery, { from: null, to: true });
    const stored = await ctx().store.links.view(view.id);
    assert.deepEqual(stored!.aliases, [`${slug}-a`, `${slug}-z`]);
  });

  test('slugs and aliases share one namespace: every collision is a 409 naming its kind', async () => {
    await setup();
    const a = unique('ns-a');
    const b = unique('ns-b');
    await create(a, { aliases: [`${a}-alias`] });
    await refused(create(b, { aliases: [a] }), 'ALIAS_CONFLICT', new RegExp(`alias is already taken: "${a}"`));
    await refused(create(b, { aliases: [`${a}-alias`] }), 'ALIAS_CONFLICT');
    await refused(create(`${a}-alias`), 'SLUG_CONFLICT', /slug is already taken/);
    const other = await create(b);
    await refused(service.update(asUser(owner), other.id, { aliases: [a] }), 'ALIAS_CONFLICT');
    await refused(service.update(asUser(owner), other.id, { aliases: [`${a}-alias`] }), 'ALIAS_CONFLICT');
    assert.deepEqual((await ctx().store.links.view(other.id))!.aliases, [], 'a refused change wrote nothing');
    assert.equal(await ctx().store.links.slugTaken(`${a}-alias`), true, 'the slug check sees aliases');
  });

  test('alias rules: the slug rules, at most ten, never the link’s own slug', async () => {
    await setup();
    const s = unique('rules');
    await refused(create(s, { aliases: ['Upper'] }), 'INVALID_ALIAS', /alias must match .*"Upper"/);
    await refused(create(s, { aliases: ['api'] }), 'INVALID_ALIAS', /alias is reserved and cannot be used: "api"/);
    await refused(create(s, { aliases: ['a//b'] }), 'INVALID_ALIAS', /segments joined by single "\/".*"a\/\/b"/);
    await refused(create(s, { aliases: ['api/docs'] }), 'INVALID_ALIAS', /alias starts with a reserved word and cannot be used: "api"/);
    await refused(create(s, { aliases: [s] }), 'INVALID_ALIAS', /must differ from the link's slug/);
    await refused(create(s, { aliases: Array.from({ length: 11 }, (_, i) => `${s}-${i}`) }), 'TOO_MANY_ALIASES');
    const ten = await create(s, { aliases: Array.from({ length: 10 }, (_, i) => `${s}-${i}`) });
    assert.equal(ten.aliases.length, 10);
  });

  test('changing aliases is an updated event with before and after; the same set again is none', async () => {
    await setup();
    const { clock } = ctx();
    const s = unique('upd');
    const link = await create(s, { aliases: [`${s}-one`] });
    await events();
    clock.now += 1000;
    const changed = await service.update(asUser(owner), link.id, { aliases: [`${s}-two`, `${s}-one`], forwardPathAndQuery: true });
    assert.deepEqual(changed.aliases, [`${s}-one`, `${s}-two`]);
    assert.equal(changed.updatedAt, clock.now);
    const [updated] = await events();
    assert.equal(updated!.kind, 'updated');
    assert.deepEqual(updated!.kind === 'updated' && updated!.changes, {
      aliases: { from: [`${s}-one`], to: [`${s}-one`, `${s}-two`] },
      forwardPathAndQuery: { from: false, to: true },
    });
    clock.now += 1000;
    await service.update(asUser(owner), link.id, { aliases: [`${s}-two`, `${s}-one`] });
    assert.deepEqual(await events(), [], 'the same set in another order changes nothing');
    assert.equal((await ctx().store.links.get(link.id))!.updatedAt, changed.updatedAt);
    await service.update(asUser(owner), link.id, { aliases: [] });
    const [cleared] = await events();
    assert.deepEqual(cleared!.kind === 'updated' && cleared!.changes.aliases, { from: [`${s}-one`, `${s}-two`], to: [] });
  });

  test('an alias given up by one link may be taken by another; deleting a link frees all its names', async () => {
    await setup();
    const a = unique('free-a');
    const b = unique('free-b');
    const first = await create(a, { aliases: [`${a}-x`, `${a}-y`] });
    const second = await create(b);
    await service.update(asUser(owner), first.id, { aliases: [`${a}-y`] });
    assert.deepEqual((await service.update(asUser(owner), second.id, { aliases: [`${a}-x`] })).aliases, [`${a}-x`]);
    await service.delete(asUser(owner), first.id);
    await events();
    assert.deepEqual((await create(`${a}-y`)).aliases, [], 'the alias of a deleted link is a free slug');
    assert.equal((await create(a)).slug, a, 'so is its slug');
  });

  test('the database decides a race: the unique key refuses a name the friendly check missed', async () => {
    await setup();
    const { store } = ctx();
    const a = unique('race-a');
    const b = await create(unique('race-b'));
    await create(a);
    // Past the application's check, as a concurrent writer would be: the key still refuses.
    await refused(
      store.transaction((tx) => store.linkNames.setAliases(b.id, [a], tx)),
      'ALIAS_CONFLICT',
    );
    // And truly concurrent writers: one creates a slug while another takes it as an alias.
    for (let i = 0; i < 5; i++) {
      const name = unique('contended');
      const target = await create(unique('target'));
      const results = await Promise.allSettled([create(name), service.update(asUser(owner), target.id, { aliases: [name] })]);
      const won = results.filter((r) => r.status === 'fulfilled').length;
      assert.equal(won, 1, `exactly one writer gets "${name}": ${results.map((r) => r.status).join(', ')}`);
      const holders = await store.linkNames.holders([name]);
      assert.equal(holders.size, 1);
    }
  });
});
