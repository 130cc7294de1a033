import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, beforeEach, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { newStateLinkId } from '../../src/domain/statePayload.js';
import {
  DAY,
  PREFIX,
  asBody,
  decodeFragment,
  encodeState,
  postLink,
  request,
  startStateServer,
  type StateServer,
} from './stateLinkFixtures.js';

/** The HTTP surface of app-state links over real HTTP: every status and code, redirects, pages. */

const SEED_CODES = new Set(['bad_prefix', 'bad_encoding', 'bad_gzip', 'bad_json', 'too_large']);
const TTL = 30 * DAY;
const MISSING = '/_/link-missing';

describe('state links over HTTP', () => {
  let s: StateServer;
  let n = 0;
  const fresh = () => encodeState({ view: 'board', n: ++n });
  const target = (payload: string) => `${s.origin}/_/state${payload}`;

  before(async () => {
    s = await startStateServer();
  });
  after(async () => {
    await s.stop();
  });
  // A new rate window per test, so limits never leak between tests.
  beforeEach(() => {
    s.clock.now += 60_000;
  });

  test('the walkthrough: a link nobody opens expires; opening it keeps it; posting it again moves its expiry', async () => {
    // A link nobody opens expires after UNOPENED_TTL_MS (30 days by default).
    const lonely = fresh();
    const r1 = await postLink(s.origin, lonely);
    assert.equal(r1.status, 201);
    const { id: lonelyId } = r1.json();
    s.clock.now += TTL - 1;
    assert.equal((await request(`${s.origin}/api/links/${lonelyId}`)).status, 200, 'still there a moment before');
    s.clock.now += 1;
    assert.deepEqual((await request(`${s.origin}/api/links/${lonelyId}`)).json(), { error: 'not_found' });
    const gone = await request(`${s.origin}/s/${lonelyId}`);
    assert.equal(gone.status, 302);
    assert.equal(gone.headers.location, `${s.origin}${MISSING}`);
    // Posted again once expired, it is a new link with a new id.
    const r2 = await postLink(s.origin, lonely);
    assert.equal(r2.status, 201);
    assert.notEqual(r2.json().id, lonelyId);

    // Opening a link keeps it for good.
    const kept = fresh();
    const { id: keptId } = (await postLink(s.origin, kept)).json();
    s.clock.now += 10 * DAY;
    const open = await request(`${s.origin}/s/${keptId}`);
    assert.equal(open.status, 302);
    assert.equal(open.headers.location, target(kept));
    s.clock.now += 3 * 365 * DAY;
    assert.equal((await request(`${s.origin}/s/${keptId}`)).headers.location, target(kept));
    const again = await postLink(s.origin, kept);
    assert.equal(again.status, 200, 'an opened link is a duplicate forever');
    assert.equal(again.json().id, keptId);

    // Posting a pending link again moves its expiry to now + TTL.
    const moved = fresh();
    const { id: movedId } = (await postLink(s.origin, moved)).json();
    s.clock.now += 20 * DAY;
    const repost = await postLink(s.origin, moved);
    assert.equal(repost.status, 200);
    assert.deepEqual(repost.json(), { id: movedId, url: `${s.origin}/s/${movedId}` });
    s.clock.now += 20 * DAY; // 40 days after creation, 20 after the re-post
    assert.equal((await request(`${s.origin}/api/links/${movedId}`)).status, 200, 'the read API does not open it');
    s.clock.now += 10 * DAY; // exactly TTL after the re-post
    assert.equal((await request(`${s.origin}/api/links/${movedId}`)).status, 404);

    // The sweep then deletes the expired rows and keeps the opened one.
    await s.store.stateLinks.sweepExpired();
    const ids = (await s.store.db.kysely.selectFrom('state_links').select('id').execute()).map((r) => r.id);
    assert.ok(ids.includes(keptId));
    assert.ok(!ids.includes(lonelyId) && !ids.includes(movedId));
  });

  test('201 for a new payload, 200 with the same id and url for a duplicate', async () => {
    const payload = fresh();
    const r = await postLink(s.origin, payload);
    assert.equal(r.status, 201);
    assert.match(r.headers['content-type'] ?? '', /^application\/json/);
    assert.equal(r.headers['cache-control'], 'no-store');
    const body = r.json();
    assert.match(body.id!, /^[0-9A-Za-z]{10}$/);
    assert.deepEqual(body, { id: body.id, url: `${s.origin}/s/${body.id}` });
    const dup = await postLink(s.origin, payload, { 'content-type': 'text/plain; charset=UTF-8' });
    assert.equal(dup.status, 200);
    assert.deepEqual(dup.json(), body);
  });

  test('each seed code answers 400 (or 413) with { "error": code } and stores nothing', async () => {
    const before = await s.store.stateLinks.storedBytes();
    const cases: Array<[string, number, string]> = [
      ['bad_prefix', 400, '#other=v1.H4sI'],
      ['bad_encoding', 400, `${fresh()}=`],
      ['bad_gzip', 400, asBody(Buffer.concat([gzipSync('{}'), gzipSync('{}')]))],
      ['bad_json', 400, asBody(gzipSync('[1,2,3]'))],
      ['too_large', 413, asBody(gzipSync(`{"a":"${'x'.repeat(300_000)}"}`))],
      ['too_large', 413, PREFIX + 'A'.repeat(65_537)],
    ];
    for (const [code, status, body] of cases) {
      const r = await postLink(s.origin, body);
      assert.equal(r.status, status, code);
      assert.deepEqual(r.json(), { error: code });
    }
    assert.equal(await s.store.stateLinks.storedBytes(), before);
  });

  test('415 unsupported_media_type for anything but text/plain; its parameters are ignored', async () => {
    for (const ct of [
      'application/json',
      'text/html',
      'text/plainx',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ]) {
      const r = await postLink(s.origin, fresh(), { 'content-type': ct });
      assert.equal(r.status, 415, ct);
      assert.deepEqual(r.json(), { error: 'unsupported_media_type' });
    }
    const none = await request(`${s.origin}/api/links`, { method: 'POST', body: fresh() });
    assert.equal(none.status, 415);
    for (const ct of ['Text/Plain', 'text/plain;charset=iso-8859-1', 'text/plain ; format=flowed']) {
      assert.equal((await postLink(s.origin, fresh(), { 'content-type': ct })).status, 201, ct);
    }
  });

  test('403 forbidden_origin for another Origin or a cross-site fetch; the own origin and non-browsers pass', async () => {
    const refused: Array<Record<string, string>> = [
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { origin: `${s.origin}.evil.example` },
      { origin: s.origin.replace('127.0.0.1', 'localhost') },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { 'sec-fetch-site': 'none' },
      { origin: s.origin, 'sec-fetch-site': 'cross-site' },
    ];
    for (const headers of refused) {
      const r = await postLink(s.origin, fresh(), headers);
      assert.equal(r.status, 403, JSON.stringify(headers));
      assert.deepEqual(r.json(), { error: 'forbidden_origin' });
    }
    assert.equal((await postLink(s.origin, fresh(), { origin: s.origin, 'sec-fetch-site': 'same-origin' })).status, 201);
    assert.equal((await postLink(s.origin, fresh())).status, 201);
  });

  test('the body limit is enforced while streaming: an endless body is refused before it ends', async () => {
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(`${s.origin}/api/links`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain', 'transfer-encoding': 'chunked' },
      });
      req.on('response', (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body });
          req.destroy();
        });
      });
      req.on('error', () => {});
      req.write(PREFIX);
      // Keep sending well past the limit, never ending the request.
      let sent = 0;
      const pump = setInterval(() => {
        if (sent > 2_000_000) return;
        req.write('A'.repeat(16_384));
        sent += 16_384;
      }, 2);
      setTimeout(() => {
        clearInterval(pump);
        reject(new Error('no answer while the body was still streaming'));
      }, 20_000).unref(); // generous: the request never ends, so any answer at all proves the point
      req.on('close', () => clearInterval(pump));
    });
    assert.equal(answer.status, 413);
    assert.deepEqual(JSON.parse(answer.body), { error: 'too_large' });
  });

  test('a declared Content-Length that cannot fit is refused before any body is read', async () => {
    const answer = await new Promise<number>((resolve, reject) => {
      const req = http.request(`${s.origin}/api/links`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain', 'content-length': String(50 * 1024 * 1024) },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      req.on('error', () => {});
      req.write('#state');
      setTimeout(() => reject(new Error('no early answer')), 5_000).unref();
    });
    assert.equal(answer, 413);
  });

  test('GET and HEAD /s/<id> redirect to PUBLIC_ORIGIN + LINK_TARGET_PATH + payload, never built from Host', async () => {
    const payload = fresh();
    const { id } = (await postLink(s.origin, payload)).json();
    for (const method of ['GET', 'HEAD']) {
      const r = await request(`${s.origin}/s/${id}?utm=x`, {
        method,
        headers: { host: 'evil.example', 'x-forwarded-host': 'evil.example' },
      });
      assert.equal(r.status, 302);
      assert.equal(r.headers.location, target(payload));
      assert.equal(r.headers['cache-control'], 'no-store, no-transform');
      assert.equal(r.body, '');
    }
  });

  test('every other path under /s, and unknown or malformed ids, go to LINK_MISSING_PATH', async () => {
    const { id } = (await postLink(s.origin, fresh())).json();
    const paths = [
      '/s',
      '/s/',
      '/s/a/b',
      `/s/${id}/`,
      `/s/${id}/x`,
      `/s/${id}x`,
      `/s/${id.slice(1)}`,
      `/s/${newStateLinkId()}`,
      '/s/a.b',
      '/s/%00',
      '/s/%41%41',
      '/s?x=1',
    ];
    // Ids are case-sensitive: the same letters in another case are another (unknown) id.
    const at = id.search(/[A-Za-z]/);
    if (at >= 0) {
      const c = id[at]!;
      paths.push(`/s/${id.slice(0, at)}${c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()}${id.slice(at + 1)}`);
    }
    for (const path of paths) {
      const r = await request(`${s.origin}${path}`, { headers: { host: 'evil.example' } });
      assert.equal(r.status, 302, path);
      assert.equal(r.headers.location, `${s.origin}${MISSING}`, path);
    }
  });

  test('the first GET or HEAD opens the link: it no longer expires', async () => {
    for (const method of ['GET', 'HEAD']) {
      const payload = fresh();
      const { id } = (await postLink(s.origin, payload)).json();
      assert.equal((await request(`${s.origin}/s/${id}`, { method })).status, 302);
      s.clock.now += 2 * TTL;
      assert.equal((await request(`${s.origin}/s/${id}`)).headers.location, target(payload), method);
    }
  });

  test('concurrent first opens all redirect to the target', async () => {
    const payload = fresh();
    const { id } = (await postLink(s.origin, payload)).json();
    const all = await Promise.all(Array.from({ length: 10 }, () => request(`${s.origin}/s/${id}`)));
    for (const r of all) assert.equal(r.headers.location, target(payload));
  });

  test('GET /api/links/<id> returns id, payload and createdAt in UTC RFC 3339, and does not open the link', async () => {
    const payload = fresh();
    const created = s.clock.now;
    const { id } = (await postLink(s.origin, payload)).json();
    const r = await request(`${s.origin}/api/links/${id}`);
    assert.equal(r.status, 200);
    assert.deepEqual(r.json(), { id, payload, createdAt: new Date(created).toISOString() });
    assert.match(r.json().createdAt!, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    assert.equal((await request(`${s.origin}/api/links/${id}`, { method: 'HEAD' })).status, 200);
    s.clock.now += TTL;
    assert.equal((await request(`${s.origin}/api/links/${id}`)).status, 404, 'reading it never opened it');
    for (const path of ['/api/links/nope', `/api/links/${newStateLinkId()}`, '/api/links/a/b', '/api/links/']) {
      const miss = await request(`${s.origin}${path}`);
      assert.equal(miss.status, 404, path);
      assert.deepEqual(miss.json(), { error: 'not_found' });
    }
  });

  test('503 unavailable when every drawn id is taken, and a new payload still stores once ids are free', async () => {
    const original = s.store.stateLinks.drawId;
    try {
      s.store.stateLinks.drawId = () => 'Taken00000';
      assert.equal((await postLink(s.origin, fresh())).status, 201);
      const r = await postLink(s.origin, fresh());
      assert.equal(r.status, 503);
      assert.deepEqual(r.json(), { error: 'unavailable' });
    } finally {
      s.store.stateLinks.drawId = original;
    }
    assert.equal((await postLink(s.origin, fresh())).status, 201);
  });

  test('/_/link-missing is a styled 404 page saying the link is gone', async () => {
    const r = await request(`${s.origin}${MISSING}`);
    assert.equal(r.status, 404);
    assert.match(r.headers['content-type'] ?? '', /^text\/html/);
    assert.match(r.body, /This link is gone/);
    assert.match(r.body, /<link rel="stylesheet"/);
  });

  test('/_/state serves the demo app with no inline script, following PAYLOAD_PREFIX', async () => {
    const r = await request(`${s.origin}/_/state`);
    assert.equal(r.status, 200);
    assert.match(r.body, /data-prefix="#state=v1\."/);
    const scripts = [...r.body.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    assert.ok(
      scripts.some((m) => /src="[^"]*state-demo[^"]*\.js"/.test(m[1]!)),
      'demo script referenced',
    );
    for (const m of scripts) {
      assert.match(m[1]!, /\bsrc="/, 'every script is external');
      assert.equal(m[2]!.trim(), '', 'no inline script body');
    }
    const js = await request(`${s.origin}${/src="([^"]*state-demo[^"]*)"/.exec(r.body)![1]}`);
    assert.equal(js.status, 200);
    assert.match(js.body, /CompressionStream\('gzip'\)/);
  });
});

describe('state link rate limits', () => {
  let s: StateServer;
  const client = (ip: string) => ({ 'x-forwarded-for': ip });
  let n = 0;
  const fresh = () => encodeState({ limits: ++n });

  before(async () => {
    s = await startStateServer({
      JOE_TRUSTED_PROXIES: '127.0.0.1',
      JOE_STATE_LINKS_RATE_WINDOW: '1m',
      JOE_STATE_LINKS_MAX_ATTEMPTS: '8',
      JOE_STATE_LINKS_MAX_CREATES: '2',
      JOE_STATE_LINKS_MAX_READS: '3',
    });
  });
  after(async () => {
    await s.stop();
  });
  beforeEach(() => {
    s.clock.now += 60_000;
  });

  test('every POST counts as an attempt; past the limit: 429 rate_limited with Retry-After until the window ends', async () => {
    const me = client('203.0.113.10');
    const dup = fresh();
    await postLink(s.origin, dup, me);
    const statuses = [
      (await postLink(s.origin, dup, me)).status,
      (await postLink(s.origin, 'nope', me)).status,
      (await postLink(s.origin, dup, { ...me, 'content-type': 'application/json' })).status,
      (await postLink(s.origin, dup, { ...me, origin: 'https://evil.example' })).status,
      (await postLink(s.origin, dup, me)).status,
      (await request(`${s.origin}/api/links`, { method: 'POST', headers: me, body: dup })).status,
      (await postLink(s.origin, PREFIX, me)).status,
    ];
    assert.deepEqual(statuses, [200, 400, 415, 403, 200, 415, 400]);
    const r = await postLink(s.origin, dup, me);
    assert.equal(r.status, 429);
    assert.deepEqual(r.json(), { error: 'rate_limited' });
    assert.equal(r.headers['retry-after'], '60');
    s.clock.now += 45_000;
    assert.equal((await postLink(s.origin, dup, me)).headers['retry-after'], '15');
    assert.equal((await postLink(s.origin, dup, client('203.0.113.11'))).status, 200, 'another client is not affected');
    s.clock.now += 15_000;
    assert.equal((await postLink(s.origin, dup, me)).status, 200, 'a new window');
  });

  test('only new links count as creations: duplicates and refusals do not, and a failed store gives its slot back', async () => {
    const me = client('203.0.113.20');
    const first = fresh();
    assert.equal((await postLink(s.origin, first, me)).status, 201);
    assert.equal((await postLink(s.origin, first, me)).status, 200);
    assert.equal((await postLink(s.origin, '#state=v1.', me)).status, 400);
    const original = s.store.stateLinks.drawId;
    try {
      s.store.stateLinks.drawId = () => ((s.store.stateLinks.drawId = () => 'Blocked000'), 'Blocked000');
      await postLink(s.origin, fresh(), client('203.0.113.21'));
      assert.equal((await postLink(s.origin, fresh(), me)).status, 503);
    } finally {
      s.store.stateLinks.drawId = original;
    }
    assert.equal((await postLink(s.origin, fresh(), me)).status, 201, 'second creation of the window');
    const over = await postLink(s.origin, fresh(), me);
    assert.equal(over.status, 429);
    assert.deepEqual(over.json(), { error: 'rate_limited' });
    assert.ok(Number(over.headers['retry-after']) >= 1);
    assert.equal((await postLink(s.origin, first, me)).status, 200, 'duplicates are still answered');
  });

  test('reads of /s/ and /api/links/ share one limit per client', async () => {
    const me = client('203.0.113.30');
    const { id } = (await postLink(s.origin, fresh(), client('203.0.113.31'))).json();
    assert.equal((await request(`${s.origin}/s/${id}`, { headers: me })).status, 302);
    assert.equal((await request(`${s.origin}/api/links/${id}`, { headers: me })).status, 200);
    assert.equal((await request(`${s.origin}/s/not-an-id`, { method: 'HEAD', headers: me })).status, 302);
    for (const path of [`/s/${id}`, `/api/links/${id}`, '/s/x']) {
      const r = await request(`${s.origin}${path}`, { headers: me });
      assert.equal(r.status, 429, path);
      assert.equal(r.headers['retry-after'], '60');
      assert.deepEqual(r.json(), { error: 'rate_limited' });
    }
    assert.equal((await request(`${s.origin}/s/${id}`, { headers: client('203.0.113.32') })).status, 302);
  });
});

describe('state links served for an app elsewhere', () => {
  let s: StateServer;
  const APP = 'https://app.example.test';
  const prefix = '#AZaz09._~=-';

  before(async () => {
    s = await startStateServer({
      PUBLIC_ORIGIN: APP,
      LINK_TARGET_PATH: '/open',
      LINK_MISSING_PATH: '/gone',
      PAYLOAD_PREFIX: prefix,
      JOE_STATE_LINKS_MAX_READS: '4',
    });
  });
  after(async () => {
    await s.stop();
  });

  test('urls and redirects use PUBLIC_ORIGIN, the target and missing paths and the prefix', async () => {
    const payload = encodeState({ far: true }, prefix);
    const r = await postLink(s.origin, payload, { origin: APP, 'sec-fetch-site': 'same-origin' });
    assert.equal(r.status, 201);
    const { id } = r.json();
    assert.equal(r.json().url, `${APP}/s/${id}`);
    assert.equal((await request(`${s.origin}/s/${id}`)).headers.location, `${APP}/open${payload}`);
    assert.deepEqual(decodeFragment(`${prefix}${payload.slice(prefix.length)}`, prefix), { far: true });
    assert.equal((await request(`${s.origin}/s/nope`)).headers.location, `${APP}/gone`);
    assert.deepEqual((await postLink(s.origin, encodeState({ far: true }))).json(), { error: 'bad_prefix' });
  });

  test('a page on this server itself is another origin, and the demo page is not served', async () => {
    const r = await postLink(s.origin, encodeState({ x: 1 }, prefix), { origin: s.origin });
    assert.equal(r.status, 403);
    assert.equal((await request(`${s.origin}/_/state`)).status, 404);
  });

  test('without trusted proxies, X-Forwarded-For does not make a new client', async () => {
    let last = 0;
    for (let i = 0; i < 6; i++) last = (await request(`${s.origin}/s/nope`, { headers: { 'x-forwarded-for': `198.51.100.${i}` } })).status;
    assert.equal(last, 429);
  });
});

describe('state link storage cap', () => {
  let s: StateServer;
  before(async () => {
    s = await startStateServer({ JOE_STATE_LINKS_MAX_BYTES: '130' });
  });
  after(async () => {
    await s.stop();
  });

  test('507 storage_full past JOE_STATE_LINKS_MAX_BYTES, and room again once expired links are swept', async () => {
    const a = encodeState({ cap: 'a' });
    const b = encodeState({ cap: 'b' });
    const c = encodeState({ cap: 'c' });
    assert.ok(a.length + b.length <= 130 && a.length + b.length + c.length > 130, `${a.length}`);
    assert.equal((await postLink(s.origin, a)).status, 201);
    assert.equal((await postLink(s.origin, b)).status, 201);
    const full = await postLink(s.origin, c);
    assert.equal(full.status, 507);
    assert.deepEqual(full.json(), { error: 'storage_full' });
    assert.equal((await postLink(s.origin, a)).status, 200, 'a duplicate needs no room');
    s.clock.now += TTL + 1;
    assert.equal((await postLink(s.origin, c)).status, 201);
  });
});

describe('state links over HTTP: properties', () => {
  let s: StateServer;
  before(async () => {
    s = await startStateServer({
      JOE_STATE_LINKS_MAX_ATTEMPTS: '100000',
      JOE_STATE_LINKS_MAX_CREATES: '100000',
      JOE_STATE_LINKS_MAX_READS: '100000',
    });
  });
  after(async () => {
    await s.stop();
  });
  const state = fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 3 }), { minKeys: 1, maxKeys: 6 });

  test('any valid state round-trips: post, follow /s/<id>, decode the fragment', async () => {
    await fc.assert(
      fc.asyncProperty(state, async (st) => {
        const payload = encodeState(st);
        const r = await postLink(s.origin, payload);
        assert.ok(r.status === 201 || r.status === 200, `${r.status} ${r.body}`);
        const loc = (await request(`${s.origin}/s/${r.json().id}`)).headers.location!;
        const base = `${s.origin}/_/state`;
        assert.ok(loc.startsWith(base));
        assert.equal(JSON.stringify(decodeFragment(loc.slice(base.length))), JSON.stringify(st));
      }),
      { numRuns: 40 },
    );
  });

  test('any single-byte mutation of a valid body gets a seed code or a link, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(state, fc.nat(), fc.integer({ min: 0, max: 255 }), async (st, at, byte) => {
        const body = Buffer.from(encodeState(st), 'latin1');
        const i = at % body.length;
        fc.pre(body[i] !== byte);
        body[i] = byte;
        const r = await postLink(s.origin, body);
        assert.ok(r.status < 500, `${r.status} ${r.body}`);
        if (r.status === 200 || r.status === 201) assert.match(r.json().id!, /^[0-9A-Za-z]{10}$/);
        else assert.ok(SEED_CODES.has(r.json().error!), r.body);
      }),
      { numRuns: 150 },
    );
  });
});
