import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, afterEach, before, describe, mock, test } from 'node:test';
import fc from 'fast-check';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { signWebhook } from '../../src/domain/webhooks.js';
import { asUser } from '../../src/links/index.js';
import { announceExpiries, healthChangeRecorder } from '../../src/notify/lifecycle.js';
import { outboxDispatcher } from '../../src/workers/jobs.js';
import type { OutboxDispatcher } from '../../src/workers/outbox.js';
import { actor, call, type Actor } from '../api/support.js';
import { ALL_DRIVERS, skipReason } from '../helpers/databases.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Signed webhooks end to end (docs/notifications.md#webhooks), on every
 * database: registration over the admin API, deliveries to real HTTP
 * receivers on 127.0.0.1, signatures checked by the test's own reading of
 * Standard Webhooks, retries and giving up on the server's fake clock,
 * redelivery, redirects left alone, and the private-address refusal.
 */

const quiet = { info() {}, warn() {}, error() {}, debug() {}, fatal() {}, trace() {}, child: () => quiet, level: 'silent' };

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** What the Standard Webhooks library said on receipt (its clock at the server's): 'verified' or its error. */
  library: string;
}

interface Receiver {
  url: string;
  got: Received[];
  answer: number[];
  /** The endpoint's secret once registered; each request is then checked with it on receipt. */
  secret: string | null;
  close(): Promise<void>;
}

