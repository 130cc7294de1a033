import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { get, startTestServer, type TestServer } from '../helpers/server.js';

/** `GET /api/v1/keywords` (docs/api.md#config-keywords-users-and-tokens) over real HTTP. */
describe('GET /api/v1/keywords', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => s.stop());

  const keywords = (headers: Record<string, string> = {}) => get(`${s.url}/api/v1/keywords`, headers);

  test('answers a bare empty array when there are no keywords', async () => {
    const r = await keywords();
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(await r.text(), '[]');
  });

  test('lists keyword names ordered by name, and nothing else about them', async () => {
    for (const [keyword, urlTemplate] of [
      ['wtf', 'https://google.com/search?q={slug}'],
      ['gh', 'https://github.com/{slug}'],
      ['jira', 'https://jira.example.com/browse/{slug}'],
      ['gh-enterprise', 'https://ghe.example.com/{slug}'],
    ] as const) {
      await s.store.keywords.create({ keyword, urlTemplate, description: 'internal detail' });
    }
    const r = await keywords();
    assert.equal(r.status, 200);
    assert.deepEqual(JSON.parse(await r.text()), ['gh', 'gh-enterprise', 'jira', 'wtf']);
  });

  test('is public: no token needed, any Authorization header ignored, no cookie set', async () => {
    const user = await s.store.users.create({ email: 'kw-public@x.io' });
    const { plaintext } = await s.store.tokens.create(user.id, 'cli');
    const expected = JSON.stringify((await s.store.keywords.list()).map((k) => k.keyword));
    const variants: Array<Record<string, string>> = [
      {},
      { authorization: `Bearer ${plaintext}` },
      { authorization: 'Bearer jl_revoked-or-made-up' },
      { authorization: 'Basic Zm9vOmJhcg==' },
      { cookie: 'session=nonsense' },
    ];
    for (const headers of variants) {
      const r = await keywords(headers);
      assert.equal(r.status, 200, JSON.stringify(headers));
      assert.equal(await r.text(), expected);
      assert.equal(r.headers.get('set-cookie'), null);
    }
  });

  test('a newly created or deleted keyword shows at once', async () => {
    const k = await s.store.keywords.create({ keyword: 'aaa', urlTemplate: 'https://a.example/{slug}' });
    assert.equal(JSON.parse(await (await keywords()).text())[0], 'aaa');
    await s.store.keywords.delete(k.id);
    assert.ok(!JSON.parse(await (await keywords()).text()).includes('aaa'));
  });
});

describe('GET /api/v1/keywords request budget', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ env: { JOE_API_RATE_LIMIT: '3' } });
  });
  after(async () => s.stop());

  test('is budgeted per client address: switching tokens does not buy more requests', async () => {
    const user = await s.store.users.create({ email: 'kw-budget@x.io' });
    const tokens = await Promise.all([1, 2, 3].map(async (i) => (await s.store.tokens.create(user.id, `t${i}`)).plaintext));
    const statuses: number[] = [];
    for (const t of tokens) statuses.push((await get(`${s.url}/api/v1/keywords`, { authorization: `Bearer ${t}` })).status);
    const over = await get(`${s.url}/api/v1/keywords`);
    assert.deepEqual(statuses, [200, 200, 200]);
    assert.equal(over.status, 429);
    assert.equal(JSON.parse(await over.text()).code, 'RATE_LIMITED');
    assert.match(over.headers.get('retry-after') ?? '', /^\d+$/);
  });
});

describe('GET /api/v1/keywords when the store fails', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => s.stop());

  test('answers 500 INTERNAL_ERROR in the API error shape', async () => {
    await s.store.db.kysely.schema.dropTable('keywords').execute();
    const r = await get(`${s.url}/api/v1/keywords`);
    assert.equal(r.status, 500);
    assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(JSON.parse(await r.text()), { error: 'internal error', code: 'INTERNAL_ERROR' });
  });
});
