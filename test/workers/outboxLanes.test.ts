import assert from 'node:assert/strict';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { generateSecret } from '../../src/domain/webhooks.js';
import { asUser } from '../../src/links/index.js';
import type { User } from '../../src/store/types.js';
import { OutboxDispatcher } from '../../src/workers/outbox.js';
import { webhookChannel } from '../../src/workers/webhookChannel.js';
import { ALL_DRIVERS, skipReason } from '../helpers/databases.js';
import { startSmtp, type TestSmtp } from '../helpers/smtp.js';
import { eventually, startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Outbound work never stalls (docs/notifications.md#delivery), on every
 * database: beside a webhook endpoint that accepts the connection and never
 * answers and one that answers only after the attempt timeout, a healthy
 * endpoint's deliveries and a mail to a real SMTP server go out at once, on
 * the server's own scheduler; and one run gives an endpoint that times out
 * one attempt, however many of its deliveries wait.
 */

const quiet = { info() {}, warn() {} };

interface Endpoints {
  silent: string;
  slow: string;
  healthy: string;
  /** Connections the silent endpoint accepted. */
  held: () => number;
  /** What the healthy endpoint got: event type and link slug. */
  got: Array<{ type: string; slug: string }>;
  close(): void;
}

async function endpoints(slowAfterMs = 30_000): Promise<Endpoints> {
  const sockets = new Set<net.Socket>();
  let held = 0;
  const silent = net.createServer((socket) => {
    held++;
    sockets.add(socket);
    socket.on('data', () => {});
    socket.on('error', () => {});
  });
  const slow = http.createServer((req, res) => {
    req.resume();
    const t = setTimeout(() => res.end('late'), slowAfterMs);
    res.on('close', () => clearTimeout(t));
  });
  const got: Endpoints['got'] = [];
  const healthy = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      got.push({ type: body.type, slug: body.data.link.slug });
      res.end('ok');
    });
  });
  const url = async (server: net.Server) => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  };
  return {
    silent: await url(silent),
    slow: await url(slow),
    healthy: await url(healthy),
    held: () => held,
    got,
    close() {
      for (const s of sockets) s.destroy();
      silent.close();
      slow.closeAllConnections();
      slow.close();
      healthy.close();
    },
  };
}

for (const driver of ALL_DRIVERS) {
  describe(`outbound work beside endpoints that never answer [${driver}]`, { skip: skipReason(driver) }, () => {
    let smtp: TestSmtp;
    let ends: Endpoints;
    let s: TestServer;
    let n = 0;

    before(async () => {
      smtp = await startSmtp();
      ends = await endpoints();
      s = await startTestServer({
        driver,
        env: {
          JOE_SMTP_URL: smtp.url,
          JOE_MAIL_FROM: 'links@example.test',
          JOE_WEBHOOK_ALLOW_PRIVATE: 'true',
          // The server's own scheduler delivers, as in production, only ticking faster.
          JOE_JOB_TICK: '100ms',
        },
      });
      for (const url of [ends.silent, ends.slow, ends.healthy])
        await s.store.webhooks.create({ url, events: ['*'], secret: generateSecret() });
    });
    after(async () => {
      await s?.stop();
      ends?.close();
      await smtp?.stop();
    });

    const person = (name: string, role: 'user' | 'admin' = 'user'): Promise<User> =>
      s.store.users.create({ email: `${name}-${++n}-${process.pid}@example.test`, displayName: name, role });

    test("a healthy endpoint's deliveries and a mail go out within a second or two while two endpoints hold theirs", async () => {
      const owner = await person('Olive');
      const editor = await person('Eddie', 'admin');
      // A backlog: ten deliveries to each endpoint (one's own changes are not mailed).
      const links = [];
      for (let i = 0; i < 10; i++) {
        links.push(await s.links.create(asUser(owner), { slug: `lane-${n}-${i}-${process.pid}`, url: 'https://a.example.test/' }));
      }
      // The silent endpoint has taken a delivery and is holding it (10 s before the attempt times out).
      await eventually(() => ends.held() > 0);
      const started = Date.now();
      const probe = links[links.length - 1]!;
      await s.links.update(asUser(editor), probe.id, { title: 'Changed by someone else' });
      await eventually(
        () =>
          ends.got.some((g) => g.type === 'link.updated' && g.slug === probe.slug) && smtp.received.some((m) => m.to.includes(owner.email)),
        5_000,
      );
      const took = Date.now() - started;
      assert.ok(took < 5_000, `took ${took} ms`);
      // Every backlog delivery reached the healthy endpoint too, in the order they were made.
      assert.deepEqual(
        ends.got.filter((g) => g.type === 'link.created').map((g) => g.slug),
        links.map((l) => l.slug),
      );
      const mail = smtp.received.find((m) => m.to.includes(owner.email))!;
      assert.match(mail.subject, new RegExp(`changed the title of go/${probe.slug}`));
      // Meanwhile not one delivery to the two others has gone through.
      const pending = (await s.store.outbox.depth()).webhook;
      assert.ok(pending >= 20, `${pending} webhook deliveries pending`);
    });
  });
}