/** A receiver answering each request with the next status of its script (200 once it runs out). */
async function receiver(serverNow: () => number = Date.now): Promise<Receiver> {
  const got: Received[] = [];
  const answer: number[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let library = 'no secret';
      if (hook.secret !== null) {
        try {
          libraryVerify(hook.secret, req.headers, body, serverNow());
          library = 'verified';
        } catch (e) {
          library = (e as Error).message;
        }
      }
      got.push({ path: req.url ?? '', headers: req.headers, body, library });
      const status = answer.shift() ?? 200;
      if (status >= 300 && status < 400) res.setHeader('location', '/elsewhere');
      res.statusCode = status;
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const hook: Receiver = {
    url: `http://127.0.0.1:${port}/hook`,
    got,
    answer,
    secret: null,
    close: () => new Promise((r) => server.close(() => r())),
  };
  return hook;
}

/** Standard Webhooks verification, written from the spec and not from the server's code. */
function verify(secret: string, headers: http.IncomingHttpHeaders, body: string): boolean {
  const id = String(headers['webhook-id']);
  const ts = String(headers['webhook-timestamp']);
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${ts}.${body}`, 'utf8').digest();
  return String(headers['webhook-signature'])
    .split(' ')
    .some((sig) => {
      const [version, value] = sig.split(',');
      const got = Buffer.from(value ?? '', 'base64');
      return version === 'v1' && got.length === expected.length && timingSafeEqual(got, expected);
    });
}

/**
 * The same check by the Standard Webhooks reference library, as a receiver
 * would run it. It refuses a timestamp more than five minutes from its own
 * clock, so its clock is set to the server's for the call.
 */
function libraryVerify(secret: string, headers: http.IncomingHttpHeaders, body: string, serverNow: number, jsonParse = true): unknown {
  const signed = {
    'webhook-id': String(headers['webhook-id']),
    'webhook-timestamp': String(headers['webhook-timestamp']),
    'webhook-signature': String(headers['webhook-signature']),
  };
  mock.timers.enable({ apis: ['Date'], now: serverNow });
  try {
    return new Webhook(secret).verify(body, signed, { jsonParse });
  } finally {
    mock.timers.reset();
  }
}

test('signatures match the Standard Webhooks test vector', () => {
  assert.equal(
    signWebhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}'),
    'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
  );
});

test('the Standard Webhooks library signs alike and accepts what we sign, for any message', () => {
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const library = new Webhook(secret);
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), fc.integer({ min: 1_000_000_000, max: 4_000_000_000 }), (body, ts) => {
      const id = `msg_${ts.toString(16)}`;
      const signature = signWebhook(secret, id, ts, body);
      assert.equal(signature, library.sign(id, new Date(ts * 1000), body));
      const headers = { 'webhook-id': id, 'webhook-timestamp': String(ts), 'webhook-signature': signature };
      assert.doesNotThrow(() => libraryVerify(secret, headers, body, ts * 1000, false));
      assert.throws(() => libraryVerify(secret, headers, `${body} `, ts * 1000, false), WebhookVerificationError);
    }),
    { numRuns: 200 },
  );
});

for (const driver of ALL_DRIVERS) {
  describe(`webhooks [${driver}]`, { skip: skipReason(driver) }, () => {
    let s: TestServer;
    let admin: Actor;
    let user: Actor;
    let dispatcher: OutboxDispatcher;
    const hooks: Receiver[] = [];
    const clock = { now: Date.UTC(2026, 4, 4, 10, 0, 0) };
    let n = 0;

    before(async () => {
      s = await startTestServer({
        driver,
        env: { JOE_WEBHOOK_ALLOW_PRIVATE: 'true', JOE_API_RATE_LIMIT: '0', JOE_JOB_TICK: '1h' },
        start: { now: () => clock.now },
      });
      // Its run at start must be over before the tests drain the outbox themselves.
      await s.scheduler.idle();
      dispatcher = outboxDispatcher({ config: s.config, store: s.store, sqlite: null, metrics: s.metrics, log: quiet as never });
      admin = await actor(s, 'admin', { admin: true });
      user = await actor(s, 'user');
    });
    after(async () => {
      await s?.stop();
      for (const h of hooks) await h.close();
    });
    /** Every request a test's receivers got passes the Standard Webhooks library too, checked once. */
    const checked = new WeakSet<Received>();
    afterEach(() => {
      for (const g of hooks.flatMap((h) => h.got).filter((g) => !checked.has(g))) {
        checked.add(g);
        assert.equal(g.library, 'verified', `the Standard Webhooks library on ${g.headers['webhook-id']}`);
      }
    });

    /** A fresh receiver registered for `events`; earlier endpoints are removed so each test sees only its own. */
    const register = async (events: string[] = ['*'], extra: Record<string, unknown> = {}) => {
      for (const h of (await call(s, 'GET', '/api/v1/admin/webhooks', { as: admin })).body.webhooks) {
        await call(s, 'DELETE', `/api/v1/admin/webhooks/${h.id}`, { as: admin });
      }
      const r = await receiver(() => clock.now);
      hooks.push(r);
      const created = await call(s, 'POST', '/api/v1/admin/webhooks', { as: admin, body: { url: r.url, events, ...extra } });
      assert.equal(created.status, 201, created.text);
      r.secret = created.body.secret as string;
      return { ...r, id: created.body.id as string, secret: r.secret };
    };
    const newLink = () => s.links.create(asUser(user.user), { slug: `wh-${++n}-${process.pid}`, url: 'https://dest.example.test/' });
    const deliveries = async (id: string) =>
      (await call(s, 'GET', `/api/v1/admin/webhooks/${id}/deliveries`, { as: admin })).body.deliveries;

    test('register: 201 with a generated whsec_ secret shown once; bad input is 400 and stores nothing', async () => {
      const r = await call(s, 'POST', '/api/v1/admin/webhooks', {
        as: admin,
        body: { url: 'https://hooks.example.test/in', events: ['link.created'] },
      });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(Object.keys(r.body).sort(), ['created_at', 'events', 'id', 'secret', 'url']);
      assert.match(r.body.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
      assert.equal(Buffer.from(r.body.secret.slice(6), 'base64').length, 32);
      const one = await call(s, 'GET', `/api/v1/admin/webhooks/${r.body.id}`, { as: admin });
      assert.deepEqual(one.body, {
        id: r.body.id,
        url: 'https://hooks.example.test/in',
        events: ['link.created'],
        created_at: r.body.created_at,
      });
      assert.ok(!JSON.stringify((await call(s, 'GET', '/api/v1/admin/webhooks', { as: admin })).body).includes('whsec_'));
      const given = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
      const own = await call(s, 'POST', '/api/v1/admin/webhooks', {
        as: admin,
        body: { url: 'http://h.example.test/', events: ['*'], secret: given },
      });
      assert.equal(own.body.secret, given);

      const count = async () => (await call(s, 'GET', '/api/v1/admin/webhooks', { as: admin })).body.webhooks.length;
      const before = await count();
      for (const body of [
        { url: 'ftp://h.example.test/', events: ['*'] },
        { url: 'javascript:alert(1)', events: ['*'] },
        { url: '/relative', events: ['*'] },
        { url: 'https://h.example.test/', events: ['link.created', 'link.exploded'] },
        { url: 'https://h.example.test/', events: [] },
        { url: 'https://h.example.test/', events: ['*', 'link.created'] },
        { url: 'https://h.example.test/', events: ['*'], secret: 'hunter2' },
        { url: 'https://h.example.test/', events: ['*'], secret: 'whsec_c2hvcnQ=' },
        { url: 'https://h.example.test/', events: 'link.created' },
      ]) {
        const bad = await call(s, 'POST', '/api/v1/admin/webhooks', { as: admin, body });
        assert.equal(bad.status, 400, JSON.stringify(body));
        assert.equal(typeof bad.body.code, 'string');
      }
      assert.equal(await count(), before);
      assert.equal(
        (await call(s, 'POST', '/api/v1/admin/webhooks', { as: user, body: { url: 'https://x.test/', events: ['*'] } })).status,
        403,
      );
      assert.equal((await call(s, 'GET', `/api/v1/admin/webhooks/${r.body.id}/deliveries`, { as: user })).status, 403);
    });

    test('a change is POSTed, signed, with the REST link body, the actor and the changes', async () => {
      const hook = await register();
      const link = await newLink();
      await s.links.update(asUser(user.user), link.id, { title: 'Signed' });
      assert.equal((await dispatcher.drain()).delivered, 2);
      const [created, updated] = hook.got;
      for (const got of [created!, updated!]) {
        assert.equal(got.path, '/hook');
        assert.equal(got.headers['content-type'], 'application/json');
        assert.match(String(got.headers['webhook-id']), /^msg_[0-9a-f]{32}$/);
        assert.equal(got.headers['webhook-timestamp'], String(Math.floor(clock.now / 1000)));
        assert.ok(verify(hook.secret, got.headers, got.body), 'signature does not verify');
        assert.ok(!verify(hook.secret, got.headers, got.body.replace('"link.', '"lonk.')), 'a changed body verifies');
        assert.deepEqual(libraryVerify(hook.secret, got.headers, got.body, clock.now), JSON.parse(got.body));
        assert.throws(
          () => libraryVerify(hook.secret, got.headers, got.body.replace('"link.', '"lonk.'), clock.now),
          WebhookVerificationError,
        );
      }
      const body = JSON.parse(updated!.body);
      assert.equal(body.type, 'link.updated');
      assert.equal(body.timestamp, new Date(clock.now).toISOString());
      assert.equal(body.data.link.id, link.id);
      assert.equal(body.data.link.slug, link.slug);
      assert.equal(body.data.link.title, 'Signed');
      assert.equal(body.data.link.lifecycle_state, 'active');
      assert.equal(body.data.link.owners[0].email, user.user.email);
      assert.deepEqual(body.data.actor, { type: 'user', id: user.user.id, email: user.user.email, display_name: user.user.displayName });
      assert.deepEqual(body.data.changes, { title: { from: '', to: 'Signed' } });
      assert.equal(JSON.parse(created!.body).type, 'link.created');
      const log = await deliveries(hook.id);
      assert.equal(log.length, 2);
      assert.equal(log[0].status, 'delivered');
      assert.equal(log[0].attempts[0].status_code, 200);
      assert.equal(typeof log[0].attempts[0].duration_ms, 'number');
    });

    test('only subscribed events are sent; a deleted link is described as it was', async () => {
      const hook = await register(['link.deleted', 'link.archived']);
      const link = await newLink();
      await s.links.update(asUser(user.user), link.id, { title: 'skipped' });
      await s.links.archive(asUser(user.user), link.id);
      await s.links.delete(asUser(user.user), link.id);
      await dispatcher.drain();
      assert.deepEqual(
        hook.got.map((g) => JSON.parse(g.body).type),
        ['link.archived', 'link.deleted'],
      );
      const gone = JSON.parse(hook.got[1]!.body).data;
      assert.equal(gone.link.slug, link.slug);
      assert.equal(gone.link.title, 'skipped');
      assert.equal(gone.link.lifecycle_state, 'archived');
      assert.equal(gone.changes.url.to, null);
    });

    test('failures are retried after 10 s, 20 s …; after the eighth it is failed; redeliver sends the same message again', async () => {
      const hook = await register(['link.created']);
      hook.answer.push(...Array.from({ length: 8 }, () => 503));
      await newLink();
      const start = clock.now;
      await dispatcher.drain();
      let [d] = await deliveries(hook.id);
      assert.equal(d.status, 'pending');
      assert.equal(d.next_attempt_at, new Date(start + 10_000).toISOString());
      for (let i = 1; i < 8; i++) {
        clock.now = Date.parse(d.next_attempt_at) - 1;
        await dispatcher.drain();
        assert.equal(hook.got.length, i, 'tried before its time');
        clock.now += 1;
        await dispatcher.drain();
        [d] = await deliveries(hook.id);
      }
      assert.equal(hook.got.length, 8);
      assert.equal(d.status, 'failed');
      assert.equal(d.next_attempt_at, null);
      assert.deepEqual(
        d.attempts.map((a: any) => [a.attempt, a.status_code, a.error]),
        Array.from({ length: 8 }, (_, i) => [i + 1, 503, 'HTTP 503']),
      );
      const gaps = d.attempts.slice(1).map((a: any, i: number) => (Date.parse(a.at) - Date.parse(d.attempts[i].at)) / 1000);
      assert.deepEqual(gaps, [10, 20, 40, 80, 160, 320, 640]);
      clock.now += 86_400_000;
      await dispatcher.drain();
      assert.equal(hook.got.length, 8);

      const again = await call(s, 'POST', `/api/v1/admin/webhooks/${hook.id}/deliveries/${d.id}/redeliver`, { as: admin });
      assert.equal(again.status, 202, again.text);
      assert.equal(again.body.message_id, d.message_id);
      assert.equal(again.body.status, 'pending');
      await dispatcher.drain();
      assert.equal(hook.got.length, 9);
      assert.equal(hook.got[8]!.headers['webhook-id'], d.message_id);
      assert.equal(hook.got[8]!.body, hook.got[0]!.body);
      assert.ok(verify(hook.secret, hook.got[8]!.headers, hook.got[8]!.body));
      assert.doesNotThrow(() => libraryVerify(hook.secret, hook.got[8]!.headers, hook.got[8]!.body, clock.now));
      assert.equal((await deliveries(hook.id))[0].status, 'delivered');
      const other = await register(['link.created']);
      assert.equal((await call(s, 'POST', `/api/v1/admin/webhooks/${other.id}/deliveries/${d.id}/redeliver`, { as: admin })).status, 404);
    });

    test('a redirect is not followed: the attempt fails with its status', async () => {
      const hook = await register(['link.created']);
      hook.answer.push(302);
      await newLink();
      await dispatcher.drain();
      assert.deepEqual(
        hook.got.map((g) => g.path),
        ['/hook'],
      );
      const [d] = await deliveries(hook.id);
      assert.equal(d.attempts[0].status_code, 302);
      assert.equal(d.status, 'pending');
    });

    test('health turning broken and ok again, and expiry passing, are sent once each; owners hear of broken and expiring links', async () => {
      const hook = await register(['link.health_changed', 'link.expired']);
      const link = await newLink();
      const record = healthChangeRecorder(s.store, { mail: false });
      for (let i = 0; i < 4; i++)
        await s.store.health.record(link.id, { kind: 'failure', status: 500, error: null }, 3_600_000, clock.now, record);
      await s.store.health.record(link.id, { kind: 'success', status: 200 }, 3_600_000, clock.now, record);
      await dispatcher.drain();
      assert.deepEqual(
        hook.got.map((g) => JSON.parse(g.body).data.changes.health),
        [
          { from: 'ok', to: 'broken' },
          { from: 'broken', to: 'ok' },
        ],
      );
      const notes = (await s.store.notifications.page(user.user.id, { limit: 50 })).items.filter((x) => x.linkId === link.id);
      assert.deepEqual(
        notes.map((x) => x.kind),
        ['link_broken'],
      );

      // Expiry: announced to the owner a week ahead, once per expiry value; to webhooks once it passes.
      await announceExpiries(s.store, { mail: false });
      const day = 86_400_000;
      await s.links.update(asUser(user.user), link.id, { expiresAt: clock.now + 3 * day });
      await announceExpiries(s.store, { mail: false });
      await announceExpiries(s.store, { mail: false });
      const expiring = async () =>
        (await s.store.notifications.page(user.user.id, { limit: 50 })).items.filter(
          (x) => x.linkId === link.id && x.kind === 'link_expiring',
        );
      assert.equal((await expiring()).length, 1);
      assert.equal((await expiring())[0]!.detail.expiresAt, clock.now + 3 * day);
      clock.now += 3 * day + 1000;
      await announceExpiries(s.store, { mail: false });
      await announceExpiries(s.store, { mail: false });
      await dispatcher.drain();
      const expired = hook.got.filter((g) => JSON.parse(g.body).type === 'link.expired');
      assert.equal(expired.length, 1);
      assert.equal(JSON.parse(expired[0]!.body).data.link.lifecycle_state, 'expired');
      // Renewed with a new expiry: the owners are told again.
      await s.links.update(asUser(user.user), link.id, { expiresAt: clock.now + 2 * day });
      await announceExpiries(s.store, { mail: false });
      assert.equal((await expiring()).length, 2);
    });
  });
}

describe('webhooks to private addresses', () => {
  let s: TestServer;
  let hook: Awaited<ReturnType<typeof receiver>>;
  before(async () => {
    s = await startTestServer({ env: { JOE_API_RATE_LIMIT: '0', JOE_JOB_TICK: '1h' } });
    hook = await receiver();
  });
  after(async () => {
    await s?.stop();
    await hook?.close();
  });

  test('are refused without JOE_WEBHOOK_ALLOW_PRIVATE: nothing reaches the receiver and the attempt says why', async () => {
    const admin = await actor(s, 'admin', { admin: true });
    const created = await call(s, 'POST', '/api/v1/admin/webhooks', { as: admin, body: { url: hook.url, events: ['*'] } });
    assert.equal(created.status, 201);
    await s.links.create(asUser(admin.user), { slug: `private-${process.pid}`, url: 'https://a.example.test/' });
    const dispatcher = outboxDispatcher({ config: s.config, store: s.store, sqlite: null, metrics: s.metrics, log: quiet as never });
    assert.equal((await dispatcher.drain()).retried, 1);
    assert.equal(hook.got.length, 0);
    const [d] = (await call(s, 'GET', `/api/v1/admin/webhooks/${created.body.id}/deliveries`, { as: admin })).body.deliveries;
    assert.equal(d.attempts[0].status_code, null);
    assert.match(d.attempts[0].error, /private or loopback/);
    // The metric counts the refused attempt as a retry.
    const text = await s.metrics.registry.getSingleMetricAsString('joelinks_outbox_deliveries_total');
    assert.match(text, /channel="webhook",outcome="retry"\} 1/);
  });
});
