import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { DbDriver } from '../../src/config.js';
import { CLICK_CSV_HEADER } from '../../src/domain/csv.js';
import { DAY, parseCsv, UA } from '../store/analyticsFixtures.js';
import type { TestServer } from '../helpers/server.js';
import { clicks, rollupsSettled, sharedLink, statsWorld, type StatsWorld } from './statsFixture.js';
import { call, startApi } from './support.js';

/**
 * The analytics endpoints on PostgreSQL and MariaDB as well as SQLite: the
 * same answers from the same rows — keyset pages across ties, the series,
 * the breakdowns, the export and the dashboard.
 */

const DRIVERS: Array<[DbDriver, string | undefined]> = [
  ['sqlite3', undefined],
  ['postgres', 'JOE_TEST_PG_DSN'],
  ['mysql', 'JOE_TEST_MYSQL_DSN'],
];

for (const [driver, env] of DRIVERS) {
  describe(`analytics API [${driver}]`, { skip: env !== undefined && !process.env[env] ? `${env} not set` : false }, () => {
    let s: TestServer;
    let w: StatsWorld;
    let link: { id: string; slug: string };
    const now = Date.now();
    const today = Math.floor(now / DAY) * DAY;

    before(async () => {
      s = await startApi({ driver });
      await rollupsSettled(s);
      w = await statsWorld(s);
      link = await sharedLink(s, w);
      // 40 clicks on 5 timestamps (8 per tie), over three UTC days, some signed in.
      await clicks(
        s,
        link.id,
        Array.from({ length: 40 }, (_, i) => ({
          at: today - (i % 5) * 12 * 3_600_000 + 1,
          referrer: i % 4 === 0 ? '' : `https://h${i % 3}.example/p/${i}`,
          ua: i % 2 ? UA.firefoxWindows : UA.safariIphone,
          userId: i % 5 === 0 ? w.share.user.id : null,
        })),
      );
    });
    after(async () => s.stop());

    test('clicks: pages of 3 across ties return every click once, newest first', async () => {
      const seen: string[] = [];
      const times: number[] = [];
      let before: string | null = null;
      do {
        const r = await call(s, 'GET', `/api/v1/links/${link.id}/clicks?limit=3${before ? `&before=${encodeURIComponent(before)}` : ''}`, {
          as: w.owner,
        });
        assert.equal(r.status, 200, r.text);
        for (const c of r.body.clicks) {
          seen.push(c.referrer ?? `direct-${seen.length}`);
          times.push(Date.parse(c.clicked_at));
        }
        before = r.body.next_cursor;
      } while (before);
      assert.equal(seen.length, 40);
      assert.equal(new Set(seen.filter((x) => !x.startsWith('direct-'))).size, 30, 'every click once');
      assert.ok(times.every((t, i) => i === 0 || t <= times[i - 1]!));
    });

    test('series and breakdowns', async () => {
      const ts = await call(s, 'GET', `/api/v1/links/${link.id}/stats/timeseries`, { as: w.share });
      assert.equal(ts.status, 200, ts.text);
      const nonzero = ts.body.series.filter((p: { count: number }) => p.count > 0);
      // Offsets 0, 12 h, 24 h, 36 h, 48 h back from 1 ms past today's midnight: today once, the two days before twice.
      assert.deepEqual(
        nonzero.map((p: { date: string; count: number }) => [p.date, p.count]),
        [
          [new Date(today - 2 * DAY).toISOString().slice(0, 10), 16],
          [new Date(today - DAY).toISOString().slice(0, 10), 16],
          [new Date(today).toISOString().slice(0, 10), 8],
        ],
      );
      const b = await call(s, 'GET', `/api/v1/links/${link.id}/stats/breakdowns?days=90`, { as: w.share });
      assert.equal(b.status, 200, b.text);
      assert.deepEqual(b.body.auth, { authenticated: 8, anonymous: 32 });
      assert.deepEqual(b.body.browsers, [
        { name: 'Firefox', count: 20 },
        { name: 'Safari', count: 20 },
      ]);
      assert.deepEqual(b.body.referrers[0], { host: 'Direct / unknown', count: 10 });
    });

    test('export: oldest first, every row once, attribution for the owner only', async () => {
      const owner = await call(s, 'GET', `/api/v1/links/${link.id}/stats/export`, { as: w.owner });
      assert.equal(owner.status, 200, owner.text);
      assert.ok(owner.text.startsWith(CLICK_CSV_HEADER));
      const rows = parseCsv(owner.text).slice(1);
      assert.equal(rows.length, 40);
      const times = rows.map((r) => Date.parse(r[0]!));
      assert.ok(times.every((t, i) => i === 0 || t >= times[i - 1]!));
      assert.equal(rows.filter((r) => r[6] === w.share.user.displayName).length, 8);
      const recipient = parseCsv((await call(s, 'GET', `/api/v1/links/${link.id}/stats/export`, { as: w.share })).text).slice(1);
      assert.ok(recipient.every((r) => r[2] === '' && r[6] === ''));
      assert.deepEqual(
        recipient.map((r) => r[1]),
        rows.map((r) => r[1]),
        'the same rows in the same order',
      );
    });

    test('dashboard: the shared link counts for its recipient', async () => {
      const r = await call(s, 'GET', '/api/v1/analytics', { as: w.share });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(
        r.body.top_links.map((l: { slug: string; count: number }) => [l.slug, l.count]),
        [[link.slug, 40]],
      );
    });
  });
}
