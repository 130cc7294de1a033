import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { ALL_DRIVERS, skipReason } from '../helpers/databases.js';
import { sessionCookie, type TestServer } from '../helpers/server.js';
import { actor, assertError, createLink, snapshot, startApi, type Actor } from '../api/support.js';
import { ACCEPT } from '../mcp/support.js';

/**
 * JSON request bodies are read one strict way on every surface
 * (docs/api.md#request-bodies): bytes that are not UTF-8 and `\uXXXX`
 * escapes leaving a lone surrogate in a value or a key are refused with 400
 * and store nothing; a well-formed astral character is stored and read back
 * the same on every database; an empty body is no body.
 */

interface Sent {
  status: number;
  text: string;
  body: any;
}

/** One request with exactly these bytes as its body (no re-encoding of the text). */
function send(s: TestServer, method: string, path: string, headers: Record<string, string>, body?: Buffer | string): Promise<Sent> {
  const bytes = body === undefined ? undefined : typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${s.url}${path}`,
      { method, headers: { ...headers, ...(bytes ? { 'content-length': String(bytes.length) } : { 'content-length': '0' }) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = text === '' ? undefined : JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          resolve({ status: res.statusCode ?? 0, text, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(bytes);
  });
}

const json = (a: Actor) => ({ authorization: `Bearer ${a.token}`, 'content-type': 'application/json' });

/** `{"url":…,"slug":…, <extra>}` as JSON text, so `extra` can carry escapes JSON.stringify would never write. */
const linkBody = (slug: string, extra: string) => `{"url":"https://example.com/","slug":"${slug}",${extra}}`;

/** Invalid UTF-8 inside a JSON string: a stray continuation byte, an overlong slash, an encoded surrogate (CESU-8). */
const BAD_UTF8: Array<[string, number[]]> = [
  ['a lone 0xff byte', [0xff]],
  ['a stray continuation byte', [0x80]],
  ['an overlong encoding', [0xc0, 0xaf]],
  ['a UTF-8-encoded surrogate', [0xed, 0xa0, 0x80]],
  ['a truncated sequence', [0xe2, 0x82]],
];
const withBytes = (slug: string, bytes: number[]) =>
  Buffer.concat([Buffer.from(linkBody(slug, '"title":"a').slice(0, -1)), Buffer.from(bytes), Buffer.from('b"}')]);

/** Lone surrogates behind escapes, in a value, deep in an array, and in keys at the top and nested. */
const LONE: Array<[string, string]> = [
  ['a lone high surrogate in a value', String.raw`"title":"x\ud800y"`],
  ['a lone low surrogate in a value', String.raw`"title":"\udc00"`],
  ['a reversed pair', String.raw`"title":"\ude80\ud83d"`],
  ['a high surrogate at the end', String.raw`"description":"ok\uD83D"`],
  ['a lone surrogate in an array element', String.raw`"tags":["fine","t\ud800"]`],
  ['a lone surrogate in a key', String.raw`"\ud800":"ignored field"`],
  ['a lone surrogate in a nested key', String.raw`"extra":{"deep":[{"\udfff":1}]}`],
];

const ROCKET = '\u{1F680}';

for (const driver of ALL_DRIVERS) {
  describe(`JSON request bodies [${driver}]`, { skip: skipReason(driver) }, () => {
    let s: TestServer;
    let owner: Actor;
    let linkId = '';

    before(async () => {
      s = await startApi({ driver });
      owner = await actor(s, 'owner');
      linkId = (await createLink(s, owner, { slug: 'existing', title: 'Existing' })).id;
    });
    after(async () => s?.stop());

    test('REST create and update refuse lone surrogates in values and keys at any depth, storing nothing', async () => {
      const before = await snapshot(s);
      for (const [why, extra] of LONE) {
        const created = await send(s, 'POST', '/api/v1/links', json(owner), linkBody('lone', extra));
        assertError({ ...created, headers: { get: () => 'application/json' } }, 400, 'BAD_REQUEST', `POST, ${why}`);
        assert.match(created.body.error, /surrogate/, why);
        const put = await send(s, 'PUT', `/api/v1/links/${linkId}`, json(owner), linkBody('existing', extra));
        assert.equal(put.status, 400, `PUT, ${why}: ${put.text}`);
        assert.equal(put.body.code, 'BAD_REQUEST', why);
      }
      // The reviewer's case: 100 escapes would read back on SQLite as 300 U+FFFD, over the title limit.
      const hundred = await send(s, 'POST', '/api/v1/links', json(owner), linkBody('hundred', `"title":"${'\\ud800'.repeat(100)}"`));
      assert.equal(hundred.status, 400, hundred.text);
      assert.equal(await snapshot(s), before, 'nothing was written');
      assert.equal(await s.store.links.getBySlug('lone'), null);
    });

    test('REST create and update refuse bytes that are not UTF-8, storing nothing', async () => {
      const before = await snapshot(s);
      for (const [why, bytes] of BAD_UTF8) {
        const created = await send(s, 'POST', '/api/v1/links', json(owner), withBytes('bad-bytes', bytes));
        assert.equal(created.status, 400, `POST, ${why}: ${created.text}`);
        assert.deepEqual(Object.keys(created.body).sort(), ['code', 'error']);
        assert.equal(created.body.code, 'BAD_REQUEST', why);
        assert.match(created.body.error, /UTF-8/, why);
        const put = await send(s, 'PUT', `/api/v1/links/${linkId}`, json(owner), withBytes('existing', bytes));
        assert.equal(put.status, 400, `PUT, ${why}: ${put.text}`);
      }
      assert.equal(await snapshot(s), before, 'nothing was written');
    });

    test('a well-formed astral character, raw or as an escaped pair, is stored and read back the same', async () => {
      const title = String.raw`rocket \ud83d\ude80 and ` + ROCKET;
      const created = await send(
        s,
        'POST',
        '/api/v1/links',
        json(owner),
        linkBody('astral', `"title":"${title}","description":"${ROCKET}"`),
      );
      assert.equal(created.status, 201, created.text);
      const expected = `rocket ${ROCKET} and ${ROCKET}`;
      assert.equal(created.body.title, expected);
      assert.equal(created.body.description, ROCKET);
      const read = await send(s, 'GET', `/api/v1/links/${created.body.id}`, { authorization: `Bearer ${owner.token}` });
      assert.equal(read.body.title, expected, 'the API reads back the same text');
      assert.equal((await s.store.links.view(created.body.id))!.title, expected, 'the database holds the same text');
      // What was read can be written back unchanged (the round trip the finding broke).
      const again = await send(s, 'PUT', `/api/v1/links/${created.body.id}`, json(owner), JSON.stringify(read.body));
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.title, expected);
    });

    test('an empty or blank body is no body, whatever Content-Type says', async () => {
      const doomed = await createLink(s, owner, { slug: 'doomed' });
      const gone = await send(s, 'DELETE', `/api/v1/links/${doomed.id}`, json(owner), '');
      assert.equal(gone.status, 204, gone.text);
      assert.equal(await s.store.links.getBySlug('doomed'), null);
      const blank = await createLink(s, owner, { slug: 'blank' });
      const blankGone = await send(s, 'DELETE', `/api/v1/links/${blank.id}`, json(owner), ' \r\n\t');
      assert.equal(blankGone.status, 204, blankGone.text);

      // A route that needs a body answers an empty one as it answers none: its own 400.
      const none = await send(s, 'POST', '/api/v1/links', { authorization: `Bearer ${owner.token}` });
      assert.equal(none.status, 400, none.text);
      const empty = await send(s, 'POST', '/api/v1/links', json(owner), '');
      assert.equal(empty.status, 400, empty.text);
      assert.deepEqual(empty.body, none.body, 'the same missing-body answer');
      assert.equal(empty.body.code, 'BAD_REQUEST');
    });

    test('prototype-poisoning keys are still refused', async () => {
      const before = await snapshot(s);
      for (const extra of ['"__proto__":{"isAdmin":true}', '"constructor":{"prototype":{"isAdmin":true}}']) {
        const r = await send(s, 'POST', '/api/v1/links', json(owner), linkBody('poisoned', extra));
        assert.equal(r.status, 400, `${extra}: ${r.text}`);
        assert.equal(r.body.code, 'BAD_REQUEST');
        // The answer names the rule, not a syntax error the body does not have.
        assert.match(r.body.error, /__proto__ or constructor\.prototype/);
      }
      assert.equal(await snapshot(s), before);
    });

    const mcp = (a: Actor) => ({ authorization: `Bearer ${a.token}`, 'content-type': 'application/json', accept: ACCEPT });
    const createCall = (args: string) =>
      `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"create_link","arguments":{"url":"https://example.com/",${args}}}}`;

    test('MCP refuses lone surrogates and bytes that are not UTF-8 as malformed messages, storing nothing', async () => {
      const before = await snapshot(s);
      const cases: Array<[string, Buffer | string]> = [
        ['a lone surrogate in an argument', createCall(String.raw`"slug":"mcp-lone","title":"\ud800"`)],
        ['a lone surrogate in an argument key', createCall(String.raw`"slug":"mcp-lone","\udc00":"x"`)],
        ['a lone surrogate in the message id', createCall(String.raw`"slug":"mcp-lone"`).replace('"id":7', String.raw`"id":"\ud800"`)],
        [
          'bytes that are not UTF-8',
          Buffer.concat([Buffer.from(createCall('"slug":"mcp-lone","title":"').slice(0, -2)), Buffer.from([0xff]), Buffer.from('"}}}')]),
        ],
      ];
      for (const [why, body] of cases) {
        const r = await send(s, 'POST', '/mcp', mcp(owner), body);
        assert.equal(r.status, 400, `${why}: ${r.text}`);
        assert.equal(r.body.jsonrpc, '2.0', why);
        assert.equal(r.body.error.code, -32700, `${why}: a JSON-RPC parse error`);
        assert.equal(r.body.id, null);
      }
      assert.equal(await snapshot(s), before, 'nothing was written');
    });

    test('MCP stores a well-formed astral character and reads it back the same', async () => {
      const r = await send(
        s,
        'POST',
        '/mcp',
        mcp(owner),
        createCall(String.raw`"slug":"mcp-astral","title":"\ud83d\ude80 ` + ROCKET + '"'),
      );
      assert.equal(r.status, 200, r.text);
      assert.notEqual(r.body.result.isError, true, r.text);
      assert.equal(r.body.result.structuredContent.title, `${ROCKET} ${ROCKET}`);
      assert.equal((await s.store.links.getBySlug('mcp-astral'))!.title, `${ROCKET} ${ROCKET}`);
    });

    test('MCP: DELETE with a JSON content type and no body is still the stateless no-op', async () => {
      const r = await send(s, 'DELETE', '/mcp', mcp(owner), '');
      assert.ok(r.status < 300, `${r.status} ${r.text}`);
    });

    test('a web form posted as JSON meets the same rule', async () => {
      const cookie = await sessionCookie(s.store, owner.user);
      const headers = { cookie, 'content-type': 'application/json' };
      const before = await snapshot(s);
      const lone = await send(s, 'POST', '/dashboard/links', headers, linkBody('web-lone', String.raw`"title":"\ud800"`));
      assert.equal(lone.status, 400, lone.text.slice(0, 200));
      const bytes = await send(s, 'POST', '/dashboard/links', headers, withBytes('web-bytes', [0xff]));
      assert.equal(bytes.status, 400, bytes.text.slice(0, 200));
      assert.equal(await snapshot(s), before, 'nothing was written');
    });
  });
}
