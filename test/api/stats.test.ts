import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { encodeClickCursor } from '../../src/domain/clickCursor.js';
import { DAY, UA } from '../store/analyticsFixtures.js';
import { sessionCookie, type TestServer } from '../helpers/server.js';
import { as, clicks, MANAGERS, ROLES, rollupsSettled, sharedLink, statsWorld, type Role, type StatsWorld } from './statsFixture.js';
import { assertError, call, startApi } from './support.js';

/**
 * The per-link analytics endpoints
 * (docs/analytics.md#per-link-stats, docs/analytics.md#daily-series, docs/analytics.md#breakdowns) over real HTTP on a real database: who may call them, what they
 * answer, what they refuse, and that clicker identities reach managers only.
 */

const MINUTE = 60_000;
const utcDay = (ms: number) => Math.floor(ms / DAY) * DAY;
const date = (ms: number) => new Date(utcDay(ms)).toISOString().slice(0, 10);

/** Every /api/v1 analytics endpoint, as a path for a link id. */
const ENDPOINTS: Array<[string, (id: string) => string]> = [
  ['stats', (id) => `/api/v1/links/${id}/stats`],
  ['clicks', (id) => `/api/v1/links/${id}/clicks`],
  ['timeseries', (id) => `/api/v1/links/${id}/stats/timeseries`],
  ['breakdowns', (id) => `/api/v1/links/${id}/stats/breakdowns`],
  ['export', (id) => `/api/v1/links/${id}/stats/export`],
];

/** docs/analytics.md#who-sees-what: CanStats for owner, co-owner, recipient and admin; 403 for others; 401 without a token. */
const PER_LINK: Record<Role, number> = { owner: 200, coowner: 200, share: 200, other: 403, admin: 200, none: 401 };

