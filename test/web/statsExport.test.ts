import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { encodeClickCursor } from '../../src/domain/clickCursor.js';
import { readCsv } from '../../src/domain/csvRead.js';
import { EXPORT_ROW_CAP } from '../../src/store/analytics.js';
import type { Link, User } from '../../src/store/types.js';
import { addClicks, DAY, HOUR, UA, type ClickSpec } from '../store/analyticsFixtures.js';
import { sessionCookie, startTestServer, type TestServer } from '../helpers/server.js';
import { createLink } from '../helpers/links.js';

/**
 * docs/analytics.md#csv-export: the session route behind the stats page's
 * "Export CSV" button and the bearer-token API route share one iterator and
 * one encoder, so for the same link, caller capabilities and query they must
 * send the same bytes and the same CSV headers. Checked here over real HTTP,
 * with data chosen to stress the encoder (formula prefixes, quotes, commas,
 * line breaks, odd Unicode, ties on clicked_at).
 */

const NOW = Date.UTC(2030, 5, 17, 14, 0, 0);

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function fetchRaw(url: string, headers: Record<string, string>): Promise<Raw> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}

const HOSTILE: ClickSpec[] = [
  { at: NOW - 3 * DAY, referrer: "=cmd|' /C calc'!A0", ua: "@SUM(1+1)*cmd|' /C calc'!A0" },
  { at: NOW - 3 * DAY, referrer: '+1-1', ua: '-2+3' },
  { at: NOW - 3 * DAY, referrer: '\t=1+2', ua: '\r=1+2' },
  { at: NOW - 2 * DAY, referrer: ' \u200b=HYPERLINK("http://evil.example","click")', ua: UA.edgeWindows },
  { at: NOW - 2 * DAY, referrer: 'https://a.example/with,comma"and"quotes', ua: 'line\nbreak\r\nUA' },
  { at: NOW - 2 * DAY, referrer: 'https://ünïcødé.example/🦆', ua: '𝓕𝓲𝓻𝓮𝓯𝓸𝔁 Firefox/1 \u202e' },
  { at: NOW - DAY, referrer: null, ua: null },
  { at: NOW - DAY, referrer: '', ua: UA.curl },
  { at: NOW - HOUR, referrer: 'https://news.example/', ua: UA.safariIphone },
];

