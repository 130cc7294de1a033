import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestServer } from '../helpers/server.js';
import { createLink, setLifecycle } from '../helpers/links.js';
import { destination, type TestDestination } from '../net/destinations.js';
import { flashOf, has, lacks, mainOf, signedIn, startWebServer, textOf, toastOf, type Client } from './support.js';

/**
 * "Recheck now" on a link's page (docs/lifecycle.md#recheck-now): over real HTTP, against a real
 * destination on 127.0.0.1 (private addresses allowed, as JOE_HEALTH_CHECK_ALLOW_PRIVATE does).
 */

const T0 = Date.parse('2030-06-01T12:00:00Z');
const HOUR = 3_600_000;

describe('Recheck now on the link page (docs/lifecycle.md#recheck-now)', () => {
  let s: TestServer;
  let now = T0;
  let healthy = false;
  let dest: TestDestination;
  let alice: Client;
  let bob: Client;
  let carol: Client;

  before(async () => {
    dest = await destination((_req, res) => {
      res.statusCode = healthy ? 200 : 503;
      res.end();
    });
    s = await startWebServer({
      env: { JOE_SHORT_KEYWORD: 'go', JOE_HEALTH_CHECKS_ENABLED: 'true', JOE_HEALTH_CHECK_ALLOW_PRIVATE: 'true' },
      now: () => now,
    });
    alice = await signedIn(s, 'alice@x.io', { name: 'Alice' });
    bob = await signedIn(s, 'bob@x.io', { name: 'Bob' });
    carol = await signedIn(s, 'carol@x.io', { name: 'Carol' });
  });
  after(async () => {
    await s.stop();
    await dest.close();
  });

  /** Three failures a minute ago: broken, and not so recent that a recheck waits. */
  const broken = async (id: string) => {
    for (let i = 0; i < 3; i++) await s.store.health.record(id, { kind: 'failure', status: 503, error: null }, HOUR, now - 60_000);
  };
  const detail = async (c: Client, id: string) => mainOf((await c.page(`/dashboard/links/${id}`)).body);
  const recheckButton = /<form[^>]*action="\/dashboard\/links\/[^"]+\/recheck"[\s\S]*?Recheck now/;

  test('broken, then healthy again: the recheck probes at once, the line says OK and the stored health changed', async () => {
    const link = await createLink(s.store, { slug: 'wiki', url: `${dest.origin}/wiki`, visibility: 'public' }, alice.user!.id);
    await broken(link.id);
    const before = await detail(alice, link.id);
    has(textOf(before), /Health: broken · last status 503/);
    has(textOf(before), /Last error: the destination answered HTTP 503/);
    has(before, recheckButton, 'the editor gets the button');

    healthy = true;
    const hitsBefore = dest.hits.length;
    const r = await alice.send('POST', `/dashboard/links/${link.id}/recheck`, {}, { htmx: true });
    assert.equal(r.status, 200);
    has(r.body, /^<div id="link-health"/, 'the answer is the health section, swapped in place');
    has(textOf(r.body), /Health: OK · last status 200/);
    lacks(r.body, /Last error/);
    assert.equal(toastOf(r)?.message, 'Rechecked go/wiki.');
    assert.equal(dest.hits.length, hitsBefore + 1, 'one probe');
    assert.equal(dest.hits.at(-1)!.method, 'HEAD');
    has(String(dest.hits.at(-1)!.headers['user-agent']), /^joe-links-health\//);
    const row = (await s.store.health.row(link.id))!;
    assert.equal(row.consecutiveFailures, 0);
    assert.equal(row.lastStatus, 200);
    assert.equal(row.lastCheckedAt, now);
    assert.equal(row.nextCheckAt, now + 24 * HOUR, 'the checker’s own schedule follows');
    has(textOf(await detail(alice, link.id)), /Health: OK · last status 200/);

    // Again at once: refused calmly, nothing sent.
    const again = await alice.send('POST', `/dashboard/links/${link.id}/recheck`, {}, { htmx: true });
    assert.equal(again.status, 200);
    assert.equal(toastOf(again)?.level, 'info');
    has(toastOf(again)!.message, /go\/wiki was checked moments ago; try again in a few seconds\./);
    assert.equal(dest.hits.length, hitsBefore + 1);

    // Without JavaScript: the form posts, the page comes back with the message.
    healthy = false;
    now += 11_000;
    const form = await alice.send('POST', `/dashboard/links/${link.id}/recheck`);
    assert.equal(form.status, 303);
    assert.equal(form.header('location'), `/dashboard/links/${link.id}`);
    assert.equal(flashOf(form)?.message, 'Rechecked go/wiki.');
    assert.equal(dest.hits.length, hitsBefore + 2);
    assert.equal((await s.store.health.row(link.id))!.consecutiveFailures, 1, 'one failure counted, not yet broken');
    has(textOf(await detail(alice, link.id)), /Health: OK · last status 503/);
  });

  test('a share recipient and a stranger get no button; their forged POST and a cross-site one are refused, nothing sent or stored', async () => {
    const open = await createLink(s.store, { slug: 'open', url: `${dest.origin}/open`, visibility: 'public' }, alice.user!.id);
    const secret = await createLink(s.store, { slug: 'secret', url: `${dest.origin}/secret`, visibility: 'secure' }, alice.user!.id, {
      shareWith: [bob.user!.id],
    });
    await broken(open.id);
    await broken(secret.id);
    const hits = dest.hits.length;
    const rows = [await s.store.health.row(open.id), await s.store.health.row(secret.id)];

    // The recipient sees the health line without the button; the stranger does not see the page.
    const shared = await detail(bob, secret.id);
    has(textOf(shared), /Health: broken/);
    lacks(shared, /Recheck now/);
    const strange = await carol.page(`/dashboard/links/${open.id}`);
    assert.equal(strange.status, 403);
    lacks(strange.body, /Recheck now/);
    for (const [who, id] of [
      [bob, secret.id],
      [carol, open.id],
    ] as const) {
      assert.equal((await who.send('POST', `/dashboard/links/${id}/recheck`, {}, { htmx: true })).status, 403);
      assert.equal((await who.send('POST', `/dashboard/links/${id}/recheck`)).status, 403);
    }
    const crossSite = await alice.send('POST', `/dashboard/links/${open.id}/recheck`, {}, { headers: { origin: 'https://evil.example' } });
    assert.equal(crossSite.status, 403);

    assert.equal(dest.hits.length, hits, 'no probe was sent');
    assert.deepEqual([await s.store.health.row(open.id), await s.store.health.row(secret.id)], rows, 'nothing stored');
  });

  test('a link the checker never visits gets no button, and a POST for it sends nothing', async () => {
    const optedOut = await createLink(s.store, { slug: 'quiet', url: `${dest.origin}/quiet` }, alice.user!.id, {
      healthChecksDisabled: true,
    });
    const template = await createLink(s.store, { slug: 'tpl', url: `${dest.origin}/q/$term` }, alice.user!.id);
    const expired = await createLink(s.store, { slug: 'expired', url: `${dest.origin}/expired`, expiresAt: now + 1_000 }, alice.user!.id);
    const archived = await createLink(s.store, { slug: 'archived', url: `${dest.origin}/archived` }, alice.user!.id);
    await setLifecycle(s.store, archived.id, { archived: true });
    now += 2_000;
    const hits = dest.hits.length;
    for (const l of [optedOut, template, expired, archived]) {
      lacks(await detail(alice, l.id), /Recheck now/, `${l.slug} gets no button`);
      const r = await alice.send('POST', `/dashboard/links/${l.id}/recheck`, {}, { htmx: true });
      assert.equal(toastOf(r)?.level, 'info');
      has(toastOf(r)!.message, /is not checked/);
    }
    assert.equal(dest.hits.length, hits);
  });
});
