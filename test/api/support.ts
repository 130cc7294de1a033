import assert from 'node:assert/strict';
import type { DbDriver } from '../../src/config.js';
import type { User } from '../../src/store/types.js';
import { get, startTestServer, type TestServer } from '../helpers/server.js';

/**
 * A small client for the REST API over real HTTP, and a way to make users
 * with tokens. Every call goes through the running server's sockets; nothing
 * is injected.
 */

export interface ApiResponse {
  status: number;
  headers: { get(name: string): string | null };
  text: string;
  /** Parsed body; undefined when there is none or it is not JSON. Loosely typed: tests assert its shape. */
  body: any;
}

export interface Actor {
  user: User;
  token: string;
}

export async function startApi(opts: { driver?: DbDriver; env?: Record<string, string> } = {}): Promise<TestServer> {
  // Off unless a test is about the limit, so suites can make many calls.
  return startTestServer({ driver: opts.driver, env: { JOE_API_RATE_LIMIT: '0', ...opts.env } });
}

let counter = 0;

export async function actor(s: TestServer, name: string, opts: { admin?: boolean } = {}): Promise<Actor> {
  counter++;
  const user = await s.store.users.create({
    email: `${name}-${counter}-${process.pid}@example.test`,
    displayName: `${name[0]!.toUpperCase()}${name.slice(1)} ${counter}`,
    role: opts.admin ? 'admin' : 'user',
  });
  const { plaintext } = await s.store.tokens.create(user.id, `${name}-token`);
  return { user, token: plaintext };
}

export interface CallOptions {
  /** An actor, a raw token string, or null for no Authorization header. */
  as?: Actor | string | null;
  /** Sent as JSON unless it is already a string. */
  body?: unknown;
  headers?: Record<string, string>;
}

export async function call(s: TestServer, method: string, path: string, opts: CallOptions = {}): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  const as = opts.as;
  if (as !== undefined && as !== null) headers.authorization = `Bearer ${typeof as === 'string' ? as : as.token}`;
  let payload: string | undefined;
  if (opts.body !== undefined) {
    payload = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const r = await get(`${s.url}${path}`, headers, method, payload);
  const text = await r.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: r.status, headers: r.headers, text, body };
}

/** Asserts the standard error shape with a code from docs/api.md#errors and the status that code implies. */
export function assertError(r: ApiResponse, status: number, code: string, why = ''): void {
  assert.equal(r.status, status, `${why} ${r.text}`);
  assert.deepEqual(Object.keys(r.body ?? {}).sort(), ['code', 'error'], `${why}: error shape ${r.text}`);
  assert.equal(r.body.code, code, `${why}: ${r.text}`);
  assert.equal(typeof r.body.error, 'string');
  assert.match(r.headers.get('content-type') ?? '', /^application\/json/, why);
}

/** Creates a link over the API as `owner` and returns its resource. */
export async function createLink(s: TestServer, owner: Actor, body: Record<string, unknown>) {
  const r = await call(s, 'POST', '/api/v1/links', { as: owner, body: { url: 'https://example.com/', ...body } });
  assert.equal(r.status, 201, r.text);
  return r.body as { id: string; slug: string } & Record<string, unknown>;
}

/** Every row of the link tables, in a stable order: "nothing changed" means equal snapshots. */
export async function snapshot(s: TestServer): Promise<string> {
  const k = s.store.db.kysely;
  const [links, tags, owners, shares, names] = await Promise.all([
    k.selectFrom('links').selectAll().orderBy('id').execute(),
    k.selectFrom('link_tags').selectAll().orderBy('link_id').orderBy('tag_id').execute(),
    k.selectFrom('link_owners').selectAll().orderBy('link_id').orderBy('user_id').execute(),
    k.selectFrom('link_shares').selectAll().orderBy('link_id').orderBy('user_id').execute(),
    k.selectFrom('link_names').selectAll().orderBy('name').execute(),
  ]);
  // Drivers differ in how they hand back integers (number, string, bigint); compare values.
  return JSON.stringify({ links, tags, owners, shares, names }, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
}

/**
 * Posts a file to `POST /api/v1/links/import?from=…` as `as`, with a length-delimited body as a
 * client uploading a saved export sends it, and answers the status and the report.
 */
export async function uploadImport(
  s: TestServer,
  as: Actor,
  from: string,
  body: string,
): Promise<{ status: number; json: { summary: Record<string, unknown>; rows: Array<Record<string, unknown>> } }> {
  const r = await get(
    `${s.url}/api/v1/links/import?from=${from}`,
    { authorization: `Bearer ${as.token}`, 'content-type': 'application/octet-stream', 'content-length': String(Buffer.byteLength(body)) },
    'POST',
    body,
  );
  return { status: r.status, json: JSON.parse(await r.text()) };
}
