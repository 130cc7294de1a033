import { createHash } from 'node:crypto';
import type { Ddl, MigrationStep } from './ddl.js';

/**
 * The session's user as a column of its own, so the resolver finds a signed-in
 * visitor with one indexed lookup that joins the session to its user (and sees
 * a deleted user as a missing row) instead of decoding the session's data first.
 */
export const sessionMigrations: MigrationStep[] = [
  {
    name: '00019_add_sessions_user_id',
    async up(d: Ddl) {
      await d.db.schema.alterTable('sessions').addColumn('user_id', d.str(36)).execute();
      // Existing sessions: their user is in the JSON data. Sessions are few and short-lived.
      const rows = (await d.db.selectFrom('sessions').select(['token', 'data']).execute()) as { token: string; data: Uint8Array }[];
      for (const r of rows) {
        let userId: unknown;
        try {
          userId = (JSON.parse(Buffer.from(r.data).toString('utf8')) as { userId?: unknown }).userId;
        } catch {
          continue;
        }
        if (typeof userId !== 'string') continue;
        await d.db.updateTable('sessions').set({ user_id: userId }).where('token', '=', r.token).execute();
      }
    },
    async down(d: Ddl) {
      await d.db.schema.alterTable('sessions').dropColumn('user_id').execute();
    },
  },
];

/** Sessions keyed by a digest of their token (docs/auth.md#sessions). */
export const sessionDigestMigrations: MigrationStep[] = [
  {
    // Rows keyed by the cookie's token signed in whoever read the table: each is re-keyed by the
    // token's digest in place (the digest of domain/secrets.ts sessionKey, spelled out here since a
    // migration keeps its meaning forever), so signed-in people stay signed in.
    name: '00034_hash_session_tokens',
    async up(d: Ddl) {
      const rows = (await d.db.selectFrom('sessions').select(['token']).execute()) as { token: string }[];
      // Only the tokens the server issues (32 random bytes, base64url): a row of any other shape
      // came from no cookie, and no cookie can name it once lookups go by digest.
      for (const r of rows.filter((row) => /^[A-Za-z0-9_-]{43}$/.test(row.token))) {
        const key = createHash('sha256').update(r.token, 'utf8').digest('base64url');
        await d.db.updateTable('sessions').set({ token: key }).where('token', '=', r.token).execute();
      }
    },
    async down(d: Ddl) {
      // A digest cannot be turned back into its token: without the digests, everyone signs in again.
      await d.db.deleteFrom('sessions').execute();
    },
  },
];