describe('per-link analytics API', () => {
  let s: TestServer;
  let w: StatsWorld;
  before(async () => {
    s = await startApi();
    await rollupsSettled(s);
    w = await statsWorld(s);
    await clicks(s, w.secure.id, [
      { at: Date.now() - DAY, userId: w.share.user.id, referrer: 'https://wiki.example/a' },
      { at: Date.now() - 2 * DAY, userId: null },
    ]);
  });
  after(async () => s.stop());

  describe('capability table', () => {
    for (const [name, path] of ENDPOINTS) {
      test(`${name}: owner, co-owner, recipient, admin 200; other user 403; no token 401`, async () => {
        for (const role of ROLES) {
          const r = await call(s, 'GET', path(w.secure.id), { as: as(w, role) });
          if (PER_LINK[role] === 200) assert.equal(r.status, 200, `${name} as ${role}: ${r.text}`);
          else assertError(r, PER_LINK[role], PER_LINK[role] === 401 ? 'UNAUTHORIZED' : 'FORBIDDEN', `${name} as ${role}`);
        }
      });
    }

    test('a valid session cookie without a bearer token is 401 on every endpoint (no session fallback)', async () => {
      const cookie = await sessionCookie(s.store, w.owner.user);
      for (const [name, path] of ENDPOINTS) {
        assertError(await call(s, 'GET', path(w.secure.id), { headers: { cookie } }), 401, 'UNAUTHORIZED', name);
      }
      assertError(await call(s, 'GET', '/api/v1/analytics', { headers: { cookie } }), 401, 'UNAUTHORIZED', 'analytics');
    });

    test('a stranger learns nothing about the link: one 403 body for every visibility, no slug or id in it', async () => {
      for (const [name, path] of ENDPOINTS) {
        const bodies = new Set<string>();
        for (const link of [w.secure, w.priv, w.pub]) {
          const r = await call(s, 'GET', path(link.id), { as: w.other });
          assertError(r, 403, 'FORBIDDEN', `${name} ${link.slug}`);
          assert.ok(!r.text.includes(link.slug) && !r.text.includes(link.id), `${name}: the refusal names no link`);
          bodies.add(r.text);
        }
        assert.equal(bodies.size, 1, `${name}: secure, private and public links are refused alike`);
      }
    });

    test('unknown and malformed ids are one 404, before any capability or input check', async () => {
      for (const [name, path] of ENDPOINTS) {
        const bodies = new Set<string>();
        for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', `${w.secure.id}x`]) {
          for (const who of [w.owner, w.other, w.admin]) {
            const r = await call(s, 'GET', `${path(id)}?days=7&before=junk&cursor=junk&from=junk`, { as: who });
            assertError(r, 404, 'NOT_FOUND', `${name} ${id}`);
            bodies.add(r.text);
          }
        }
        assert.equal(bodies.size, 1, `${name}: every unknown id answers the same`);
      }
    });

    test('capability is checked before input: a stranger with bad parameters gets 403, not 400', async () => {
      const bad: Record<string, string> = {
        clicks: '?before=junk',
        timeseries: '?days=7',
        breakdowns: '?days=7',
        export: '?cursor=junk&from=x',
      };
      for (const [name, path] of ENDPOINTS) {
        assertError(await call(s, 'GET', `${path(w.secure.id)}${bad[name] ?? ''}`, { as: w.other }), 403, 'FORBIDDEN', name);
        assertError(await call(s, 'GET', `${path(w.secure.id)}${bad[name] ?? ''}`), 401, 'UNAUTHORIZED', name);
      }
    });

    test('losing the share takes stats access away on the next request', async () => {
      const link = await sharedLink(s, w);
      assert.equal((await call(s, 'GET', `/api/v1/links/${link.id}/stats`, { as: w.share })).status, 200);
      const del = await call(s, 'DELETE', `/api/v1/links/${link.id}/shares/${w.share.user.id}`, { as: w.owner });
      assert.equal(del.status, 204, del.text);
      assertError(await call(s, 'GET', `/api/v1/links/${link.id}/stats`, { as: w.share }), 403, 'FORBIDDEN');
    });
  });

  test('GET /stats: totals over all retained clicks, the last 7 and the last 30 days', async () => {
    const link = await sharedLink(s, w);
    const now = Date.now();
    await clicks(s, link.id, [
      { at: now - MINUTE },
      { at: now - 3 * DAY },
      { at: now - 10 * DAY },
      { at: now - 29 * DAY },
      { at: now - 40 * DAY },
    ]);
    const r = await call(s, 'GET', `/api/v1/links/${link.id}/stats`, { as: w.share });
    assert.equal(r.status, 200, r.text);
    assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(r.body, { link_id: link.id, total: 5, last_7d: 2, last_30d: 4 });

    const empty = await sharedLink(s, w);
    const e = await call(s, 'GET', `/api/v1/links/${empty.id}/stats`, { as: w.owner });
    assert.deepEqual(e.body, { link_id: empty.id, total: 0, last_7d: 0, last_30d: 0 });
  });

  describe('GET /clicks', () => {
    test('clicker identity only for owners, co-owners and admins; null for anonymous clicks and for recipients', async () => {
      const link = await sharedLink(s, w);
      const now = Date.now();
      await clicks(s, link.id, [
        { at: now - MINUTE, userId: w.share.user.id, referrer: 'https://news.example/item' },
        { at: now - 2 * MINUTE, userId: null, referrer: '' },
        { at: now - 3 * MINUTE, userId: w.other.user.id, referrer: null },
      ]);
      for (const role of MANAGERS) {
        const r = await call(s, 'GET', `/api/v1/links/${link.id}/clicks`, { as: as(w, role) });
        assert.equal(r.status, 200, r.text);
        assert.deepEqual(r.body, {
          clicks: [
            {
              clicked_at: new Date(now - MINUTE).toISOString(),
              referrer: 'https://news.example/item',
              user: { id: w.share.user.id, display_name: w.share.user.displayName },
            },
            { clicked_at: new Date(now - 2 * MINUTE).toISOString(), referrer: null, user: null },
            {
              clicked_at: new Date(now - 3 * MINUTE).toISOString(),
              referrer: null,
              user: { id: w.other.user.id, display_name: w.other.user.displayName },
            },
          ],
          next_cursor: null,
        });
      }
      const r = await call(s, 'GET', `/api/v1/links/${link.id}/clicks`, { as: w.share });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(
        r.body.clicks.map((c: { user: unknown }) => c.user),
        [null, null, null],
      );
      assert.deepEqual(
        r.body.clicks.map((c: { referrer: unknown }) => c.referrer),
        ['https://news.example/item', null, null],
      );
      for (const leak of [w.share.user.id, w.other.user.id, w.share.user.displayName, w.other.user.displayName]) {
        assert.ok(!r.text.includes(leak), `a recipient's response names no clicker (${leak})`);
      }
    });

    test('keyset pages resume exactly across timestamp ties: every click once, newest first', async () => {
      const link = await sharedLink(s, w);
      const base = Date.now() - DAY;
      // 23 clicks on 4 timestamps, so every page boundary of 3 falls inside a tie.
      await clicks(
        s,
        link.id,
        Array.from({ length: 23 }, (_, i) => ({ at: base - 1000 * (i % 4), referrer: `https://r.example/${i}` })),
      );
      const seen: Array<{ clicked_at: string; referrer: string }> = [];
      let before: string | null = null;
      let pages = 0;
      do {
        const r = await call(s, 'GET', `/api/v1/links/${link.id}/clicks?limit=3${before ? `&before=${encodeURIComponent(before)}` : ''}`, {
          as: w.owner,
        });
        assert.equal(r.status, 200, r.text);
        assert.ok(r.body.clicks.length <= 3);
        if (r.body.next_cursor) assert.equal(r.body.clicks.length, 3, 'a page with a successor is full');
        seen.push(...r.body.clicks);
        before = r.body.next_cursor;
        pages++;
      } while (before);
      assert.equal(pages, 8, '23 rows in pages of 3');
      assert.equal(seen.length, 23);
      assert.equal(new Set(seen.map((c) => c.referrer)).size, 23, 'no click repeated or skipped');
      const times = seen.map((c) => Date.parse(c.clicked_at));
      assert.ok(
        times.every((t, i) => i === 0 || t <= times[i - 1]!),
        'newest first',
      );
    });

    test('next_cursor is null when exactly `limit` rows remain; a bare timestamp means strictly earlier', async () => {
      const link = await sharedLink(s, w);
      const base = Date.now() - DAY;
      await clicks(
        s,
        link.id,
        [0, 0, 1000, 2000].map((d, i) => ({ at: base - d, referrer: `https://t.example/${i}` })),
      );
      const all = await call(s, 'GET', `/api/v1/links/${link.id}/clicks?limit=4`, { as: w.owner });
      assert.equal(all.body.clicks.length, 4);
      assert.equal(all.body.next_cursor, null);
      const legacy = await call(s, 'GET', `/api/v1/links/${link.id}/clicks?before=${encodeURIComponent(new Date(base).toISOString())}`, {
        as: w.owner,
      });
      assert.equal(legacy.status, 200, legacy.text);
      assert.deepEqual(
        legacy.body.clicks.map((c: { clicked_at: string }) => c.clicked_at),
        [new Date(base - 1000).toISOString(), new Date(base - 2000).toISOString()],
        'both rows tied at `before` are excluded',
      );
    });

    test('limit: default 50, junk means 50, capped at 200', async () => {
      const link = await sharedLink(s, w);
      const base = Date.now() - DAY;
      await clicks(
        s,
        link.id,
        Array.from({ length: 205 }, (_, i) => ({ at: base - i })),
      );
      for (const [q, n] of [
        ['', 50],
        ['?limit=abc', 50],
        ['?limit=0', 50],
        ['?limit=-5', 50],
        ['?limit=7', 7],
        ['?limit=999', 200],
      ] as const) {
        const r = await call(s, 'GET', `/api/v1/links/${link.id}/clicks${q}`, { as: w.owner });
        assert.equal(r.status, 200, `${q} ${r.text}`);
        assert.equal(r.body.clicks.length, n, q);
        assert.equal(typeof r.body.next_cursor, 'string', q);
      }
    });

    test('a malformed `before` is 400 BAD_REQUEST', async () => {
      const cursor = encodeClickCursor({ clickedAt: Date.now(), id: '00000000-0000-4000-8000-000000000000' });
      for (const before of [
        'not-a-cursor',
        '2026-02-30T00:00:00Z',
        '2026-07-17 14:00:00',
        cursor.slice(0, -3) + '!!!',
        `${cursor}A`,
        '%00',
        '',
      ]) {
        const r = await call(s, 'GET', `/api/v1/links/${w.secure.id}/clicks?before=${encodeURIComponent(before)}`, { as: w.owner });
        if (before === '') assert.equal(r.status, 200, 'an empty before is no before');
        else assertError(r, 400, 'BAD_REQUEST', `before=${before}`);
      }
      assertError(
        await call(s, 'GET', `/api/v1/links/${w.secure.id}/clicks?before=a&before=b`, { as: w.owner }),
        400,
        'BAD_REQUEST',
        'repeated',
      );
    });
  });

  describe('GET /stats/timeseries', () => {
    test('30 (default) or 90 ascending UTC days ending today, gap-filled, clicks on their UTC day', async () => {
      const link = await sharedLink(s, w);
      const now = Date.now();
      const today = utcDay(now);
      await clicks(s, link.id, [
        { at: today },
        { at: today - 30 * MINUTE }, // 23:30 UTC yesterday: yesterday's bucket whatever the viewer's zone
        { at: today - 30 * MINUTE + 1 },
        { at: today - 29 * DAY }, // the midnight opening the oldest bucket of the 30-day window
        { at: today - 29 * DAY - 1 }, // one millisecond earlier: outside it, inside the 90-day window
        { at: today - 89 * DAY },
        { at: today - 90 * DAY }, // outside both
      ]);
      const r = await call(s, 'GET', `/api/v1/links/${link.id}/stats/timeseries`, { as: w.share });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(Object.keys(r.body).sort(), ['days', 'link_id', 'series']);
      assert.equal(r.body.link_id, link.id);
      assert.equal(r.body.days, 30);
      const series = r.body.series as Array<{ date: string; count: number }>;
      assert.equal(series.length, 30);
      series.forEach((p, i) =>
        assert.deepEqual(p, { date: date(today - (29 - i) * DAY), count: p.count }, 'one entry per day, ascending, nothing else'),
      );
      const counts = Object.fromEntries(series.filter((p) => p.count > 0).map((p) => [p.date, p.count]));
      assert.deepEqual(counts, { [date(today)]: 1, [date(today - DAY)]: 2, [date(today - 29 * DAY)]: 1 });

      const r90 = await call(s, 'GET', `/api/v1/links/${link.id}/stats/timeseries?days=90`, { as: w.owner });
      assert.equal(r90.status, 200, r90.text);
      assert.equal(r90.body.days, 90);
      assert.equal(r90.body.series.length, 90);
      assert.equal(r90.body.series[0].date, date(today - 89 * DAY));
      assert.equal(r90.body.series[89].date, date(today));
      assert.equal(
        r90.body.series.reduce((n: number, p: { count: number }) => n + p.count, 0),
        6,
      );
    });

    test('a never-clicked link has all-zero days', async () => {
      const link = await sharedLink(s, w);
      const r = await call(s, 'GET', `/api/v1/links/${link.id}/stats/timeseries?days=30`, { as: w.admin });
      assert.equal(r.body.series.length, 30);
      assert.ok(r.body.series.every((p: { count: number }) => p.count === 0));
    });
  });

  describe('GET /stats/breakdowns', () => {
    test('referrer hosts, browser and OS families, signed-in split; no field names a clicker', async () => {
      const link = await sharedLink(s, w);
      const now = Date.now();
      await clicks(s, link.id, [
        { at: now - MINUTE, referrer: 'https://a.example/x', ua: UA.firefoxWindows, userId: w.share.user.id },
        { at: now - 2 * MINUTE, referrer: 'https://A.example/y?z=1', ua: UA.edgeWindows, userId: w.other.user.id },
        { at: now - 3 * MINUTE, referrer: '', ua: UA.safariIphone },
        { at: now - 4 * MINUTE, referrer: 'not a url', ua: UA.chromeMac },
        { at: now - 5 * MINUTE, referrer: 'https://b.example/', ua: UA.curl },
        { at: now - 6 * MINUTE, referrer: null, ua: null },
        { at: now - 40 * DAY, referrer: 'https://old.example/', ua: UA.curl }, // outside 30 days, inside 90
      ]);
      for (const role of ['owner', 'share', 'admin'] as Role[]) {
        const r = await call(s, 'GET', `/api/v1/links/${link.id}/stats/breakdowns`, { as: as(w, role) });
        assert.equal(r.status, 200, r.text);
        assert.deepEqual(r.body, {
          link_id: link.id,
          days: 30,
          referrers: [
            { host: 'Direct / unknown', count: 3 },
            { host: 'a.example', count: 2 },
            { host: 'b.example', count: 1 },
          ],
          browsers: [
            { name: 'Bot/CLI', count: 1 },
            { name: 'Chrome', count: 1 },
            { name: 'Edge', count: 1 },
            { name: 'Firefox', count: 1 },
            { name: 'Safari', count: 1 },
            { name: 'Unknown', count: 1 },
          ],
          os: [
            { name: 'Windows', count: 2 },
            { name: 'Unknown', count: 1 },
            { name: 'iOS', count: 1 },
            { name: 'macOS', count: 1 },
            { name: 'Other', count: 1 },
          ],
          auth: { authenticated: 2, anonymous: 4 },
        });
        for (const leak of [w.share.user.id, w.other.user.id, w.share.user.displayName, w.other.user.displayName]) {
          assert.ok(!r.text.includes(leak), `${role}: breakdowns carry no identity`);
        }
      }
      const r90 = await call(s, 'GET', `/api/v1/links/${link.id}/stats/breakdowns?days=90`, { as: w.owner });
      assert.equal(r90.body.days, 90);
      assert.equal(r90.body.auth.anonymous, 5);
      assert.ok(r90.body.referrers.some((h: { host: string }) => h.host === 'old.example'));
    });

    test('fourteen hosts: the ten largest, then one Other row summing the four others', async () => {
      const link = await sharedLink(s, w);
      const now = Date.now();
      const many = [];
      for (let h = 0; h < 14; h++)
        for (let k = 0; k <= 14 - h; k++)
          many.push({ at: now - (h * 20 + k + 1) * MINUTE, referrer: `https://h${String(h).padStart(2, '0')}.example/p` });
      await clicks(s, link.id, many);
      const r = await call(s, 'GET', `/api/v1/links/${link.id}/stats/breakdowns`, { as: w.owner });
      const refs = r.body.referrers as Array<{ host: string; count: number }>;
      assert.equal(refs.length, 11);
      assert.deepEqual(
        refs.slice(0, 10).map((x) => x.host),
        Array.from({ length: 10 }, (_, h) => `h${String(h).padStart(2, '0')}.example`),
      );
      assert.deepEqual(refs[10], { host: 'Other', count: 5 + 4 + 3 + 2 }, 'h10…h13');
    });
  });

  test('archived and expired links keep their stats (docs/analytics.md#per-link-stats)', async () => {
    const link = await sharedLink(s, w);
    await clicks(s, link.id, [{ at: Date.now() - DAY }]);
    const archived = await call(s, 'PUT', `/api/v1/links/${link.id}`, { as: w.owner, body: { archived: true } });
    assert.equal(archived.status, 200, archived.text);
    for (const [name, path] of ENDPOINTS) {
      for (const who of [w.owner, w.share]) assert.equal((await call(s, 'GET', path(link.id), { as: who })).status, 200, name);
    }
    assert.equal((await call(s, 'GET', `/api/v1/links/${link.id}/stats`, { as: w.share })).body.total, 1);
  });

  test('the OpenAPI document lists every analytics operation under Stats or Analytics with its named schema', async () => {
    const r = await call(s, 'GET', '/api/docs/swagger.json');
    const doc = r.body as {
      paths: Record<
        string,
        { get: { tags: string[]; responses: Record<string, { content?: Record<string, { schema: { $ref?: string } }> }> } }
      >;
      components: { schemas: Record<string, unknown> };
    };
    const expected: Array<[string, string, string | null]> = [
      ['/links/{id}/stats', 'Stats', 'LinkStatsResponse'],
      ['/links/{id}/clicks', 'Stats', 'ClickListResponse'],
      ['/links/{id}/stats/timeseries', 'Stats', 'TimeSeriesResponse'],
      ['/links/{id}/stats/breakdowns', 'Stats', 'BreakdownsResponse'],
      ['/links/{id}/stats/export', 'Stats', null],
      ['/analytics', 'Analytics', 'AnalyticsResponse'],
    ];
    for (const [path, tag, schema] of expected) {
      const op = doc.paths[path]?.get;
      assert.ok(op, path);
      assert.deepEqual(op.tags, [tag], path);
      if (schema) {
        assert.equal(op.responses['200']!.content!['application/json']!.schema.$ref, `#/components/schemas/${schema}`, path);
        assert.ok(doc.components.schemas[schema], schema);
      } else {
        assert.ok(op.responses['200']!.content!['text/csv'], 'the export is documented as CSV');
      }
      assert.ok(
        ['401', '403', '500'].every((c) => c in op.responses),
        path,
      );
    }
  });

  test('`days` other than exactly 30 or 90 is 400 BAD_REQUEST on the series and the breakdowns', async () => {
    for (const path of ['timeseries', 'breakdowns']) {
      for (const q of [
        'days=7',
        'days=030',
        'days=%2B30',
        'days=',
        'days=30.0',
        'days=%2030',
        'days=ninety',
        'days=30&days=90',
        'days=-30',
        'days=1e2',
      ]) {
        assertError(
          await call(s, 'GET', `/api/v1/links/${w.secure.id}/stats/${path}?${q}`, { as: w.owner }),
          400,
          'BAD_REQUEST',
          `${path}?${q}`,
        );
      }
      for (const q of ['days=30', 'days=90', '']) {
        assert.equal(
          (await call(s, 'GET', `/api/v1/links/${w.secure.id}/stats/${path}?${q}`, { as: w.owner })).status,
          200,
          `${path}?${q}`,
        );
      }
    }
  });
});