describe('a run of the webhook dispatcher', () => {
  let ends: Endpoints;
  let s: TestServer;
  const clock = { now: Date.UTC(2026, 5, 1, 9, 0, 0) };

  before(async () => {
    ends = await endpoints(1_500);
    s = await startTestServer({ env: { JOE_WEBHOOK_ALLOW_PRIVATE: 'true', JOE_JOB_TICK: '1h' }, start: { now: () => clock.now } });
    await s.scheduler.idle();
  });
  after(async () => {
    await s?.stop();
    ends?.close();
  });

  test('gives an endpoint that times out one attempt, however many deliveries wait, and ends within about that timeout', async () => {
    const ids = new Map<string, string>();
    for (const [name, url] of Object.entries({ silent: ends.silent, slow: ends.slow, healthy: ends.healthy })) {
      ids.set(name, (await s.store.webhooks.create({ url, events: ['*'], secret: generateSecret() })).id);
    }
    const user = await s.store.users.create({ email: `runner-${process.pid}@example.test`, displayName: 'R' });
    for (let i = 0; i < 5; i++) await s.links.create(asUser(user), { slug: `run-${i}-${process.pid}`, url: 'https://a.example.test/' });
    const channel = webhookChannel({ store: s.store, retryBaseMs: 10_000, allowPrivate: true, timeoutMs: 500 });
    const dispatcher = new OutboxDispatcher({ store: s.store, channels: [channel], log: quiet });
    try {
      const started = Date.now();
      const summary = await dispatcher.drain();
      const took = Date.now() - started;
      assert.equal(summary.delivered, 5);
      assert.equal(summary.retried, 2, 'one attempt for each endpoint that timed out');
      assert.ok(took < 1_500, `the run took ${took} ms`);
      assert.equal(ends.got.length, 5);
      for (const name of ['silent', 'slow']) {
        const { rows } = await s.store.outbox.forWebhook(ids.get(name)!, { limit: 10 });
        // Newest first: the oldest delivery was tried once and waits 10 s; the others were not tried yet and are due now.
        assert.deepEqual(
          rows.map((r) => [r.status, r.attempts, r.nextAttemptAt - clock.now]),
          [...Array.from({ length: 4 }, () => ['pending', 0, 0]), ['pending', 1, 10_000]],
          name,
        );
        assert.match(rows[4]!.lastError ?? '', /timed out/);
      }
      // The next run tries the next delivery of each, oldest first.
      assert.equal((await dispatcher.drain()).retried, 2);
      for (const name of ['silent', 'slow']) {
        const { rows } = await s.store.outbox.forWebhook(ids.get(name)!, { limit: 10 });
        assert.deepEqual(
          rows.map((r) => r.attempts),
          [0, 0, 0, 1, 1],
        );
      }
    } finally {
      await channel.close();
    }
  });
});
