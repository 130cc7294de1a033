import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { decodeClickCursor, encodeClickCursor } from '../../src/domain/clickCursor.js';
import { CLICK_CSV_HEADER } from '../../src/domain/csv.js';
import { isAppError } from '../../src/domain/errors.js';
import { NEXT_CURSOR_HEADER, sendClickCsv } from '../../src/http/shared/clickCsv.js';
import { EXPORT_ROW_CAP } from '../../src/store/analytics.js';
import { addClicks, DAY, parseCsv, UA } from '../store/analyticsFixtures.js';
import { sessionCookie, type TestServer } from '../helpers/server.js';
import { as, clicks, MANAGERS, rollupsSettled, sharedLink, statsWorld, type Role, type StatsWorld } from './statsFixture.js';
import { assertError, call, startApi, type Actor } from './support.js';

/**
 * The CSV export route `GET /api/v1/links/{id}/stats/export`
 * (docs/analytics.md#csv-export) and the shared streaming glue both export
 * routes use (src/http/shared/clickCsv.ts), over real HTTP on a real database.
 */

const HEADER = ['clicked_at', 'referrer', 'user_agent', 'browser', 'os', 'authenticated', 'user'];
const exportPath = (id: string, q = '') => `/api/v1/links/${id}/stats/export${q ? `?${q}` : ''}`;

/** The exact bytes of a response, with its status and headers; no decoding on the way. */
function fetchBytes(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('error', reject);
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(parts) }));
      })
      .on('error', reject);
  });
}

const bearer = (a: Actor) => ({ authorization: `Bearer ${a.token}` });