describe('CSV export: the web and API routes send byte-identical bodies (docs/analytics.md#csv-export)', () => {
  let s: TestServer;
  let owner: User;
  let recipient: User;
  let link: Link;
  let ids: string[];
  const creds = new Map<User, { cookie: string; token: string }>();

  before(async () => {
    s = await startTestServer({ env: { JOE_API_RATE_LIMIT: '0' }, start: { now: () => NOW } });
    await s.scheduler.stop();
    owner = await s.store.users.create({ email: 'owner@x.io', displayName: 'Owner, "The" =Boss' });
    recipient = await s.store.users.create({ email: 'rec@x.io', displayName: '@Recipient' });
    link = await createLink(s.store, { slug: 'vault', url: 'https://vault.example', visibility: 'secure' }, owner.id, {
      shareWith: [recipient.id],
    });
    ids = await addClicks(
      s.store,
      link.id,
      HOSTILE.map((c, i) => ({ ...c, userId: i % 2 === 0 ? recipient.id : i % 3 === 0 ? owner.id : null })),
    );
    await s.store.clickRollups.rollUp();
    for (const u of [owner, recipient]) {
      creds.set(u, { cookie: await sessionCookie(s.store, u), token: (await s.store.tokens.create(u.id, 'export')).plaintext });
    }
  });
  after(async () => s.stop());

  async function both(u: User, query: string): Promise<{ web: Raw; api: Raw }> {
    const c = creds.get(u)!;
    const [web, api] = await Promise.all([
      fetchRaw(`${s.url}/dashboard/links/${link.id}/stats/export${query}`, { cookie: c.cookie }),
      fetchRaw(`${s.url}/api/v1/links/${link.id}/stats/export${query}`, { authorization: `Bearer ${c.token}` }),
    ]);
    return { web, api };
  }

  function assertSame(r: { web: Raw; api: Raw }, why: string): void {
    assert.equal(r.web.status, 200, `${why}: web ${r.web.body.toString()}`);
    assert.equal(r.api.status, 200, `${why}: api ${r.api.body.toString()}`);
    assert.ok(
      r.web.body.equals(r.api.body),
      `${why}: identical bytes\nweb: ${JSON.stringify(r.web.body.toString())}\napi: ${JSON.stringify(r.api.body.toString())}`,
    );
    for (const h of ['content-type', 'content-disposition', 'x-next-cursor', 'cache-control']) {
      assert.equal(r.web.headers[h], r.api.headers[h], `${why}: ${h}`);
    }
    assert.equal(r.web.headers['content-type'], 'text/csv; charset=utf-8');
    assert.equal(r.web.headers['content-disposition'], 'attachment; filename="vault-clicks.csv"');
  }

  test('a manager and a share recipient, without a window, with from/to, and resuming from a cursor', async () => {
    const tie = NOW - 2 * DAY;
    // The cursor names the second of the three rows tied at `tie`, in (clicked_at, id) order.
    const tied = HOSTILE.map((c, i) => ({ at: c.at, id: ids[i]! }))
      .filter((c) => c.at === tie)
      .sort((a, b) => (a.id < b.id ? -1 : 1));
    const cursor = encodeClickCursor({ clickedAt: tie, id: tied[1]!.id });
    const queries = [
      '',
      `?from=${new Date(NOW - 2 * DAY).toISOString()}`,
      `?to=${encodeURIComponent('2030-06-16T14:00:00+00:00')}`,
      `?from=2030-06-15T00:00:00Z&to=2030-06-16T23:59:59Z`,
      `?cursor=${encodeURIComponent(cursor)}`,
      `?from=2031-01-01T00:00:00Z`,
    ];
    for (const u of [owner, recipient]) {
      for (const q of queries) assertSame(await both(u, q), `${u.email} ${q || '(all)'}`);
    }

    const all = (await both(owner, '')).web.body.toString('utf8');
    const lines = all.split('\r\n');
    assert.equal(lines[0], 'clicked_at,referrer,user_agent,browser,os,authenticated,user');
    assert.ok(all.includes(`"'=cmd|' /C calc'!A0"`) || all.includes(`'=cmd|' /C calc'!A0`), 'formula neutralised');
    assert.ok(all.includes('"Owner, ""The"" =Boss"'), 'names are RFC 4180-quoted');
    assert.ok(all.includes("'@Recipient"), 'a name starting with @ is neutralised');
    const rec = (await both(recipient, '')).web.body.toString('utf8');
    assert.ok(!rec.includes('Recipient') && !rec.includes('Owner'), 'no names for a recipient');
    assert.ok(!rec.includes('Edg/124'), 'no raw user agents for a recipient');
    assert.ok(rec.includes(',Edge,Windows,'), 'families stay');

    const resumed = (await both(owner, `?cursor=${encodeURIComponent(cursor)}`)).web.body.toString('utf8');
    // Parsed, not split on CRLF: a user agent with a line break is one quoted field.
    const resumedRows = [...readCsv(resumed)].length - 1;
    assert.equal(resumedRows, HOSTILE.length - 3 - 2, 'resumes strictly after the named tied row');
  });

  test(
    'at the 100,000-row cap both routes send the same X-Next-Cursor and the same first and second pages',
    { timeout: 180_000 },
    async () => {
      const busy = await createLink(s.store, { slug: 'busy', url: 'https://busy.example' }, owner.id);
      // Runs of ten rows share one clicked_at, so the cap falls inside a tie.
      await addClicks(
        s.store,
        busy.id,
        Array.from({ length: EXPORT_ROW_CAP + 25 }, (_, i) => ({
          at: NOW - 5 * DAY + Math.floor(i / 10) * 1000,
          referrer: i % 7 === 0 ? '=1+1' : null,
          userId: i % 5 === 0 ? recipient.id : null,
        })),
      );
      const c = creds.get(owner)!;
      const get = (path: string, q: string) =>
        Promise.all([
          fetchRaw(`${s.url}/dashboard/links/${busy.id}/stats/export${q}`, { cookie: c.cookie }),
          fetchRaw(`${s.url}/api/v1/links/${busy.id}/stats/export${q}`, { authorization: `Bearer ${c.token}` }),
        ]).then(([web, api]) => ({ web, api, path }));
      const first = await get('first', '');
      assert.ok(first.web.body.equals(first.api.body), 'first page identical');
      const next = first.web.headers['x-next-cursor'];
      assert.equal(typeof next, 'string');
      assert.equal(next, first.api.headers['x-next-cursor']);
      assert.equal(first.web.body.toString().split('\r\n').length - 2, EXPORT_ROW_CAP);
      const second = await get('second', `?cursor=${encodeURIComponent(String(next))}`);
      assert.ok(second.web.body.equals(second.api.body), 'second page identical');
      assert.equal(second.web.headers['x-next-cursor'], undefined);
      assert.equal(second.api.headers['x-next-cursor'], undefined);
      assert.equal(second.web.body.toString().split('\r\n').length - 2, 25);
    },
  );
});
