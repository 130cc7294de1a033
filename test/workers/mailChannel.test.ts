import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { asUser } from '../../src/links/index.js';
import type { User } from '../../src/store/types.js';
import { outboxDispatcher } from '../../src/workers/jobs.js';
import type { OutboxDispatcher } from '../../src/workers/outbox.js';
import { call } from '../api/support.js';
import { ALL_DRIVERS, skipReason } from '../helpers/databases.js';
import { startSmtp, type TestSmtp } from '../helpers/smtp.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Notification mail end to end (docs/notifications.md#mail), on every
 * database: a real server started with JOE_SMTP_URL pointing at a real SMTP
 * server on 127.0.0.1, changes made through the links layer or over HTTP,
 * and the outbox dispatcher run explicitly on the server's fake clock.
 */

const MINUTE = 60_000;
const quiet = { info() {}, warn() {}, error() {}, debug() {}, fatal() {}, trace() {}, child: () => quiet, level: 'silent' };

for (const driver of ALL_DRIVERS) {
  describe(`notification mail [${driver}]`, { skip: skipReason(driver) }, () => {
    let smtp: TestSmtp;
    let s: TestServer;
    let dispatcher: OutboxDispatcher;
    const clock = { now: Date.UTC(2026, 2, 2, 9, 0, 0) };
    let n = 0;

    before(async () => {
      smtp = await startSmtp();
      s = await startTestServer({
        driver,
        env: {
          JOE_SMTP_URL: smtp.url,
          JOE_MAIL_FROM: 'Joe Links <links@example.test>',
          JOE_BASE_URL: 'https://links.example.test',
          JOE_API_RATE_LIMIT: '0',
          // The scheduler must not deliver behind the test's back: it runs its jobs once at start only.
          JOE_JOB_TICK: '1h',
        },
        start: { now: () => clock.now },
      });
      // Its run at start must be over before the tests drain the outbox themselves.
      await s.scheduler.idle();
      dispatcher = outboxDispatcher({ config: s.config, store: s.store, sqlite: null, metrics: s.metrics, log: quiet as never });
    });
    after(async () => {
      await s?.stop();
      await smtp?.stop();
    });

    const person = (name: string): Promise<User> =>
      s.store.users.create({ email: `${name}-${++n}-${process.pid}@example.test`, displayName: `${name} ${n}` });

    /** An owner and an admin who edits the owner's link. */
    const pair = async () => {
      const owner = await person('Olive');
      const editor = await s.store.users.create({
        email: `editor-${++n}-${process.pid}@example.test`,
        displayName: `Eddie ${n}`,
        role: 'admin',
      });
      const link = await s.links.create(asUser(owner), { slug: `mail-${n}-${process.pid}`, url: 'https://a.example.test/' });
      return { owner, editor, link };
    };

    const mailsTo = (u: User) => smtp.received.filter((m) => m.to.includes(u.email));

    test('a change by someone else is mailed to the owner: headers, subject, both parts and the link URL', async () => {
      const { owner, editor, link } = await pair();
      await s.links.update(asUser(editor), link.id, { title: 'Handbook' });
      const summary = await dispatcher.drain();
      assert.equal(summary.delivered, 1);
      const [mail, ...more] = mailsTo(owner);
      assert.ok(mail, 'no mail arrived');
      assert.equal(more.length, 0);
      assert.equal(mail.from, 'links@example.test');
      assert.equal(mail.headers.get('from'), 'Joe Links <links@example.test>');
      assert.equal(mail.headers.get('to'), owner.email);
      assert.equal(mail.headers.get('auto-submitted'), 'auto-generated');
      assert.match(mail.headers.get('content-type') ?? '', /^multipart\/alternative/);
      assert.match(mail.subject, new RegExp(`go/${link.slug}`));
      assert.equal(mail.subject, `${editor.displayName} changed the title of go/${link.slug}`);
      const url = `https://links.example.test/dashboard/links/${link.id}`;
      assert.match(mail.text, new RegExp(`changed the title of go/${link.slug}`));
      assert.ok(mail.text.includes(url), mail.text);
      assert.ok(mail.text.includes('https://links.example.test/dashboard/settings/notifications'));
      assert.match(mail.html, new RegExp(`href="${url}"`));
      assert.match(mail.html, new RegExp(`changed the title of go/${link.slug}`));
      // The editor made the change: nothing is mailed to them.
      assert.equal(mailsTo(editor).length, 0);
    });

    test('your own changes are not mailed (nor notified)', async () => {
      const owner = await person('Solo');
      const link = await s.links.create(asUser(owner), { slug: `own-${n}-${process.pid}`, url: 'https://b.example.test/' });
      await s.links.update(asUser(owner), link.id, { title: 'Mine' });
      await dispatcher.drain();
      assert.equal(mailsTo(owner).length, 0);
      assert.equal(await s.store.notifications.unreadCount(owner.id), 0);
    });

    test('a server refusing with 451 gets the mail again after the backoff, once', async () => {
      const { owner, editor, link } = await pair();
      smtp.refuseNext(1, 451, 'greylisted, try again later');
      await s.links.archive(asUser(editor), link.id);
      const first = await dispatcher.drain();
      assert.equal(first.retried, 1);
      assert.equal(mailsTo(owner).length, 0);
      clock.now += 29_000;
      assert.equal((await dispatcher.drain()).delivered, 0, 'retried before the backoff');
      clock.now += 1_000;
      assert.equal((await dispatcher.drain()).delivered, 1);
      const mails = mailsTo(owner);
      assert.equal(mails.length, 1);
      assert.match(mails[0]!.subject, /archived go\//);
    });

    test('more changes within 10 minutes are folded into the next mail, sent when the 10 minutes are up', async () => {
      const { owner, editor, link } = await pair();
      const as = asUser(editor);
      await s.links.update(as, link.id, { title: 'One' });
      await dispatcher.drain();
      assert.equal(mailsTo(owner).length, 1);
      clock.now += MINUTE;
      await s.links.update(as, link.id, { description: 'Two' });
      clock.now += MINUTE;
      await s.links.update(as, link.id, { url: 'https://c.example.test/' });
      await dispatcher.drain();
      assert.equal(mailsTo(owner).length, 1, 'a second mail within 10 minutes');
      clock.now += 8 * MINUTE - 1;
      await dispatcher.drain();
      assert.equal(mailsTo(owner).length, 1);
      clock.now += 1;
      await dispatcher.drain();
      const mails = mailsTo(owner);
      assert.equal(mails.length, 2);
      const folded = mails[1]!;
      assert.equal(folded.subject, `go/${link.slug}: 2 changes`);
      assert.match(folded.text, /changed the description of/);
      assert.match(folded.text, /changed the destination of/);
      assert.match(folded.html, /<li>/);
      // Both notifications were mailed; nothing is left to send.
      clock.now += 60 * MINUTE;
      await dispatcher.drain();
      assert.equal(mailsTo(owner).length, 2);
    });

    test('with mail turned off for a kind, nothing is mailed, but the notification is still in the app', async () => {
      const { owner, editor, link } = await pair();
      await s.store.notifications.setEmailPreferences(owner.id, { link_changed: false });
      await s.links.update(asUser(editor), link.id, { title: 'Quiet' });
      await dispatcher.drain();
      assert.equal(mailsTo(owner).length, 0);
      assert.equal(await s.store.notifications.unreadCount(owner.id), 1);
    });

    test('turning mail off while one waits in the outbox drops it', async () => {
      const { owner, editor, link } = await pair();
      await s.links.update(asUser(editor), link.id, { title: 'Queued' });
      await s.store.notifications.setEmailPreferences(owner.id, { link_changed: false });
      const summary = await dispatcher.drain();
      assert.equal(summary.skipped, 1);
      assert.equal(mailsTo(owner).length, 0);
    });

    /** `count` secure links `sharer` shares with `friend`, `stepMs` apart, the outbox drained after each when `drainEach`. */
    const shareMany = async (sharer: User, friend: User, count: number, stepMs: number, drainEach: boolean) => {
      const slugs: string[] = [];
      for (let i = 0; i < count; i++) {
        const link = await s.links.create(asUser(sharer), {
          slug: `secret-${n}-${i}-${process.pid}`,
          url: 'https://a.example.test/',
          visibility: 'secure',
          shareWith: [friend.email],
        });
        slugs.push(link.slug);
        if (drainEach) await dispatcher.drain();
        clock.now += stepMs;
      }
      return slugs;
    };

    test('a hundred secure links shared with someone at once are one mail: fifty listed, the rest counted with a link to them all', async () => {
      const sharer = await person('Sam');
      const friend = await person('Fay');
      const slugs = await shareMany(sharer, friend, 100, 100, false);
      const summary = await dispatcher.drain();
      assert.equal(summary.delivered, 1);
      assert.equal(summary.skipped, 99);
      const [mail, ...more] = mailsTo(friend);
      assert.ok(mail, 'no mail arrived');
      assert.equal(more.length, 0);
      assert.equal(mail.subject, '100 notifications from Joe Links');
      const listed = slugs.filter((slug) => mail.text.includes(`shared the secure link go/${slug} with you`));
      assert.deepEqual(listed, slugs.slice(0, 50));
      assert.ok(mail.text.includes('… and 50 more: https://links.example.test/notifications'), mail.text);
      assert.match(mail.html, /<a href="https:\/\/links.example.test\/notifications">… and 50 more<\/a>/);
      assert.equal((mail.html.match(/<li>/g) ?? []).length, 50);
      // All hundred count as mailed: nothing more goes out, an hour later either.
      clock.now += 3_600_000;
      await dispatcher.drain();
      assert.equal(mailsTo(friend).length, 1);
      const { items } = await s.store.notifications.page(friend.id, { limit: 200 });
      assert.equal(items.length, 100);
      assert.ok(items.every((x) => x.mailState === 'sent'));
    });

    test('a hundred shared within a minute, delivered as they come: the first three at once, the other 97 in one mail a minute on', async () => {
      const sharer = await person('Sid');
      const friend = await person('Flo');
      const start = clock.now;
      const slugs = await shareMany(sharer, friend, 100, 500, true);
      assert.deepEqual(
        mailsTo(friend).map((m) => m.subject),
        slugs.slice(0, 3).map((slug) => `${sharer.displayName} shared the secure link go/${slug} with you`),
      );
      // One more may go once the first has left the window, a minute after it went out.
      clock.now = start + MINUTE - 1;
      await dispatcher.drain();
      assert.equal(mailsTo(friend).length, 3, 'a fourth mail within the minute');
      clock.now += 1;
      await dispatcher.drain();
      const mails = mailsTo(friend);
      assert.equal(mails.length, 4);
      assert.equal(mails[3]!.subject, '97 notifications from Joe Links');
      assert.ok(mails[3]!.text.includes(`go/${slugs[3]} with you`));
      assert.ok(mails[3]!.text.includes('… and 47 more: https://links.example.test/notifications'));
      clock.now += 3_600_000;
      await dispatcher.drain();
      assert.equal(mailsTo(friend).length, 4);
    });

    test('three changes to three links at once are three mails; a fourth and fifth within the minute wait for it', async () => {
      const owner = await person('Tia');
      const editor = await s.store.users.create({ email: `three-${++n}-${process.pid}@example.test`, displayName: 'Ed', role: 'admin' });
      const links = [];
      for (let i = 0; i < 5; i++) {
        links.push(await s.links.create(asUser(owner), { slug: `three-${n}-${i}-${process.pid}`, url: 'https://a.example.test/' }));
      }
      const start = clock.now;
      for (const link of links.slice(0, 3)) await s.links.update(asUser(editor), link.id, { title: 'Three' });
      assert.equal((await dispatcher.drain()).delivered, 3);
      assert.deepEqual(
        mailsTo(owner).map((m) => m.subject),
        links.slice(0, 3).map((l) => `Ed changed the title of go/${l.slug}`),
      );
      for (const link of links.slice(3)) await s.links.update(asUser(editor), link.id, { title: 'Three' });
      await dispatcher.drain();
      assert.equal(mailsTo(owner).length, 3, 'a fourth mail within the minute');
      clock.now = start + MINUTE;
      await dispatcher.drain();
      // Three may go again: one mail each, as two fit.
      assert.deepEqual(
        mailsTo(owner)
          .slice(3)
          .map((m) => m.subject),
        links.slice(3).map((l) => `Ed changed the title of go/${l.slug}`),
      );
    });

    test('at most ten mails an hour to one person: the rest wait for the hour and go out together', async () => {
      const owner = await person('Hana');
      const editor = await s.store.users.create({ email: `cap-${++n}-${process.pid}@example.test`, displayName: 'Ed', role: 'admin' });
      const links = [];
      for (let i = 0; i < 12; i++) {
        links.push(await s.links.create(asUser(owner), { slug: `cap-${n}-${i}-${process.pid}`, url: 'https://a.example.test/' }));
      }
      const start = clock.now;
      for (const link of links) {
        await s.links.update(asUser(editor), link.id, { title: 'Again' });
        await dispatcher.drain();
        clock.now += MINUTE + 1_000;
      }
      assert.equal(mailsTo(owner).length, 10);
      clock.now = start + 60 * MINUTE - 1;
      await dispatcher.drain();
      assert.equal(mailsTo(owner).length, 10, 'an eleventh mail within the hour');
      clock.now = start + 60 * MINUTE;
      await dispatcher.drain();
      const mails = mailsTo(owner);
      assert.equal(mails.length, 11);
      assert.equal(mails[10]!.subject, '2 notifications from Joe Links');
      assert.match(mails[10]!.text, new RegExp(`changed the title of go/${links[10]!.slug}`));
      assert.match(mails[10]!.text, new RegExp(`changed the title of go/${links[11]!.slug}`));
    });

    test('with the SMTP server down, the request still succeeds and the mail goes out once it is back', async () => {
      const { owner, editor, link } = await pair();
      const { plaintext } = await s.store.tokens.create(editor.id, 'editor');
      await smtp.stop();
      try {
        const r = await call(s, 'PUT', `/api/v1/links/${link.id}`, {
          as: plaintext,
          body: { url: 'https://d.example.test/', title: 'Down' },
        });
        assert.equal(r.status, 200, r.text);
        const summary = await dispatcher.drain();
        assert.equal(summary.retried, 1);
      } finally {
        await smtp.start();
      }
      assert.equal(mailsTo(owner).length, 0);
      clock.now += 30_000;
      assert.equal((await dispatcher.drain()).delivered, 1);
      assert.equal(mailsTo(owner).length, 1);
    });
  });
}
