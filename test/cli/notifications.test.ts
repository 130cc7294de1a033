import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { outboxDispatcher } from '../../src/workers/jobs.js';
import type { OutboxDispatcher } from '../../src/workers/outbox.js';
import { actor, call, type Actor } from '../api/support.js';
import { CLI_ARGS } from '../helpers/cli.js';
import { ALL_DRIVERS, skipReason } from '../helpers/databases.js';
import { startSmtp, type TestSmtp } from '../helpers/smtp.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * A change made with the CLI reaches a link's owners and the webhooks the way
 * the same change made over REST does (docs/notifications.md#what-you-are-notified-about):
 * the owner's notification, its mail and a webhook delivery, written by the
 * compiled `joe-links` command against the running server's database and
 * then sent by the server's outbox dispatcher, on every database.
 */

const quiet = { info() {}, warn() {}, error() {}, debug() {}, fatal() {}, trace() {}, child: () => quiet, level: 'silent' };
const MAIL_FROM = 'Joe Links <links@example.test>';

/** A webhook receiver answering 200, keeping each body it got. */
async function receiver(): Promise<{ url: string; bodies: any[]; close(): Promise<void> }> {
  const bodies: any[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}/hook`, bodies, close: () => new Promise((r) => server.close(() => r())) };
}

for (const driver of ALL_DRIVERS) {
  describe(`changes made with the CLI are announced as REST's are [${driver}]`, { skip: skipReason(driver) }, () => {
    let smtp: TestSmtp;
    let s: TestServer;
    let dispatcher: OutboxDispatcher;
    let hook: Awaited<ReturnType<typeof receiver>>;
    let admin: Actor;
    let owner: Actor;
    let editor: Actor;
    let dir: string;
    let n = 0;

    before(async () => {
      smtp = await startSmtp();
      hook = await receiver();
      s = await startTestServer({
        driver,
        env: {
          JOE_SMTP_URL: smtp.url,
          JOE_MAIL_FROM: MAIL_FROM,
          JOE_BASE_URL: 'https://links.example.test',
          JOE_WEBHOOK_ALLOW_PRIVATE: 'true',
          JOE_API_RATE_LIMIT: '0',
          // The scheduler must not deliver behind the test's back: it runs its jobs once at start only.
          JOE_JOB_TICK: '1h',
        },
      });
      // Its run at start must be over before the tests drain the outbox themselves.
      await s.scheduler.idle();
      dispatcher = outboxDispatcher({ config: s.config, store: s.store, sqlite: null, metrics: s.metrics, log: quiet as never });
      admin = await actor(s, 'admin', { admin: true });
      owner = await actor(s, 'olive');
      editor = await actor(s, 'eddie');
      const registered = await call(s, 'POST', '/api/v1/admin/webhooks', { as: admin, body: { url: hook.url, events: ['*'] } });
      assert.equal(registered.status, 201, registered.text);
      dir = mkdtempSync(join(tmpdir(), 'joe-links-cli-notify-'));
    });
    after(async () => {
      await s?.stop();
      await smtp?.stop();
      await hook?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    /** The CLI as an operator runs it, on the server's database and with its mail settings. */
    const cli = (args: string[]) => {
      const r = spawnSync(process.execPath, [...CLI_ARGS, ...args], {
        cwd: dir,
        env: {
          PATH: process.env.PATH ?? '',
          NODE_OPTIONS: '',
          JOE_DB_DRIVER: s.config.db.driver,
          JOE_DB_DSN: s.config.db.dsn,
          JOE_SMTP_URL: smtp.url,
          JOE_MAIL_FROM: MAIL_FROM,
        },
        encoding: 'utf8',
      });
      return { code: r.status, stdout: r.stdout, stderr: r.stderr };
    };

    /** A link of the owner's, made by the owner over REST (which announces nothing to them). */
    const ownersLink = async () => {
      const slug = `cli-notify-${++n}-${process.pid}`;
      const r = await call(s, 'POST', '/api/v1/links', { as: owner, body: { slug, url: 'https://dest.example.test/', title: 'Old' } });
      assert.equal(r.status, 201, r.text);
      return { id: r.body.id as string, slug };
    };

    const notificationsAbout = async (slug: string) => {
      const r = await call(s, 'GET', '/api/v1/notifications?limit=200', { as: owner });
      assert.equal(r.status, 200, r.text);
      return (r.body.notifications as any[]).filter((x) => x.link.slug === slug);
    };

    /** What the outbox sent for a link: webhook bodies and mails to the owner. */
    const sent = async (slug: string) => {
      await dispatcher.drain();
      return {
        webhooks: hook.bodies
          .filter((b) => b.data.link.slug === slug)
          .map((b) => ({ type: b.type, actor: b.data.actor, changes: b.data.changes })),
        mails: smtp.received.filter((m) => m.to.includes(owner.user.email) && m.subject.includes(slug)).length,
      };
    };

    test('an import --as someone that edits another user’s link notifies the owner, mails them and calls the webhooks, as REST does', async () => {
      const viaRest = await ownersLink();
      const viaCli = await ownersLink();

      const put = await call(s, 'PUT', `/api/v1/links/${viaRest.id}`, {
        as: admin,
        body: { url: 'https://dest.example.test/', title: 'New' },
      });
      assert.equal(put.status, 200, put.text);

      const file = join(dir, 'edit.jsonl');
      const line = {
        slug: viaCli.slug,
        url: 'https://dest.example.test/',
        title: 'New',
        description: '',
        tags: [],
        owners: [owner.user.email],
      };
      writeFileSync(file, `${JSON.stringify(line)}\n`);
      const run = cli(['links', 'import', file, '--as', editor.user.email]);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, new RegExp(`^updated +${viaCli.slug}$`, 'm'));

      const [restNote, ...restMore] = await notificationsAbout(viaRest.slug);
      const [cliNote, ...cliMore] = await notificationsAbout(viaCli.slug);
      assert.equal(restMore.length, 0);
      assert.equal(cliMore.length, 0);
      for (const note of [restNote, cliNote]) {
        assert.ok(note, 'the owner is notified');
        assert.equal(note.kind, 'link_changed');
        assert.equal(note.event, 'updated');
      }
      assert.equal(restNote.actor.id, admin.user.id);
      assert.deepEqual(cliNote.actor, { type: 'system', via: 'cli' });
      assert.equal(cliNote.text, `The server (cli) changed the title of go/${viaCli.slug}`);

      const rest = await sent(viaRest.slug);
      const byCli = await sent(viaCli.slug);
      const change = { title: { from: 'Old', to: 'New' } };
      assert.deepEqual(
        rest.webhooks.map((w) => w.type),
        ['link.created', 'link.updated'],
      );
      assert.deepEqual(rest.webhooks[1]!.changes, change);
      assert.deepEqual(
        byCli.webhooks.map((w) => w.type),
        ['link.created', 'link.updated'],
        'the CLI’s edit is delivered to the webhook',
      );
      assert.deepEqual(byCli.webhooks[1], { type: 'link.updated', actor: { type: 'system', via: 'cli' }, changes: change });
      assert.equal(rest.mails, 1, 'the REST edit is mailed to the owner');
      assert.equal(byCli.mails, 1, 'the CLI’s edit is mailed to the owner');
    });

    test('links create for another user tells them and calls the webhooks', async () => {
      const slug = `cli-made-${++n}-${process.pid}`;
      const run = cli(['links', 'create', '--slug', slug, '--url', 'https://made.example.test/', '--owner', owner.user.email]);
      assert.equal(run.code, 0, run.stderr);
      const [note, ...more] = await notificationsAbout(slug);
      assert.equal(more.length, 0);
      assert.equal(note?.event, 'created');
      assert.deepEqual(note?.actor, { type: 'system', via: 'cli' });
      const out = await sent(slug);
      assert.deepEqual(
        out.webhooks.map((w) => [w.type, w.actor]),
        [['link.created', { type: 'system', via: 'cli' }]],
      );
      assert.equal(out.mails, 1);
    });
  });
}
