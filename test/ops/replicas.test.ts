import assert from 'node:assert/strict';
import http from 'node:http';
import { describe, test } from 'node:test';
import { createTestDatabase } from '../helpers/databases.js';
import { skipWithout, spawnServer, waitFor, type ServerProcess } from './support.js';

/**
 * docs/server.md#running-several-replicas: two replicas sharing PostgreSQL behind a
 * round-robin proxy are interchangeable. Sessions, sign-in links, tokens and
 * links live in the database, so whichever replica answers sees the same
 * state at once: no sticky sessions, no cache to wait out.
 */

interface Hop {
  status: number;
  upstream: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A tiny round-robin reverse proxy; every response names the replica that answered. */
function roundRobinProxy(upstreams: () => ServerProcess[]): Promise<{ url: string; close(): Promise<void> }> {
  let next = 0;
  const server = http.createServer((req, res) => {
    const list = upstreams();
    const up = list[next++ % list.length]!;
    const target = new URL(up.url);
    const out = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers, agent: false },
      (upRes) => {
        res.writeHead(upRes.statusCode ?? 502, { ...upRes.headers, 'x-upstream': up.name });
        upRes.pipe(res);
      },
    );
    out.on('error', () => {
      res.writeHead(502, { 'x-upstream': up.name }).end();
    });
    req.pipe(out);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({ url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) });
    }),
  );
}

function request(base: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Hop> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, { method, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, upstream: String(res.headers['x-upstream'] ?? ''), headers: res.headers, body: text }),
      );
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

describe('two replicas behind a round-robin proxy [postgres]', { skip: skipWithout('JOE_TEST_PG_DSN', 'the two-replica test') }, () => {
  test('one session and one token work on both; a new link resolves on the other at once; a revoked token is refused by both', async () => {
    const database = await createTestDatabase('postgres');
    const replicas: ServerProcess[] = [];
    const proxy = await roundRobinProxy(() => replicas);
    try {
      const env = { JOE_DB_DRIVER: 'postgres', JOE_DB_DSN: database.config.dsn, JOE_BASE_URL: proxy.url };
      replicas.push(...(await Promise.all([spawnServer('A', env), spawnServer('B', env)])));
      const names = new Set(['A', 'B']);
      const via = (method: string, path: string, headers: Record<string, string> = {}, body?: string) =>
        request(proxy.url, method, path, headers, body);
      const form = { 'content-type': 'application/x-www-form-urlencoded', origin: proxy.url };

      // Local-mode bootstrap: whichever replica created the admin prints the one-time link,
      // just after it starts listening (so the link works once seen).
      const bannerIn = () => replicas.map((r) => /\/auth\/local\?token=([A-Za-z0-9_-]+)/.exec(r.output())).find((m) => m !== null);
      await waitFor('a replica to print the bootstrap sign-in link', () => bannerIn() !== undefined);
      const banner = bannerIn()!;
      const signInToken = banner[1]!;

      // Sign in across replicas: the link is looked at on one and used up on the other.
      const look = await via('GET', `/auth/local?token=${signInToken}`);
      assert.equal(look.status, 200);
      const use = await via('POST', '/auth/local', form, `token=${signInToken}`);
      assert.equal(use.status, 302, use.body);
      assert.notEqual(use.upstream, look.upstream, 'peeked on one replica, consumed on the other');
      const setCookie = ([] as string[]).concat(use.headers['set-cookie'] ?? []);
      const session = setCookie.map((c) => c.split(';')[0]!).find((c) => c.startsWith('session='));
      assert.ok(session, `a session cookie was set: ${setCookie.join(' | ')}`);
      const again = await via('POST', '/auth/local', form, `token=${signInToken}`);
      assert.equal(again.status, 400, 'the one-time link is spent on both replicas');

      // The session works on both.
      const seen = new Set<string>();
      for (let i = 0; i < 4; i++) {
        const r = await via('GET', '/dashboard', { cookie: session });
        assert.equal(r.status, 200, `dashboard on ${r.upstream}`);
        seen.add(r.upstream);
      }
      assert.deepEqual(seen, names);

      // A token made through the web UI on one replica...
      const made = await via('POST', '/dashboard/settings/tokens', { ...form, cookie: session }, 'name=ops&expires_in=');
      assert.equal(made.status, 200);
      const token = /jl_[A-Za-z0-9_-]{20,}/.exec(made.body)?.[0];
      assert.ok(token, 'the new token is shown once');
      const bearer = { authorization: `Bearer ${token}` };
      const json = { ...bearer, 'content-type': 'application/json' };

      // ...authenticates on both, and a link created on one resolves on the other immediately.
      const created = new Set<string>();
      const resolved = new Set<string>();
      for (let i = 0; i < 4; i++) {
        // One extra hop shifts the rotation, so each replica gets to create and to resolve.
        if (i === 2) await via('GET', '/healthz');
        const c = await via('POST', '/api/v1/links', json, JSON.stringify({ slug: `rr-${i}`, url: `https://example.com/${i}` }));
        assert.equal(c.status, 201, c.body);
        const g = await via('GET', `/rr-${i}`);
        assert.equal(g.status, 302, `rr-${i} on ${g.upstream} right after it was created on ${c.upstream}`);
        assert.equal(g.headers.location, `https://example.com/${i}`);
        assert.notEqual(g.upstream, c.upstream);
        created.add(c.upstream);
        resolved.add(g.upstream);
      }
      assert.deepEqual(created, names);
      assert.deepEqual(resolved, names);

      // Revoked on one replica, refused by both in the very next requests.
      const list = await via('GET', '/api/v1/tokens', bearer);
      assert.equal(list.status, 200);
      const id = (JSON.parse(list.body) as { tokens: Array<{ id: string; name: string }> }).tokens.find((t) => t.name === 'ops')!.id;
      const revoke = await via('DELETE', `/api/v1/tokens/${id}`, bearer);
      assert.equal(revoke.status, 204);
      const after = await Promise.all(replicas.map((r) => request(r.url, 'GET', '/api/v1/links', bearer)));
      assert.deepEqual(
        after.map((r) => r.status),
        [401, 401],
      );
      for (const r of after) assert.deepEqual(JSON.parse(r.body), { error: 'unauthorized', code: 'UNAUTHORIZED' });

      // Signing out on one replica ends the session on both.
      const out = await via('POST', '/auth/logout', { ...form, cookie: session }, '');
      assert.equal(out.status, 302);
      const gone = await Promise.all(replicas.map((r) => request(r.url, 'GET', '/dashboard', { cookie: session })));
      for (const r of gone) assert.notEqual(r.status, 200, 'signed out everywhere');
    } finally {
      await Promise.all(replicas.map((r) => r.stop('SIGTERM')));
      await proxy.close();
      await database.drop();
    }
  });
});
