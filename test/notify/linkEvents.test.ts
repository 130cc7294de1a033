import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { asSystem, asUser } from '../../src/links/index.js';
import type { User } from '../../src/store/types.js';
import { outboxDispatcher } from '../../src/workers/jobs.js';
import type { OutboxDispatcher } from '../../src/workers/outbox.js';
import { ALL_DRIVERS, skipReason } from '../helpers/databases.js';
import { startSmtp, type TestSmtp } from '../helpers/smtp.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * A secure link shared with a group (docs/notifications.md#what-you-are-notified-about):
 * every member but whoever shared it is told `link_shared`, as if it were shared with them
 * alone, and mailed by their own choices; members who own the link hear of it as a change.
 * A real server with JOE_SMTP_URL pointing at a real SMTP server on 127.0.0.1, on every database.
 */

const quiet = { info() {}, warn() {}, error() {}, debug() {}, fatal() {}, trace() {}, child: () => quiet, level: 'silent' };

for (const driver of ALL_DRIVERS) {
  describe(`a secure link shared with a group [${driver}]`, { skip: skipReason(driver) }, () => {
    let smtp: TestSmtp;
    let s: TestServer;
    let dispatcher: OutboxDispatcher;
    let n = 0;

    before(async () => {
      smtp = await startSmtp();
      s = await startTestServer({
        driver,
        env: {
          JOE_SMTP_URL: smtp.url,
          JOE_MAIL_FROM: 'Joe Links <links@example.test>',
          JOE_BASE_URL: 'https://links.example.test',
          // The scheduler must not deliver behind the test's back: it runs its jobs once at start only.
          JOE_JOB_TICK: '1h',
        },
      });
      await s.scheduler.idle();
      dispatcher = outboxDispatcher({ config: s.config, store: s.store, sqlite: null, metrics: s.metrics, log: quiet as never });
    });
    after(async () => {
      await s?.stop();
      await smtp?.stop();
    });

    const person = (name: string): Promise<User> =>
      s.store.users.create({ email: `${name}-${++n}-${process.pid}@example.test`, displayName: `${name} ${n}` });
    const told = async (u: User, slug: string) => {
      const { items } = await s.store.notifications.page(u.id, { limit: 50 });
      return items.filter((x) => x.linkSlug === slug).map((x) => `${x.kind}:${x.detail.event ?? ''}`);
    };
    const mailsTo = (u: User, slug: string) => smtp.received.filter((m) => m.to.includes(u.email) && m.subject.includes(slug));

    /** Olive owns a link; her team: herself, Ben, Cat (who turned link_shared mail off) and Dan, a co-owner. */
    const setUp = async (visibility: 'secure' | 'public') => {
      const [olive, ben, cat, dan] = [await person('Olive'), await person('Ben'), await person('Cat'), await person('Dan')];
      await s.store.notifications.setEmailPreferences(cat.id, { link_shared: false });
      const team = `team-${n}-${process.pid}`;
      await s.links.createGroup(asUser(olive), { name: team });
      for (const m of [ben, cat, dan]) await s.links.addGroupMember(asSystem('test'), team, m.email);
      const link = await s.links.create(asUser(olive), { slug: `grp-${n}-${process.pid}`, url: 'https://a.example.test/', visibility });
      await s.links.addOwner(asUser(olive), link.id, dan.email);
      return { olive, ben, cat, dan, team, link };
    };

    test('each member but the one who shared it is told, and mailed as they chose; an owning member hears of a change', async () => {
      const { olive, ben, cat, dan, team, link } = await setUp('secure');
      await s.links.addGroup(asUser(olive), link.id, 'share', team);

      assert.deepEqual(await told(ben, link.slug), ['link_shared:']);
      assert.deepEqual(await told(cat, link.slug), ['link_shared:']);
      assert.deepEqual(await told(olive, link.slug), [], 'whoever shared it is not told');
      assert.deepEqual(await told(dan, link.slug), ['link_changed:group_share_added', 'link_changed:owner_added'], 'Dan owns it already');

      await dispatcher.drain();
      const [mail, ...more] = mailsTo(ben, link.slug);
      assert.ok(mail, 'Ben is mailed');
      assert.equal(more.length, 0);
      assert.equal(mail.subject, `${olive.displayName} shared the secure link go/${link.slug} with you`);
      assert.equal(mailsTo(cat, link.slug).length, 0, 'Cat turned link_shared mail off');
      assert.equal(mailsTo(olive, link.slug).length, 0);
    });

    test('a link that is not secure shared with a group tells its members nothing', async () => {
      const { olive, ben, cat, team, link } = await setUp('public');
      await s.links.addGroup(asUser(olive), link.id, 'share', team);
      assert.deepEqual(await told(ben, link.slug), []);
      assert.deepEqual(await told(cat, link.slug), []);
    });
  });
}
