import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { generateSecret } from '../src/domain/webhooks.js';
import { asUser } from '../src/links/index.js';
import { startSmtp } from '../test/helpers/smtp.js';
import { startTestServer } from '../test/helpers/server.js';

/**
 * Outbound work beside endpoints that never answer (bench/RESULTS.md#outbound-work-beside-silent-endpoints):
 * a real server on SQLite with a real SMTP server and three webhook endpoints
 * on 127.0.0.1 — one that accepts the connection and never answers, one that
 * answers after 30 s (past the 10 s attempt timeout), one healthy. The owner
 * creates `backlog` links (a delivery each to every endpoint, no mail: one's own
 * changes are not mailed), then someone else changes one of them. Printed: how
 * long after that change the healthy endpoint got its delivery and the owner got
 * the mail about it, on the server's own scheduler (job tick 1 s).
 *
 * `node --import tsx bench/outbox.ts [backlog] [give-up-after-seconds]`
 */

const backlog = Number(process.argv[2] ?? 10);
const giveUpMs = Number(process.argv[3] ?? 400) * 1000;

async function listen(server: net.Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

const sockets = new Set<net.Socket>();
// Accepts the connection, reads the request and never writes a byte.
const silent = net.createServer((socket) => {
  sockets.add(socket);
  socket.on('data', () => {});
  socket.on('error', () => {});
});
// Answers, but only after 30 s.
const slow = http.createServer((req, res) => {
  req.resume();
  const t = setTimeout(() => res.end('late'), 30_000);
  res.on('close', () => clearTimeout(t));
});
const healthyGot: Array<{ at: number; type: string; slug: string }> = [];
const healthy = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    healthyGot.push({ at: performance.now(), type: body.type, slug: body.data.link.slug });
    res.end('ok');
  });
});

const smtp = await startSmtp();
const urls = { silent: await listen(silent), slow: await listen(slow), healthy: await listen(healthy) };
const s = await startTestServer({
  env: {
    JOE_SMTP_URL: smtp.url,
    JOE_MAIL_FROM: 'links@example.test',
    JOE_WEBHOOK_ALLOW_PRIVATE: 'true',
    JOE_JOB_TICK: '1s',
    JOE_API_RATE_LIMIT: '0',
  },
});
try {
  for (const url of [urls.silent, urls.slow, urls.healthy]) await s.store.webhooks.create({ url, events: ['*'], secret: generateSecret() });
  const owner = await s.store.users.create({ email: 'olive@example.test', displayName: 'Olive' });
  const editor = await s.store.users.create({ email: 'eddie@example.test', displayName: 'Eddie', role: 'admin' });
  const links = [];
  for (let i = 0; i < backlog; i++)
    links.push(await s.links.create(asUser(owner), { slug: `backlog-${i}`, url: `https://a.example.test/${i}` }));
  const probe = await s.links.create(asUser(owner), { slug: 'probe', url: 'https://a.example.test/probe' });
  const t0 = performance.now();
  await s.links.update(asUser(editor), probe.id, { title: 'Changed by Eddie' });
  let hookMs: number | null = null;
  let mailMs: number | null = null;
  while (performance.now() - t0 < giveUpMs && (hookMs === null || mailMs === null)) {
    const got = healthyGot.find((g) => g.type === 'link.updated' && g.slug === 'probe');
    if (hookMs === null && got) hookMs = got.at - t0;
    if (mailMs === null && smtp.received.some((m) => m.to.includes(owner.email))) mailMs = performance.now() - t0;
    await new Promise((r) => setTimeout(r, 25));
  }
  const secs = (ms: number | null) => (ms === null ? `not within ${giveUpMs / 1000} s` : `${(ms / 1000).toFixed(2)} s`);
  console.log(`outbox_backlog=${backlog} (deliveries queued per endpoint before the change)`);
  console.log(`outbox_healthy_webhook: ${secs(hookMs)} after the change`);
  console.log(`outbox_mail: ${secs(mailMs)} after the change`);
  console.log(`outbox_healthy_received=${healthyGot.length} of ${backlog + 2}`);
} finally {
  await s.stop();
  await smtp.stop();
  for (const socket of sockets) socket.destroy();
  silent.close();
  slow.closeAllConnections();
  slow.close();
  healthy.close();
}