describe('CSV export API', () => {
  let s: TestServer;
  let w: StatsWorld;
  before(async () => {
    s = await startApi();
    await rollupsSettled(s);
    w = await statsWorld(s);
  });
  after(async () => s.stop());

  test('exact header, CSV headers, oldest first; user_agent and user for managers only, families for everyone', async () => {
    const link = await sharedLink(s, w);
    const t0 = Date.now() - 3 * DAY;
    await clicks(s, link.id, [
      { at: t0 + 2000, userId: w.share.user.id, referrer: 'https://wiki.example/page', ua: UA.firefoxWindows },
      { at: t0, userId: null, referrer: null, ua: UA.safariIphone },
      { at: t0 + 1000, userId: w.other.user.id, referrer: '', ua: null },
    ]);
    const expected = (attribution: boolean) => [
      HEADER,
      [new Date(t0).toISOString(), '', attribution ? UA.safariIphone : '', 'Safari', 'iOS', 'false', ''],
      [new Date(t0 + 1000).toISOString(), '', '', 'Unknown', 'Unknown', 'true', attribution ? w.other.user.displayName : ''],
      [
        new Date(t0 + 2000).toISOString(),
        'https://wiki.example/page',
        attribution ? UA.firefoxWindows : '',
        'Firefox',
        'Windows',
        'true',
        attribution ? w.share.user.displayName : '',
      ],
    ];
    for (const role of [...MANAGERS, 'share'] as Role[]) {
      const r = await call(s, 'GET', exportPath(link.id), { as: as(w, role) });
      assert.equal(r.status, 200, `${role}: ${r.text}`);
      assert.equal(r.headers.get('content-type'), 'text/csv; charset=utf-8');
      assert.equal(r.headers.get('content-disposition'), `attachment; filename="${link.slug}-clicks.csv"`);
      assert.equal(r.headers.get(NEXT_CURSOR_HEADER), null, 'a complete export carries no cursor');
      assert.ok(r.text.startsWith(CLICK_CSV_HEADER), 'the header row, CRLF-terminated');
      assert.equal(CLICK_CSV_HEADER, 'clicked_at,referrer,user_agent,browser,os,authenticated,user\r\n');
      assert.deepEqual(parseCsv(r.text), expected(MANAGERS.includes(role)), role);
    }
    const recipient = await call(s, 'GET', exportPath(link.id), { as: w.share });
    for (const leak of [w.share.user.displayName, w.other.user.displayName, w.share.user.id, UA.firefoxWindows]) {
      assert.ok(!recipient.text.includes(leak), `a recipient's export carries no attribution or raw UA (${leak})`);
    }
  });

  test('an empty link exports just the header', async () => {
    const link = await sharedLink(s, w);
    const r = await call(s, 'GET', exportPath(link.id), { as: w.owner });
    assert.equal(r.status, 200);
    assert.equal(r.text, CLICK_CSV_HEADER);
  });

  test('formula cells are neutralised and RFC 4180 quoting applies, in every text column', async () => {
    const link = await sharedLink(s, w);
    const mallory = await s.store.users.create({ email: `mallory-${process.pid}@example.test`, displayName: '@Mallory, "the" =1' });
    const hostile = [
      '=SUM(A1)',
      '+1+1',
      '-2+3',
      '@cmd',
      ' =1+1', // after leading white space
      '\t=1', // TAB first
      '\r=1', // CR first
      '\tplain', // TAB first, even without a trigger
      '\u0007\u200b=HYPERLINK("https://evil.example")', // control and zero-width characters are skipped too
      'https://ok.example/a,b"c"',
      'https://ok.example/safe',
    ];
    const t0 = Date.now() - 2 * DAY;
    await clicks(
      s,
      link.id,
      hostile.map((v, i) => ({ at: t0 + i, referrer: v, ua: v, userId: mallory.id })),
    );
    const expectCell = (v: string) => (/^[\s\u0007\u200b]*[=+\-@]/.test(v) || v.startsWith('\t') || v.startsWith('\r') ? `'${v}` : v);
    const owner = await call(s, 'GET', exportPath(link.id), { as: w.owner });
    const rows = parseCsv(owner.text).slice(1);
    assert.equal(rows.length, hostile.length);
    rows.forEach((row, i) => {
      assert.equal(row.length, 7);
      assert.equal(row[1], expectCell(hostile[i]!), `referrer ${JSON.stringify(hostile[i])}`);
      assert.equal(row[2], expectCell(hostile[i]!), `user_agent ${JSON.stringify(hostile[i])}`);
      assert.equal(row[6], `'@Mallory, "the" =1`, 'display names are escaped as well');
    });
    assert.equal(rows[9]![1], 'https://ok.example/a,b"c"', 'ordinary values are left alone');
    assert.ok(owner.text.includes(`"https://ok.example/a,b""c"""`), 'a comma or quote makes a quoted field with doubled quotes');
    assert.ok(owner.text.includes(`"'@Mallory, ""the"" =1"`));
    assert.ok(owner.text.includes(`"'\t=1"`) || owner.text.includes(`'\t=1`), 'the TAB cell is prefixed');

    const recipient = parseCsv((await call(s, 'GET', exportPath(link.id), { as: w.share })).text).slice(1);
    recipient.forEach((row, i) => {
      assert.equal(row[1], expectCell(hostile[i]!), 'referrers are escaped for recipients too');
      assert.equal(row[2], '');
      assert.equal(row[6], '');
      assert.equal(row[5], 'true');
    });
  });

  test('from and to bound the window inclusively; bad values are 400 BAD_REQUEST', async () => {
    const link = await sharedLink(s, w);
    const t0 = Date.parse('2026-03-01T10:00:00.000Z');
    await addClicks(
      s.store,
      link.id,
      [0, 1000, 2000, 3000, 4000].map((d) => ({ at: t0 + d, referrer: `https://w.example/${d}` })),
    );
    const window = async (q: string) =>
      parseCsv((await call(s, 'GET', exportPath(link.id, q), { as: w.owner })).text)
        .slice(1)
        .map((r) => r[1]);
    assert.deepEqual(await window('from=2026-03-01T10:00:01Z&to=2026-03-01T10:00:03Z'), [
      'https://w.example/1000',
      'https://w.example/2000',
      'https://w.example/3000',
    ]);
    assert.deepEqual(
      await window('from=2026-03-01T11:00:03%2B01:00'),
      ['https://w.example/3000', 'https://w.example/4000'],
      'offsets are honoured',
    );
    assert.deepEqual(await window('to=2026-03-01T10:00:00.000Z'), ['https://w.example/0']);
    assert.deepEqual(await window('from=2026-03-02T00:00:00Z'), []);
    assert.equal((await window('from=&to=&cursor=')).length, 5, 'empty parameters are absent ones');

    for (const q of [
      'from=yesterday',
      'from=2026-02-30T00:00:00Z',
      'from=2026-03-01',
      'to=2026-03-01T10:00:00',
      'to=2026-03-01 10:00:00Z',
      'to=1772359200000',
      'from=2026-03-01T00:00:00Z&from=2026-03-02T00:00:00Z',
      'cursor=junk',
      'cursor=!!!!',
      `cursor=${Buffer.from('no separator').toString('base64url')}`,
      `cursor=${Buffer.from('12\u0000bad id!').toString('base64url')}`,
      `cursor=${encodeClickCursor({ clickedAt: t0, id: 'x' })}A`,
      'cursor=a&cursor=b',
    ]) {
      assertError(await call(s, 'GET', exportPath(link.id, q), { as: w.owner }), 400, 'BAD_REQUEST', q);
    }
  });

  test('a cursor grants nothing: it is a position, and every request is re-authorized for its own link', async () => {
    const a = await sharedLink(s, w);
    const b = await sharedLink(s, w);
    const t0 = Date.now() - 5 * DAY;
    await addClicks(s.store, a.id, [{ at: t0, referrer: 'https://a.example/' }]);
    await addClicks(s.store, b.id, [
      { at: t0 - 1, referrer: 'https://b.old/' },
      { at: t0 + 1, referrer: 'https://b.new/' },
    ]);
    const cursor = encodeClickCursor({ clickedAt: t0, id: '00000000-0000-4000-8000-000000000000' });
    assertError(await call(s, 'GET', exportPath(a.id, `cursor=${cursor}`), { as: w.other }), 403, 'FORBIDDEN');
    assertError(await call(s, 'GET', exportPath(a.id, `cursor=${cursor}`)), 401, 'UNAUTHORIZED');
    const onB = await call(s, 'GET', exportPath(b.id, `cursor=${cursor}`), { as: w.share });
    assert.deepEqual(
      parseCsv(onB.text)
        .slice(1)
        .map((r) => r[1]),
      ['https://b.new/'],
      'on another link the cursor is just a position',
    );
  });

  describe('the shared glue at a small cap (src/http/shared/clickCsv.ts)', () => {
    let glue: FastifyInstance;
    let base: string;
    before(async () => {
      // A real server on the real database that differs from the routes only in the cap it passes.
      glue = Fastify({ logger: false });
      glue.setErrorHandler((err, _req, reply) => {
        if (isAppError(err)) return reply.code(err.status).send({ error: err.message, code: err.code });
        return reply.code(500).send({ error: 'internal', code: 'INTERNAL_ERROR' });
      });
      glue.get<{ Params: { id: string; cap: string }; Querystring: Record<string, unknown> }>('/export/:id/:cap', async (req, reply) => {
        const link = await s.store.links.get(req.params.id);
        assert.ok(link);
        return sendClickCsv(reply, s.store, { link, attribution: true, query: req.query, cap: Number(req.params.cap) });
      });
      await glue.listen({ host: '127.0.0.1', port: 0 });
      base = `http://127.0.0.1:${(glue.server.address() as AddressInfo).port}`;
    });
    after(async () => glue.close());

    test('X-Next-Cursor at the cap, decided before the body; resuming walks every timestamp tie exactly once', async () => {
      const link = await sharedLink(s, w);
      const t0 = Date.now() - 4 * DAY;
      // 23 rows on 4 timestamps: every boundary of a small cap falls inside a tie.
      await addClicks(
        s.store,
        link.id,
        Array.from({ length: 23 }, (_, i) => ({ at: t0 + 1000 * (i % 4), referrer: `https://tie.example/${i}` })),
      );
      for (const cap of [1, 3, 5, 22, 23, 24]) {
        const got: string[][] = [];
        let cursor: string | null = null;
        let responses = 0;
        do {
          const r = await fetchBytes(`${base}/export/${link.id}/${cap}${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`, {});
          assert.equal(r.status, 200);
          assert.equal(r.headers['content-type'], 'text/csv; charset=utf-8');
          const rows = parseCsv(r.bytes.toString('utf8'));
          assert.deepEqual(rows[0], HEADER);
          const next = r.headers[NEXT_CURSOR_HEADER];
          assert.ok(rows.length - 1 <= cap);
          if (next !== undefined) {
            assert.equal(rows.length - 1, cap, `cap ${cap}: a truncated response is full`);
            const p = decodeClickCursor(String(next));
            assert.ok(p, 'the header is a cursor');
            assert.equal(new Date(p.clickedAt).toISOString(), rows.at(-1)![0], 'it names the last row sent');
          }
          got.push(...rows.slice(1));
          cursor = next === undefined ? null : String(next);
          responses++;
        } while (cursor);
        assert.equal(responses, Math.max(1, Math.ceil(23 / cap)), `cap ${cap}`);
        assert.equal(got.length, 23, `cap ${cap}: every row`);
        assert.equal(new Set(got.map((r) => r[1])).size, 23, `cap ${cap}: none twice`);
        const times = got.map((r) => Date.parse(r[0]!));
        assert.ok(
          times.every((t, i) => i === 0 || t >= times[i - 1]!),
          'oldest first',
        );
      }
    });

    test('bad input is thrown before anything is written, so each route answers it in its own style', async () => {
      const link = await sharedLink(s, w);
      for (const q of ['from=nope', 'to=2026-13-01T00:00:00Z', 'cursor=junk', 'from=2026-01-01T00:00:00Z&from=2026-01-02T00:00:00Z']) {
        const r = await fetchBytes(`${base}/export/${link.id}/5?${q}`, {});
        assert.equal(r.status, 400, q);
        assert.equal(JSON.parse(r.bytes.toString('utf8')).code, 'BAD_REQUEST');
        assert.equal(r.headers['content-disposition'], undefined, `${q}: no CSV head went out`);
      }
    });
  });

  test('the API route and the web route send byte-identical bodies and the same CSV headers', async () => {
    const link = await sharedLink(s, w);
    const clicker = await s.store.users.create({ email: `zoe-${process.pid}@example.test`, displayName: 'Zoë "Z" =Ünïcode, Jr.' });
    const t0 = Date.now() - 6 * DAY;
    await addClicks(
      s.store,
      link.id,
      Array.from({ length: 3_000 }, (_, i) => ({
        at: t0 + (i % 97) * 60_000,
        userId: i % 3 === 0 ? clicker.id : null,
        referrer: i % 5 === 0 ? '=HYPERLINK("https://evil.example")' : `https://r${i % 7}.example/p,"${i}"`,
        ua: i % 2 ? UA.edgeWindows : 'Weird-UA/1.0 😀 \u0007',
      })),
    );
    const queries = [
      '',
      `from=${encodeURIComponent(new Date(t0 + 10 * 60_000).toISOString())}&to=${encodeURIComponent(new Date(t0 + 50 * 60_000).toISOString())}`,
    ];
    for (const who of [w.owner, w.share]) {
      const cookie = await sessionCookie(s.store, who.user);
      for (const q of queries) {
        const api = await fetchBytes(`${s.url}${exportPath(link.id, q)}`, bearer(who));
        const web = await fetchBytes(`${s.url}/dashboard/links/${link.id}/stats/export${q ? `?${q}` : ''}`, { cookie });
        assert.equal(api.status, 200);
        assert.equal(web.status, 200, web.bytes.toString('utf8').slice(0, 300));
        assert.ok(api.bytes.length > CLICK_CSV_HEADER.length);
        assert.ok(api.bytes.equals(web.bytes), `${who.user.displayName} ?${q}: identical bytes`);
        for (const h of ['content-type', 'content-disposition', NEXT_CURSOR_HEADER]) assert.equal(web.headers[h], api.headers[h], h);
      }
    }
  });

  test(`the real cap: ${EXPORT_ROW_CAP.toLocaleString('en')} rows and X-Next-Cursor, then the rest across a timestamp tie`, async () => {
    const link = await sharedLink(s, w);
    // One click per millisecond, except that the last ten rows share one timestamp, straddling the cap.
    const base = Date.now() - 200 * DAY;
    const total = EXPORT_ROW_CAP + 7;
    await addClicks(
      s.store,
      link.id,
      Array.from({ length: total }, (_, i) => ({
        at: base + (i >= EXPORT_ROW_CAP - 3 ? EXPORT_ROW_CAP - 3 : i),
        referrer: `https://r.example/${i}`,
        ua: UA.chromeMac,
      })),
    );
    const first = await fetchBytes(`${s.url}${exportPath(link.id)}`, bearer(w.share));
    assert.equal(first.status, 200);
    const next = first.headers[NEXT_CURSOR_HEADER];
    assert.equal(typeof next, 'string', 'truncated: X-Next-Cursor is on the response head');
    const a = parseCsv(first.bytes.toString('utf8'));
    assert.deepEqual(a[0], HEADER);
    assert.equal(a.length - 1, EXPORT_ROW_CAP);
    const second = await fetchBytes(`${s.url}${exportPath(link.id, `cursor=${encodeURIComponent(String(next))}`)}`, bearer(w.share));
    assert.equal(second.status, 200);
    assert.equal(second.headers[NEXT_CURSOR_HEADER], undefined, 'the second response completes the export');
    const b = parseCsv(second.bytes.toString('utf8'));
    assert.equal(b.length - 1, 7);
    const all = [...a.slice(1), ...b.slice(1)];
    assert.equal(new Set(all.map((r) => r[1])).size, total, 'no row skipped or repeated');
    const tie = new Date(base + EXPORT_ROW_CAP - 3).toISOString();
    assert.equal(a.at(-1)![0], tie);
    assert.equal(b[1]![0], tie, 'the tie continues in the second response');
  });
});
