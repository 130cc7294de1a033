import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { get, type TestServer } from '../helpers/server.js';
import { actor, call, createLink, startApi, type Actor } from './support.js';
import { createLink as createStoredLink } from '../helpers/links.js';

describe('GET /api/v1/links/export', () => {
  let s: TestServer;
  let admin: Actor;
  let alice: Actor;
  before(async () => {
    s = await startApi();
    admin = await actor(s, 'admin', { admin: true });
    alice = await actor(s, 'alice');
  });
  after(async () => s.stop());

  test('streams every link as one JSON object per line, in slug order', async () => {
    const bob = await actor(s, 'bob');
    const b = await createLink(s, alice, {
      slug: 'b-link',
      title: 'B',
      tags: ['Two', 'one'],
      visibility: 'secure',
      expires_at: '2099-01-01T00:00:00Z',
    });
    await call(s, 'POST', `/api/v1/links/${b.id}/owners`, { as: alice, body: { email: bob.user.email } });
    const a = await createLink(s, bob, { slug: 'a-link', url: 'https://a.test/$x', health_checks_disabled: true });
    await call(s, 'PUT', `/api/v1/links/${a.id}`, { as: bob, body: { archived: true } });
    for (let i = 0; i < 1200; i++)
      await createStoredLink(s.store, { slug: `bulk-${String(i).padStart(4, '0')}`, url: 'https://bulk.test' }, alice.user.id);

    const r = await get(`${s.url}/api/v1/links/export`, { authorization: `Bearer ${admin.token}` });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-type'), 'application/x-ndjson');
    assert.equal(r.headers.get('transfer-encoding'), 'chunked', 'streamed, not buffered into one body');
    const text = await r.text();
    assert.ok(text.endsWith('\n'));
    const lines = text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(lines.length, 1202);
    const slugs = lines.map((l) => l.slug);
    assert.deepEqual(slugs, [...slugs].sort());
    assert.deepEqual(lines[0], {
      slug: 'a-link',
      url: 'https://a.test/$x',
      title: '',
      description: '',
      visibility: 'public',
      tags: [],
      owners: [bob.user.email],
      expires_at: null,
      archived_at: lines[0].archived_at,
      health_checks_disabled: true,
      aliases: [],
      forward_path_and_query: false,
      default_url: null,
      created_at: lines[0].created_at,
    });
    assert.match(lines[0].archived_at, /Z$/);
    const bLine = lines.find((l) => l.slug === 'b-link');
    assert.deepEqual(bLine.tags, ['Two', 'one'], 'by name, byte order');
    assert.deepEqual(bLine.owners, [alice.user.email, bob.user.email], 'primary first');
    assert.equal(bLine.expires_at, '2099-01-01T00:00:00.000Z');
    assert.equal(bLine.visibility, 'secure');
  });
});
