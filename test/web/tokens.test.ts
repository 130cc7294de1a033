import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestServer } from '../helpers/server.js';
import { has, lacks, mainOf, signedIn, startWebServer, textOf, type Client, toastOf } from './support.js';

describe('API token settings page (docs/auth.md#token-settings-page)', () => {
  let s: TestServer;
  let alice: Client;
  let bob: Client;
  before(async () => {
    s = await startWebServer();
    alice = await signedIn(s, 'alice@x.io', { name: 'Alice' });
    bob = await signedIn(s, 'bob@x.io', { name: 'Bob' });
  });
  after(async () => s.stop());

  test('creating shows the token once with its warning; a reload lists it without the plaintext', async () => {
    const r = await alice.send('POST', '/dashboard/settings/tokens', { name: 'laptop', expires_in: '720h' });
    assert.equal(r.status, 200);
    const plaintext = /value="(jl_[0-9A-Za-z]+)"/.exec(r.body)?.[1];
    assert.ok(plaintext, 'the new token is shown');
    has(r.body, /Copy it now — it will not be shown again/);
    const me = await s.store.tokens.authenticate(plaintext!);
    assert.equal(me?.user.id, alice.user!.id, 'and it works');
    const list = await alice.page('/dashboard/settings/tokens');
    lacks(list.body, new RegExp(plaintext!.slice(3)));
    const row = /<tr id="token-[^"]+">[\s\S]*?<\/tr>/.exec(mainOf(list.body))![0];
    assert.match(textOf(row), /^laptop [A-Z][a-z]{2} \d{1,2}, \d{4} Never [A-Z][a-z]{2} \d{1,2}, \d{4} Active Revoke$/);
    has(list.header('cache-control') ?? '', /no-store/);
  });

  test('HTMX gets the section fragment; an empty name is an inline error and creates nothing', async () => {
    const before = (await s.store.tokens.listForUser(alice.user!.id)).length;
    const r = await alice.send('POST', '/dashboard/settings/tokens', { name: '  ', expires_in: '' }, { htmx: true });
    assert.equal(r.status, 200);
    has(r.body, /^<div id="tokens-section"/);
    has(r.body, /<p id="token-name-error"[^>]*role="alert"[\s\S]*Name is required\./);
    assert.equal((await s.store.tokens.listForUser(alice.user!.id)).length, before);
    const bad = await alice.send('POST', '/dashboard/settings/tokens', { name: 'x', expires_in: '5m' });
    assert.equal(bad.status, 400);
    has(bad.body, /expires_in must be one of/);
  });

  test("revoke goes through a confirmation dialog, only for the caller's active tokens, and says so in a toast", async () => {
    const { token } = await s.store.tokens.createWithExpiresIn(alice.user!.id, 'ci', '');
    const confirm = await alice.page(`/dashboard/settings/tokens/${token.id}/confirm-revoke`, { htmx: true });
    assert.equal(confirm.status, 200);
    has(confirm.body, /^<dialog/);
    has(confirm.body, new RegExp(`hx-delete="/dashboard/settings/tokens/${token.id}"`));
    assert.equal(
      (await bob.page(`/dashboard/settings/tokens/${token.id}/confirm-revoke`, { htmx: true })).status,
      404,
      "someone else's token does not exist for you",
    );
    assert.equal((await bob.send('DELETE', `/dashboard/settings/tokens/${token.id}`, {}, { htmx: true })).status, 404);
    assert.equal((await s.store.tokens.findById(token.id))!.revokedAt, null);
    const r = await alice.send('DELETE', `/dashboard/settings/tokens/${token.id}`, {}, { htmx: true });
    assert.equal(r.status, 200);
    has(r.body, /^<div id="tokens-section"/);
    assert.deepEqual(toastOf(r), { level: 'success', message: 'Token "ci" revoked.' });
    assert.notEqual((await s.store.tokens.findById(token.id))!.revokedAt, null);
    const row = new RegExp(`<tr id="token-${token.id}">[\\s\\S]*?</tr>`).exec(r.body)![0];
    has(row, />Revoked</);
    lacks(row, /Revoke</, 'no Revoke button on a revoked token');
    const form = await alice.send('POST', `/dashboard/settings/tokens/${token.id}`, { _method: 'DELETE' });
    assert.equal(form.status, 200, 'a plain form gets the whole page back');
    has(form.body, /<h1[^>]*>API Tokens<\/h1>/);
  });
});
