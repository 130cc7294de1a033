import assert from 'node:assert/strict';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { test } from 'node:test';
import { decodeClickCursor } from '../../src/domain/clickCursor.js';
import { CLICK_CSV_HEADER } from '../../src/domain/csv.js';
import { AppError } from '../../src/domain/errors.js';
import { EXPORT_ROW_CAP, type ClickExport } from '../../src/store/analytics.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { addClicks, DAY, mkLink, mkUser, parseCsv, UA } from './analyticsFixtures.js';

/**
 * The CSV export iterator both export routes share
 * (docs/analytics.md#csv-export), on every database.
 */

async function collect(rows: AsyncIterable<string>): Promise<string> {
  let out = '';
  for await (const chunk of rows) out += chunk;
  return out;
}

/** The way an HTTP route consumes it: a Readable piped into the socket, bytes out. */
async function pipeToBytes(rows: AsyncIterable<string>): Promise<Buffer> {
  const parts: Buffer[] = [];
  await pipeline(
    Readable.from(rows),
    new Writable({
      write(chunk: Buffer | string, _enc, cb) {
        parts.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk, 'utf8'));
        cb();
      },
    }),
  );
  return Buffer.concat(parts);
}

const body = async (e: ClickExport) => parseCsv(await collect(e.rows));

