import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { actor, startApi, type Actor } from './support.js';
import type { TestServer } from '../helpers/server.js';
import { ROOT } from '../helpers/paths.js';

/**
 * The API as a tool nobody here wrote sees it (docs/api.md#openapi-and-swagger-ui): Stoplight
 * Prism, as a validating proxy in front of a real server, checks every request and answer of
 * docs/api-examples.sh and of the newer operations against docs/openapi.json. With `--errors`
 * a request or an answer that breaks the document comes back as Prism's own error, which
 * fails the step.
 */

const PRISM = createRequire(join(ROOT, 'package.json')).resolve('@stoplight/prism-cli/dist/index.js');

function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => res(port));
    });
    srv.on('error', rej);
  });
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ status: number | null; out: string }> {
  return new Promise((res, rej) => {
    const child = spawn(cmd, args, { env });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.on('error', rej);
    child.on('close', (status) => res({ status, out }));
  });
}

describe('the API through Prism’s validating proxy', () => {
  let s: TestServer;
  let dana: Actor;
  let prism: ChildProcess;
  let prismUrl: string;
  let log = '';
  let dir: string;

  before(async () => {
    s = await startApi();
    dana = await actor(s, 'dana');
    await s.store.users.create({ email: 'dana@example.com', displayName: 'Dana' });
    await s.store.users.create({ email: 'sam@example.com', displayName: 'Sam' });
    // Prism reads no relative `servers`: the same document with /api/v1 written into each path.
    const doc = JSON.parse(readFileSync(resolve('docs/openapi.json'), 'utf8')) as { paths: Record<string, unknown>; servers?: unknown };
    doc.paths = Object.fromEntries(Object.entries(doc.paths).map(([p, v]) => [`/api/v1${p}`, v]));
    delete doc.servers;
    dir = mkdtempSync(join(tmpdir(), 'joe-links-prism-'));
    writeFileSync(join(dir, 'openapi.json'), JSON.stringify(doc));
    const port = await freePort();
    prismUrl = `http://127.0.0.1:${port}`;
    prism = spawn(process.execPath, [PRISM, 'proxy', join(dir, 'openapi.json'), s.url, '--errors', '-h', '127.0.0.1', '-p', String(port)]);
    await new Promise<void>((res, rej) => {
      const timer = setTimeout(() => rej(new Error(`Prism did not start:\n${log}`)), 60_000);
      const read = (d: Buffer) => {
        log += d.toString('utf8');
        if (log.includes('Prism is listening')) {
          clearTimeout(timer);
          res();
        }
      };
      prism.stdout!.on('data', read);
      prism.stderr!.on('data', read);
    });
  });
  after(async () => {
    prism?.kill();
    await s?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /**
   * A request through Prism with a Content-Length (fetch sets it for a string body): Prism
   * forwards a chunked body with both framing headers, which any careful server refuses.
   */
  async function viaPrism(method: string, path: string, opts: { body?: unknown; headers?: Record<string, string> } = {}) {
    const headers: Record<string, string> = { authorization: `Bearer ${dana.token}`, ...opts.headers };
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    const r = await fetch(`${prismUrl}${path}`, {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    });
    const text = await r.text();
    let body: any;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: r.status, headers: r.headers, text, body };
  }

  test('docs/api-examples.sh runs through it, every step valid both ways', async () => {
    const user = (await s.store.users.findByEmail('dana@example.com'))!;
    const { plaintext } = await s.store.tokens.create(user.id, 'prism');
    const r = await run('bash', [resolve('docs/api-examples.sh')], { ...process.env, JOE: prismUrl, TOKEN: plaintext });
    assert.equal(r.status, 0, `${r.out}\n--- prism ---\n${log.slice(-4000)}`);
    assert.match(r.out, /^deleted [0-9a-f-]{36}$/m);
  });

  test('groups, versions, retries and refusals answer as the document says', async () => {
    const group = await viaPrism('POST', '/api/v1/groups', { body: { name: 'prism-team' }, headers: { 'idempotency-key': 'g-1' } });
    assert.equal(group.status, 201, group.text);
    const again = await viaPrism('POST', '/api/v1/groups', { body: { name: 'prism-team' }, headers: { 'idempotency-key': 'g-1' } });
    assert.equal(again.status, 201, again.text);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal((await viaPrism('GET', '/api/v1/groups/prism-team')).status, 200);
    const link = await viaPrism('POST', '/api/v1/links', { body: { slug: 'prism-link', url: 'https://example.com/' } });
    assert.equal(link.status, 201, link.text);
    const shared = await viaPrism('POST', `/api/v1/links/${link.body.id}/owners`, { body: { group: 'prism-team' } });
    assert.equal(shared.status, 201, shared.text);
    assert.equal((await viaPrism('GET', `/api/v1/links/${link.body.id}/owners`)).status, 200);
    const read = await viaPrism('GET', `/api/v1/links/${link.body.id}`);
    const etag = read.headers.get('etag')!;
    const notModified = await viaPrism('GET', `/api/v1/links/${link.body.id}`, { headers: { 'if-none-match': etag } });
    assert.equal(notModified.status, 304, notModified.text);
    const stale = await viaPrism('PUT', `/api/v1/links/${link.body.id}`, {
      body: { url: 'https://example.com/x' },
      headers: { 'if-match': '"stale"' },
    });
    assert.equal(stale.status, 412, stale.text);
    assert.equal(stale.body.code, 'PRECONDITION_FAILED');
    const conflict = await viaPrism('POST', '/api/v1/links', { body: { slug: 'prism-link', url: 'https://example.com/' } });
    assert.equal(conflict.status, 409, conflict.text);
    assert.equal(conflict.body.code, 'SLUG_CONFLICT');
    const missing = await viaPrism('GET', '/api/v1/links/00000000-0000-4000-8000-000000000000');
    assert.equal(missing.status, 404, missing.text);
    assert.equal(missing.body.code, 'NOT_FOUND');
    assert.doesNotMatch(log, /violat/i, 'Prism noted no violation');
  });

  test('it is Prism that checks: a request that breaks the document is refused by it, not by us', async () => {
    const r = await viaPrism('POST', '/api/v1/links', { body: { slug: 5, url: 'https://example.com/' } });
    assert.equal(r.status, 422);
    assert.match(r.text, /stoplight\.io\/prism/);
  });
});
