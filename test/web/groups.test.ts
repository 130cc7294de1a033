import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestServer } from '../helpers/server.js';
import { flashOf, has, lacks, mainOf, signedIn, startWebServer, textOf, toastOf, type Client } from './support.js';

describe('groups pages (docs/web-ui.md#groups)', () => {
  let s: TestServer;
  let ana: Client;
  let ben: Client;
  let cy: Client;
  let root: Client;
  before(async () => {
    s = await startWebServer();
    ana = await signedIn(s, 'ana@x.io', { name: 'Ana' });
    ben = await signedIn(s, 'ben@x.io', { name: 'Ben' });
    cy = await signedIn(s, 'cy@x.io', { name: 'Cy' });
    root = await signedIn(s, 'root@x.io', { name: 'Root', admin: true });
  });
  after(async () => s.stop());

  const members = async (name: string) =>
    ((await s.store.groups.members((await s.store.groups.byName(name))!.id)) ?? []).map((m) => `${m.email}:${m.role}`);

  test('creating a group lands on its page with its creator as manager; a bad or taken name is said beside the field and creates nothing', async () => {
    const bad = await ana.send('POST', '/dashboard/groups', { name: 'Platform Team', description: 'x' });
    assert.equal(bad.status, 400);
    has(bad.body, /<p id="group-name-error"[^>]*role="alert"[\s\S]*A group name uses lowercase letters, digits and hyphens/);
    has(bad.body, /aria-invalid="true"/);
    has(bad.body, /value="Platform Team"/, 'the typed name stays');
    assert.equal(await s.store.groups.byName('platform team'), null);

    const ok = await ana.send('POST', '/dashboard/groups', { name: 'eng', description: 'Engineering' });
    assert.equal(ok.status, 303);
    assert.equal(ok.header('location'), '/dashboard/groups/eng');
    assert.deepEqual(flashOf(ok), { level: 'success', message: 'Created the group eng.' });
    assert.deepEqual(await members('eng'), ['ana@x.io:manager']);

    const taken = await ben.send('POST', '/dashboard/groups', { name: 'eng' });
    assert.equal(taken.status, 400);
    has(textOf(taken.body), /A group named eng already exists\. Choose another name\./);

    const page = await ana.page('/dashboard/groups/eng');
    assert.equal(page.status, 200);
    has(page.body, /<title>eng — Joe Links<\/title>/);
    const main = textOf(mainOf(page.body));
    has(main, /Engineering/);
    has(main, /Ana manager you ana@x\.io/);
    has(page.body, /Add someone by email/);
    has(page.body, />\s*Delete group\s*</);
  });

  test('a NUL character is refused beside its field, with what was typed kept, and nothing is written', async () => {
    const r = await ana.send('POST', '/dashboard/groups', { name: 'a\u0000b', description: 'ok' });
    assert.equal(r.status, 400);
    has(r.body, /<p id="group-name-error"[\s\S]*Name must not contain NUL characters\./);
    has(r.body, /value="a\uFFFDb"/);
    const add = await ana.send('POST', '/dashboard/groups/eng/members', { email: 'x\u0000@x.io' }, { htmx: true });
    has(add.body, /<p id="member-email-error"[\s\S]*Email must not contain NUL characters\./);
    assert.deepEqual(await members('eng'), ['ana@x.io:manager']);
  });

  test('the list shows my groups first with my role, then every group with its member count', async () => {
    await ben.send('POST', '/dashboard/groups', { name: 'ops' });
    const r = await ana.page('/dashboard/groups');
    assert.equal(r.status, 200);
    has(r.body, /href="\/dashboard\/groups" class="menu-active" aria-current="page"/, 'the navigation marks Groups');
    const mine = /<ul[^>]*id="my-groups"[\s\S]*?<\/ul>/.exec(r.body)![0];
    has(textOf(mine), /^eng manager 1 member Engineering 1 member$/);
    lacks(mine, /ops/);
    const all = textOf(/<ul[^>]*id="all-groups"[\s\S]*?<\/ul>/.exec(r.body)![0]);
    has(all, /^eng manager 1 member Engineering 1 member ops 1 member 1 member$/);
  });

  test('a manager adds by email, changes a role, removes someone; refusals are plain messages and change nothing', async () => {
    const unknown = await ana.send('POST', '/dashboard/groups/eng/members', { email: 'nobody@x.io', role: 'member' }, { htmx: true });
    assert.equal(unknown.status, 200);
    has(unknown.body, /^<section id="group-members"/);
    has(unknown.body, /Nobody with that email has signed in yet\. They need to sign in once first\./);
    has(unknown.body, /value="nobody@x.io"/);

    const added = await ana.send('POST', '/dashboard/groups/eng/members', { email: 'BEN@x.io', role: 'member' }, { htmx: true });
    assert.equal(added.status, 200);
    assert.deepEqual(toastOf(added), { level: 'success', message: 'Ben is now a member of eng.' });
    has(textOf(added.body), /Ben member ben@x\.io/);

    const again = await ana.send('POST', '/dashboard/groups/eng/members', { email: 'ben@x.io' }, { htmx: true });
    has(again.body, /They are already in eng\./);
    assert.deepEqual(await members('eng'), ['ana@x.io:manager', 'ben@x.io:member']);

    // Ana is the only manager: stepping down is refused until someone else manages.
    const last = await ana.send('PUT', `/dashboard/groups/eng/members/${ana.user!.id}`, { role: 'member' }, { htmx: true });
    assert.equal(last.status, 409);
    assert.deepEqual(toastOf(last), { level: 'error', message: 'eng needs a manager: make someone else a manager first, then try again.' });
    assert.deepEqual(await members('eng'), ['ana@x.io:manager', 'ben@x.io:member']);

    const promoted = await ana.send('PUT', `/dashboard/groups/eng/members/${ben.user!.id}`, { role: 'manager' }, { htmx: true });
    assert.deepEqual(toastOf(promoted), { level: 'success', message: 'Ben is now a manager of eng.' });
    assert.deepEqual(await members('eng'), ['ana@x.io:manager', 'ben@x.io:manager']);

    // A member who is not a manager changes nothing and sees no controls.
    await ana.send('POST', '/dashboard/groups/eng/members', { email: 'cy@x.io' });
    const cyPage = await cy.page('/dashboard/groups/eng');
    lacks(cyPage.body, /Add someone by email|Make manager|Delete group/);
    has(cyPage.body, /Leave group/);
    const refused = await cy.send('DELETE', `/dashboard/groups/eng/members/${ben.user!.id}`, {}, { htmx: true });
    assert.equal(refused.status, 403);
    assert.equal((await cy.send('POST', '/dashboard/groups/eng/members', { email: 'root@x.io' })).status, 403);

    // Without JavaScript: a plain form removes and comes back to the page with the message.
    const removed = await ben.send('POST', `/dashboard/groups/eng/members/${cy.user!.id}`, { _method: 'DELETE' });
    assert.equal(removed.status, 303);
    assert.equal(removed.header('location'), '/dashboard/groups/eng');
    assert.deepEqual(flashOf(removed), { level: 'success', message: 'Cy is no longer in eng.' });
    assert.deepEqual(await members('eng'), ['ana@x.io:manager', 'ben@x.io:manager']);
  });

  test('anyone may leave; the last manager of a group with members may not', async () => {
    await ana.send('POST', '/dashboard/groups/eng/members', { email: 'cy@x.io' });
    const left = await cy.send('DELETE', `/dashboard/groups/eng/members/${cy.user!.id}`, {}, { htmx: true });
    assert.equal(left.status, 200);
    assert.deepEqual(toastOf(left), { level: 'success', message: 'You left eng.' });
    lacks(left.body, /Leave group/, 'no longer a member');
    await ana.send('POST', '/dashboard/groups', { name: 'solo' });
    await ana.send('POST', '/dashboard/groups/solo/members', { email: 'cy@x.io' });
    const stuck = await ana.send('POST', `/dashboard/groups/solo/members/${ana.user!.id}`, { _method: 'DELETE' });
    assert.equal(stuck.status, 409);
    has(textOf(mainOf(stuck.body)), /solo needs a manager: make someone else a manager first, then try again\./);
    assert.deepEqual(await members('solo'), ['ana@x.io:manager', 'cy@x.io:member']);
  });

  test('managers rename and describe; delete goes through a dialog and back to the list', async () => {
    await ana.send('POST', '/dashboard/groups', { name: 'tmp' });
    const bad = await ana.send('POST', '/dashboard/groups/tmp', { _method: 'PUT', name: 'Tmp!', description: '' });
    assert.equal(bad.status, 400);
    has(bad.body, /<p id="settings-name-error"/);
    assert.equal((await ben.send('POST', '/dashboard/groups/tmp', { _method: 'PUT', name: 'mine' })).status, 403);
    const renamed = await ana.send('POST', '/dashboard/groups/tmp', { _method: 'PUT', name: 'scratch', description: 'Try-outs' });
    assert.equal(renamed.status, 303);
    assert.equal(renamed.header('location'), '/dashboard/groups/scratch');
    assert.equal((await s.store.groups.byName('scratch'))!.description, 'Try-outs');

    assert.equal((await ben.page('/dashboard/groups/scratch/confirm-delete', { htmx: true })).status, 403);
    const dialog = await ana.page('/dashboard/groups/scratch/confirm-delete', { htmx: true });
    has(dialog.body, /^<dialog/);
    has(dialog.body, /Delete &#39;scratch&#39;\?|Delete 'scratch'\?/);
    has(dialog.body, /hx-delete="\/dashboard\/groups\/scratch"/);
    const del = await ana.send('DELETE', '/dashboard/groups/scratch', {}, { htmx: true });
    assert.equal(del.status, 204);
    assert.equal(del.header('hx-redirect'), '/dashboard/groups');
    assert.deepEqual(flashOf(del), { level: 'success', message: 'Deleted the group scratch.' });
    assert.equal(await s.store.groups.byName('scratch'), null);
    assert.equal((await ana.page('/dashboard/groups/scratch')).status, 404);
  });

  test('a group kept by sign-in says its members follow sign-in and offers no member edits, even to an admin', async () => {
    await root.send('POST', '/dashboard/groups', { name: 'sso-staff' });
    const g = (await s.store.groups.byName('sso-staff'))!;
    await s.store.transaction((tx) => s.store.groups.update(g.id, { name: g.name, description: '', synced: true, at: Date.now() }, tx));
    const page = await root.page('/dashboard/groups/sso-staff');
    has(textOf(mainOf(page.body)), /Its members follow sign-in/);
    lacks(page.body, /Add someone by email|Make member|Leave group|>\s*Remove\s*</);
    const add = await root.send('POST', '/dashboard/groups/sso-staff/members', { email: 'ana@x.io' }, { htmx: true });
    assert.deepEqual(toastOf(add), { level: 'error', message: 'The members of sso-staff follow sign-in and cannot be changed here.' });
    assert.deepEqual(await members('sso-staff'), ['root@x.io:manager']);
  });
});
