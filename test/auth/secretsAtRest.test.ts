import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { get, startTestServer, type RawResponse, type TestServer } from '../helpers/server.js';

/**
 * A copy of the database signs nobody in (docs/auth.md#sessions): after a real sign-in through a
 * one-time link and a personal access token made on the settings page, no table holds the
 * session cookie, the sign-in link's token or the access token, while each still works for its
 * holder. The SQLite file and its WAL are readable by their owner alone.
 */

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const cookieOf = (r: RawResponse) =>
  /^session=([^;]+)/.exec((r.headers.raw['set-cookie'] ?? []).find((c) => c.startsWith('session='))!)![1]!;

describe('secrets at rest', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ env: { JOE_BASE_URL: 'http://go.test' } });
  });
  after(async () => s.stop());

  /** Every value of every row of every table, as text. */
  async function everyStoredValue(): Promise<string> {
    const tables = (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(s.store.db.kysely)).rows;
    const out: string[] = [];
    for (const { name } of tables) {
      const rows = (await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(s.store.db.kysely)).rows;
      for (const row of rows) {
        for (const v of Object.values(row)) out.push(Buffer.isBuffer(v) ? v.toString('latin1') : String(v));
      }
    }
    return out.join('\n');
  }

  test('sessions, sign-in links and access tokens are stored only as digests, and still work', async () => {
    const user = await s.store.users.create({ email: 'rita@x.io', displayName: 'Rita' });
    const loginToken = await s.store.loginTokens.create(user.id);
    const signIn = await get(`${s.url}/auth/local`, { ...FORM, origin: 'http://go.test' }, 'POST', `token=${loginToken}`);
    assert.equal(signIn.status, 302);
    const session = cookieOf(signIn);

    const made = await get(
      `${s.url}/dashboard/settings/tokens`,
      { ...FORM, origin: 'http://go.test', cookie: `session=${session}` },
      'POST',
      'name=laptop&expires_in=720h',
    );
    assert.equal(made.status, 200);
    const pat = /\b(jl_[A-Za-z0-9_-]+)/.exec(await made.text())?.[1];
    assert.ok(pat, 'the page shows the new token once');

    const stored = await everyStoredValue();
    for (const [what, secret] of [
      ['session cookie', session],
      ['sign-in link token', loginToken],
      ['access token', pat],
    ] as const) {
      assert.ok(!stored.includes(secret), `no table holds the ${what}`);
    }
    const rows = await s.store.db.kysely.selectFrom('sessions').select(['token', 'user_id']).execute();
    assert.deepEqual(
      rows.map((r) => r.user_id),
      [user.id],
    );

    // Each still works for whoever holds it, and a stored value works for nobody.
    assert.equal((await get(`${s.url}/dashboard`, { cookie: `session=${session}` })).status, 200);
    assert.equal((await get(`${s.url}/dashboard`, { cookie: `session=${rows[0]!.token}` })).status, 302, 'the stored key is no cookie');
    assert.equal((await get(`${s.url}/api/v1/users/me`, { authorization: `Bearer ${pat}` })).status, 200);
  });

  test('the SQLite database and its WAL are readable by their owner alone', () => {
    const file = s.database.config.dsn;
    for (const f of [file, `${file}-wal`, `${file}-shm`]) {
      assert.equal(statSync(f).mode & 0o777, 0o600, f);
    }
  });
});
