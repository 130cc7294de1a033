import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { mainOf, signedIn, type Client } from './support.js';

/** /admin/webhooks over real HTTP (docs/web-ui.md#webhooks): admins only, the secret shown once, bad input refused, cross-site posts refused. */

describe('webhook admin pages', () => {
  let s: TestServer;
  let admin: Client;
  let user: Client;
  before(async () => {
    s = await startTestServer();
    admin = await signedIn(s, `wh-admin-${process.pid}@example.test`, { name: 'Ada', admin: true });
    user = await signedIn(s, `wh-user-${process.pid}@example.test`, { name: 'Uma' });
  });
  after(async () => s?.stop());

  test('register an endpoint: its secret is in that answer only', async () => {
    const r = await admin.send(
      'POST',
      '/admin/webhooks',
      { url: 'https://hooks.example.test/in', events: ['link.created', 'link.deleted'] },
      { headers: { origin: s.url } },
    );
    assert.equal(r.status, 200, r.body);
    const secret = /value="(whsec_[^"]+)"/.exec(r.body)?.[1];
    assert.ok(secret, 'the secret is shown');
    const [hook] = await s.store.webhooks.list();
    assert.deepEqual(hook!.events, ['link.created', 'link.deleted']);
    assert.equal(hook!.secret, secret);
    const again = await admin.page('/admin/webhooks');
    assert.ok(!again.body.includes(secret!));
    assert.match(mainOf(again.body), /hooks\.example\.test\/in/);
    const log = await admin.page(`/admin/webhooks/${hook!.id}`);
    assert.equal(log.status, 200);
    assert.match(log.body, /No deliveries yet/);
  });

  test('bad input is shown with the form and nothing is stored', async () => {
    const before = (await s.store.webhooks.list()).length;
    const bad: Array<Record<string, string | string[]>> = [
      { url: 'ftp://x.test/', events: ['*'] },
      { url: 'https://x.test/', events: ['link.nope'] },
      { url: 'https://x.test/' },
    ];
    for (const fields of bad) {
      const r = await admin.send('POST', '/admin/webhooks', fields, { headers: { origin: s.url } });
      assert.equal(r.status, 400, JSON.stringify(fields));
      assert.match(r.body, /role="alert"/);
    }
    assert.equal((await s.store.webhooks.list()).length, before);
  });

  test('not for other users, and not from another site', async () => {
    assert.equal((await user.page('/admin/webhooks')).status, 403);
    const before = (await s.store.webhooks.list()).length;
    const forged = await admin.send(
      'POST',
      '/admin/webhooks',
      { url: 'https://evil.test/', events: ['*'] },
      { headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } },
    );
    assert.equal(forged.status, 403);
    assert.equal((await s.store.webhooks.list()).length, before);
  });

  test('delete with a plain form', async () => {
    const [hook] = await s.store.webhooks.list();
    const r = await admin.send('POST', `/admin/webhooks/${hook!.id}`, { _method: 'DELETE' }, { headers: { origin: s.url } });
    assert.equal(r.status, 303);
    assert.equal(await s.store.webhooks.get(hook!.id), null);
  });
});
