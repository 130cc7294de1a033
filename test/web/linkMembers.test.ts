import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { asUser } from '../../src/links/index.js';
import type { TestServer } from '../helpers/server.js';
import { createLink, linkService } from '../helpers/links.js';
import { flashOf, has, lacks, mainOf, signedIn, startWebServer, textOf, toastOf, type Client } from './support.js';

describe('groups on the link page and the people-and-groups picker (docs/web-ui.md#link-detail-page)', () => {
  let s: TestServer;
  let ana: Client;
  let ben: Client;
  let dee: Client;
  let linkId: string;
  let secureId: string;
  before(async () => {
    s = await startWebServer({ env: { JOE_SHORT_KEYWORD: 'go' } });
    ana = await signedIn(s, 'ana@x.io', { name: 'Ana' });
    ben = await signedIn(s, 'ben@x.io', { name: 'Ben Braun' });
    dee = await signedIn(s, 'dee@x.io', { name: 'Dee' });
    // Someone in no group: found only by the full email.
    await signedIn(s, 'hidden@x.io', { name: 'Bennet Hidden' });
    const svc = linkService(s.store);
    await svc.createGroup(asUser(ben.user!), { name: 'platform', description: 'Platform team' });
    await svc.createGroup(asUser(dee.user!), { name: 'design' });
    linkId = (await createLink(s.store, { slug: 'runbook', url: 'https://runbook.example' }, ana.user!.id)).id;
    secureId = (await createLink(s.store, { slug: 'vault', url: 'https://vault.example', visibility: 'secure' }, ana.user!.id)).id;
  });
  after(async () => s.stop());

  test('suggestions: groups by name, people in some group by name or email, anyone else only by full email; two letters first', async () => {
    const suggest = async (c: Client, typed: string) =>
      c.page(`/dashboard/links/${linkId}/owners/suggest?email=${encodeURIComponent(typed)}`, { htmx: true });
    assert.equal((await suggest(ana, 'p')).body, '', 'one letter asks for nothing');
    const pl = await suggest(ana, 'PL');
    assert.equal(pl.status, 200);
    has(pl.body, /role="listbox"/);
    has(pl.body, /role="option"[^>]*data-pick-kind="group" data-pick-value="platform"/);
    has(textOf(pl.body), /platform group Platform team/);
    const be = textOf((await suggest(ana, 'be')).body);
    has(be, /Ben Braun ben@x\.io/, 'Ben is in a group: suggested by name');
    lacks(be, /Bennet|hidden@x\.io/, 'someone in no group is not listed by a part of their name');
    has(textOf((await suggest(ana, 'hidden@x.io')).body), /Bennet Hidden hidden@x\.io/, 'the full email finds them, as the add form would');
    has(textOf((await suggest(ana, 'zz')).body), /No person or group matches "zz"/);
    // Only those who may add owners get suggestions for the link.
    assert.equal((await suggest(ben, 'pl')).status, 403);
  });

  test('choosing a group makes it a co-owner, listed as a group linking to its page; its members then hold the link; removing it ends that', async () => {
    const r = await ana.send('POST', `/dashboard/links/${linkId}/owners`, { email: 'platform', group: 'platform' }, { htmx: true });
    assert.equal(r.status, 200);
    assert.deepEqual(toastOf(r), { level: 'success', message: 'The group platform is now a co-owner.' });
    has(r.body, /<a href="\/dashboard\/groups\/platform"[^>]*>platform<\/a><span class="badge badge-sm badge-secondary">group<\/span>/);
    // Ben is a member of platform: he may now manage the link's owners.
    const asBen = mainOf((await ben.page(`/dashboard/links/${linkId}`)).body);
    has(asBen, /hx-post="\/dashboard\/links\/[^"]+\/owners"/);
    has(textOf(asBen), /platform group/);

    const again = await ana.send('POST', `/dashboard/links/${linkId}/owners`, { email: 'platform', group: 'platform' }, { htmx: true });
    has(again.body, /member-noticed[\s\S]*?platform is already an owner\./);
    assert.equal(toastOf(again), null);

    const group = (await s.store.groups.byName('platform'))!;
    const removed = await ana.send('DELETE', `/dashboard/links/${linkId}/owners/groups/${group.id}`, {}, { htmx: true });
    assert.deepEqual(toastOf(removed), { level: 'success', message: 'The group platform is no longer a co-owner.' });
    lacks(removed.body, /\/dashboard\/groups\/platform/);
    assert.equal((await ben.page(`/dashboard/links/${linkId}`)).status, 403, 'Ben held the link only through platform');
  });

  test('without JavaScript a typed group name adds the group; an unknown name is said beside the field', async () => {
    const unknown = await ana.send('POST', `/dashboard/links/${linkId}/owners`, { email: 'nosuch' });
    assert.equal(unknown.status, 400);
    has(unknown.body, /<p id="owner-email-error"[\s\S]*No group is named nosuch\./);
    has(unknown.body, /value="nosuch"/);
    const ok = await ana.send('POST', `/dashboard/links/${linkId}/owners`, { email: 'design' });
    assert.equal(ok.status, 303);
    assert.deepEqual(flashOf(ok), { level: 'success', message: 'The group design is now a co-owner.' });
    // A person by email still works as before.
    const person = await ana.send('POST', `/dashboard/links/${linkId}/owners`, { email: 'ben@x.io', group: '' }, { htmx: true });
    assert.deepEqual(toastOf(person), { level: 'success', message: 'Ben Braun is now a co-owner.' });
  });

  test('a secure link is shared with a group: its members may follow it; the panel lists and removes the group', async () => {
    const before = await dee.page('/vault');
    assert.equal(before.status, 403);
    const r = await ana.send('POST', `/dashboard/links/${secureId}/shares`, { email: 'design', group: 'design' }, { htmx: true });
    assert.deepEqual(toastOf(r), { level: 'success', message: 'Shared with the group design.' });
    has(r.body, /^<section id="shares-panel"/);
    has(textOf(r.body), /design group/);
    lacks(r.body, /No users with access yet/);
    const after = await dee.page('/vault');
    assert.equal(after.status, 302);
    const group = (await s.store.groups.byName('design'))!;
    const removed = await ana.send('POST', `/dashboard/links/${secureId}/shares/groups/${group.id}`, { _method: 'DELETE' });
    assert.equal(removed.status, 303);
    assert.deepEqual(flashOf(removed), { level: 'success', message: 'The group design no longer has access.' });
  });
});
