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
