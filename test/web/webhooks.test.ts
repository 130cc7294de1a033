import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { asUser } from '../../src/links/index.js';
import { has, mainOf, signedIn, type Client } from './support.js';

/**
 * /admin/webhooks over real HTTP (docs/web-ui.md#webhooks): admins only, the secret shown once, bad input refused,
 * cross-site posts refused, the delivery log paged Newer / Older.
 */

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

  test('the delivery log pages 30 newest first through the one pager: "1–30 of 40 deliveries", Older, and Newer back', async () => {
    const r = await admin.send(
      'POST',
      '/admin/webhooks',
      { url: 'https://paged.example.test/in', events: ['link.created'] },
      { headers: { origin: s.url } },
    );
    assert.equal(r.status, 200, r.body);
    const hook = (await s.store.webhooks.list()).find((h) => h.url === 'https://paged.example.test/in')!;
    for (let i = 0; i < 40; i++)
      await s.links.create(asUser(admin.user!), { slug: `paged-${i}-${process.pid}`, url: 'https://e.example.test/' });
    const listed = (main: string) => [...main.matchAll(/deliveries\/([^/]+)\/redeliver/g)].map((m) => m[1]);
    const target = (main: string, rel: string, label: string) =>
      new RegExp(`<a class="btn btn-sm" href="([^"]+)" rel="${rel}">${label}</a>`).exec(main)?.[1]?.replace(/&amp;/g, '&');

    const first = mainOf((await admin.page(`/admin/webhooks/${hook.id}`)).body);
    has(first, />1–30 of 40 deliveries</);
    has(first, /btn-disabled" aria-disabled="true">Newer</);
    assert.equal(listed(first).length, 30);
    const older = target(first, 'next', 'Older');
    assert.ok(older?.startsWith(`/admin/webhooks/${hook.id}?older=`), older);

    const second = mainOf((await admin.page(older!)).body);
    has(second, />31–40 of 40 deliveries</);
    has(second, /btn-disabled" aria-disabled="true">Older</);
    assert.equal(new Set([...listed(first), ...listed(second)]).size, 40, 'every delivery once');

    const newer = target(second, 'prev', 'Newer');
    assert.ok(newer?.startsWith(`/admin/webhooks/${hook.id}?newer=`), newer);
    const back = mainOf((await admin.page(newer!)).body);
    assert.deepEqual(listed(back), listed(first), 'Newer returns to the page before');
    has(back, />1–30 of 40 deliveries</);
  });
});