describeEachDatabase('CSV export', (ctx) => {
  const NOW = Date.UTC(2026, 6, 17, 14, 0, 0);

  test('exact header, oldest first, attribution for managers only, families for everyone', async () => {
    const c = ctx();
    c.clock.now = NOW;
    const owner = await mkUser(c.store, 'Olive');
    const clicker = await mkUser(c.store, 'Clara');
    const link = await mkLink(c, owner);
    await addClicks(c.store, link.id, [
      { at: NOW - DAY, userId: clicker.id, referrer: 'https://wiki.example/page', ua: UA.firefoxWindows },
      { at: NOW - 2 * DAY, userId: null, referrer: null, ua: UA.safariIphone },
      { at: NOW - 3 * DAY, userId: clicker.id, referrer: '', ua: null },
    ]);
    const manager = await c.store.analytics.exportClicks(link.id, { attribution: true });
    assert.equal(manager.nextCursor, null);
    const m = await body(manager);
    assert.deepEqual(m, [
      ['clicked_at', 'referrer', 'user_agent', 'browser', 'os', 'authenticated', 'user'],
      [new Date(NOW - 3 * DAY).toISOString(), '', '', 'Unknown', 'Unknown', 'true', 'Clara'],
      [new Date(NOW - 2 * DAY).toISOString(), '', UA.safariIphone, 'Safari', 'iOS', 'false', ''],
      [new Date(NOW - DAY).toISOString(), 'https://wiki.example/page', UA.firefoxWindows, 'Firefox', 'Windows', 'true', 'Clara'],
    ]);
    const recipient = await body(await c.store.analytics.exportClicks(link.id, { attribution: false }));
    assert.equal(recipient.length, 4);
    for (const row of recipient.slice(1)) {
      assert.equal(row.length, 7);
      assert.equal(row[2], '', 'user_agent blank without CanManageShares');
      assert.equal(row[6], '', 'user blank without CanManageShares');
    }
    assert.deepEqual(
      recipient.slice(1).map((r) => [r[3], r[4], r[5]]),
      [
        ['Unknown', 'Unknown', 'true'],
        ['Safari', 'iOS', 'false'],
        ['Firefox', 'Windows', 'true'],
      ],
    );
  });

  test('stored formulas arrive neutralised', async () => {
    const c = ctx();
    c.clock.now = NOW;
    const owner = await mkUser(c.store, 'Olive');
    const link = await mkLink(c, owner);
    await addClicks(c.store, link.id, [
      { at: NOW - 3, referrer: '=SUM(A1)', ua: '+cmd|" /C calc"!A0' },
      { at: NOW - 2, referrer: ' \t-2+3', ua: '@SUM(1,2)' },
      { at: NOW - 1, referrer: '\t=1', ua: '\rplain' },
    ]);
    const rows = (await body(await c.store.analytics.exportClicks(link.id, { attribution: true }))).slice(1);
    assert.deepEqual(
      rows.map((r) => [r[1], r[2]]),
      [
        ["'=SUM(A1)", `'+cmd|" /C calc"!A0`],
        ["' \t-2+3", "'@SUM(1,2)"],
        ["'\t=1", "'\rplain"],
      ],
    );
  });

  test('from/to are inclusive bounds; a malformed cursor is refused', async () => {
    const c = ctx();
    c.clock.now = NOW;
    const owner = await mkUser(c.store, 'Olive');
    const link = await mkLink(c, owner);
    await addClicks(
      c.store,
      link.id,
      Array.from({ length: 10 }, (_, i) => ({ at: NOW - i * DAY, referrer: `https://r.example/${i}` })),
    );
    const e = await c.store.analytics.exportClicks(link.id, { attribution: true, from: NOW - 5 * DAY, to: NOW - 2 * DAY });
    assert.deepEqual(
      (await body(e)).slice(1).map((r) => r[1]),
      ['https://r.example/5', 'https://r.example/4', 'https://r.example/3', 'https://r.example/2'],
    );
    for (const cursor of ['not-a-cursor', Buffer.from('123').toString('base64url')]) {
      await assert.rejects(
        c.store.analytics.exportClicks(link.id, { attribution: true, cursor }),
        (err: unknown) => err instanceof AppError && err.code === 'BAD_REQUEST' && err.field === 'cursor',
      );
    }
  });

  test('small caps walk every tie exactly once', async () => {
    const c = ctx();
    c.clock.now = NOW;
    const owner = await mkUser(c.store, 'Olive');
    const link = await mkLink(c, owner);
    // 23 rows over 4 timestamps: every page boundary falls inside a tie.
    await addClicks(
      c.store,
      link.id,
      Array.from({ length: 23 }, (_, i) => ({ at: NOW - 1000 * (i % 4), referrer: `https://r.example/${i}` })),
    );
    for (const cap of [1, 3, 5, 7, 23]) {
      const got: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const e: ClickExport = await c.store.analytics.exportClicks(link.id, { attribution: true, cap, cursor });
        const rows = (await body(e)).slice(1);
        assert.ok(rows.length <= cap);
        if (e.nextCursor) assert.equal(rows.length, cap, 'a truncated page is full');
        got.push(...rows.map((r) => `${r[0]} ${r[1]}`));
        cursor = e.nextCursor;
        pages++;
      } while (cursor);
      assert.equal(pages, Math.ceil(23 / cap));
      assert.equal(got.length, 23, `cap ${cap}`);
      assert.equal(new Set(got).size, 23, `cap ${cap}: no duplicates`);
      assert.deepEqual(
        got,
        [...got].sort((a, b) => (a.slice(0, 24) < b.slice(0, 24) ? -1 : a.slice(0, 24) > b.slice(0, 24) ? 1 : 0)),
        'oldest first',
      );
    }
  });

  test('150,000 clicks: exactly 100,000 rows and X-Next-Cursor, then the rest across a timestamp tie, no skip, no duplicate', async () => {
    const c = ctx();
    c.clock.now = NOW;
    const owner = await mkUser(c.store, 'Olive');
    const link = await mkLink(c, owner);
    // One click per millisecond, except that rows 99,990–100,009 all share one timestamp.
    const base = NOW - 10 * DAY;
    const clicks = Array.from({ length: 150_000 }, (_, i) => ({
      at: base + (i >= 99_990 && i < 100_010 ? 99_990 : i),
      referrer: `https://r.example/${i}`,
      ua: UA.chromeMac,
    }));
    await addClicks(c.store, link.id, clicks);

    const first = await c.store.analytics.exportClicks(link.id, { attribution: false });
    assert.ok(first.nextCursor, 'truncated: a cursor is known before streaming');
    assert.equal(
      decodeClickCursor(first.nextCursor!)!.clickedAt,
      base + 99_990,
      'the cursor holds the exact stored clicked_at of the last row',
    );
    const a = (await body(first)).slice(1);
    assert.equal(a.length, EXPORT_ROW_CAP);
    const second = await c.store.analytics.exportClicks(link.id, { attribution: false, cursor: first.nextCursor });
    assert.equal(second.nextCursor, null, 'the second response completes the export');
    const b = (await body(second)).slice(1);
    assert.equal(b.length, 50_000);
    const refs = [...a, ...b].map((r) => r[1]);
    assert.equal(new Set(refs).size, 150_000, 'no row repeated');
    const times = [...a, ...b].map((r) => Date.parse(r[0]!));
    assert.ok(
      times.every((t, i) => i === 0 || t >= times[i - 1]!),
      'oldest first across both responses',
    );
    assert.equal(a.at(-1)![0], new Date(base + 99_990).toISOString());
    assert.equal(b[0]![0], new Date(base + 99_990).toISOString(), 'the tie continues in the second response');
  });

  test('the export iterator and a route-style piped consumer produce byte-identical output', async () => {
    const c = ctx();
    c.clock.now = NOW;
    const owner = await mkUser(c.store, 'Olive');
    const clicker = await mkUser(c.store, 'Zoë "Z" =Ünïcode, Jr.');
    const link = await mkLink(c, owner);
    await addClicks(
      c.store,
      link.id,
      Array.from({ length: 4_321 }, (_, i) => ({
        at: NOW - (i % 97) * 60_000,
        userId: i % 3 === 0 ? clicker.id : null,
        referrer: i % 5 === 0 ? '=HYPERLINK("https://evil.example")' : `https://r${i % 7}.example/p,"${i}"\n`,
        ua: i % 2 ? UA.edgeWindows : 'Weird-UA/1.0 😀 \u0007',
      })),
    );
    for (const attribution of [true, false]) {
      const opts = { attribution, from: NOW - 90 * 60_000 };
      const iterated = Buffer.from(await collect((await c.store.analytics.exportClicks(link.id, opts)).rows), 'utf8');
      const piped = await pipeToBytes((await c.store.analytics.exportClicks(link.id, opts)).rows);
      assert.ok(iterated.equals(piped), 'same bytes from both consumers');
      assert.ok(iterated.subarray(0, CLICK_CSV_HEADER.length).equals(Buffer.from(CLICK_CSV_HEADER)));
      const rows = parseCsv(iterated.toString('utf8'));
      assert.ok(rows.length > 1 && rows.every((r) => r.length === 7));
    }
  });
});
