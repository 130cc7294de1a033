import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { DbDriver } from '../../src/config.js';
import { connect } from '../../src/db/connect.js';
import { createStore } from '../../src/store/index.js';
import { createTestDatabase } from '../helpers/databases.js';
import { skipWithout, sleep, spawnServer, waitFor, type ServerProcess } from './support.js';

/**
 * docs/server.md#running-several-replicas: three real server processes on one
 * PostgreSQL (then MariaDB) database. Each periodic job runs on exactly one of
 * them per interval; a SIGKILLed holder's leases move to another replica once
 * they expire; a SIGTERMed one hands them on at once.
 *
 * Runs are read from the "job <name> ran" log line every run writes (job,
 * holder, startedAt): the schedule compares against the startedAt the
 * previous run stamped, so two runs of one job closer than its interval mean
 * two replicas ran it.
 */

const TICK_MS = 500;
const TTL_MS = 3 * TICK_MS; // the scheduler's default lease TTL is three ticks
/** Scheduling jitter allowed on a loaded 2-core box before a late run counts as missed. */
const SLACK_MS = 4_000;
const INTERVALS: Record<string, number> = { 'session-sweep': 3_000, 'state-link-sweep': 2_000 };
/** Hourly or slower: across the whole test each must run exactly once, takeovers included. */
const ONCE = ['click-rollup', 'click-pruner', 'health-checker'];
const OBSERVE_MS = 7_000;

interface Run {
  job: string;
  holder: string;
  startedAt: number;
  server: string;
}

function runsOf(servers: ServerProcess[]): Run[] {
  return servers
    .flatMap((s) =>
      s.lines
        .filter((l) => typeof l.job === 'string' && l.msg === `job ${String(l.job)} ran`)
        .map((l) => ({ job: l.job as string, holder: l.holder as string, startedAt: l.startedAt as number, server: s.name })),
    )
    .sort((a, b) => a.startedAt - b.startedAt);
}

for (const driver of ['postgres', 'mysql'] as DbDriver[]) {
  const skip = skipWithout(driver === 'postgres' ? 'JOE_TEST_PG_DSN' : 'JOE_TEST_MYSQL_DSN', `the ${driver} multi-replica lease test`);
  describe(`periodic jobs across three replicas [${driver}]`, { skip }, () => {
    test('each job runs once per interval across replicas; a SIGKILLed holder is replaced after expiry; SIGTERM hands leases on', async () => {
      const database = await createTestDatabase(driver);
      const db = connect(database.config, { poolSize: 2 });
      const servers: ServerProcess[] = [];
      const leaseRows = () => db.kysely.selectFrom('job_leases').selectAll().execute();
      try {
        const env = {
          JOE_DB_DRIVER: driver,
          JOE_DB_DSN: database.config.dsn,
          JOE_JOB_TICK: `${TICK_MS}ms`,
          JOE_SESSION_SWEEP_INTERVAL: `${INTERVALS['session-sweep']}ms`,
          BACKUP_INTERVAL_MS: String(INTERVALS['state-link-sweep']),
          JOE_CLICK_RETENTION: '90',
          JOE_HEALTH_CHECKS_ENABLED: 'true',
          // The per-run lines these checks read are written at debug level.
          JOE_LOG_LEVEL: 'debug',
        };
        // All three at once on an empty database: they race for migrations and the first leases too.
        servers.push(...(await Promise.all(['r1', 'r2', 'r3'].map((n) => spawnServer(n, env)))));
        const byHolder = (h: string) => servers.find((s) => s.holder === h);
        // A spent one-time sign-in link: the session sweep removes it along with expired sessions.
        const store = createStore(db);
        const user = await store.users.create({ email: 'sweep@example.com' });
        assert.ok(await store.loginTokens.consume(await store.loginTokens.create(user.id)));
        const spent = () => db.kysely.selectFrom('login_tokens').select('id').where('user_id', '=', user.id).execute();
        assert.equal((await spent()).length, 1);
        await sleep(OBSERVE_MS);
        assert.equal((await spent()).length, 0, 'the session sweep deleted the spent sign-in link');

        // SIGKILL whoever holds the session sweep: no release, so the lease must expire first.
        const before = (await leaseRows()).find((r) => r.name === 'session-sweep')!;
        const victim = byHolder(before.holder)!;
        assert.ok(victim, `holder ${before.holder} is one of ours`);
        const killedAt = Date.now();
        assert.equal((await victim.stop('SIGKILL')).signal, 'SIGKILL');
        const expiredAt = Number(before.expires_at);
        let takeoverAt = 0;
        await waitFor(
          'another replica to take the session-sweep lease',
          async () => {
            const row = (await leaseRows()).find((r) => r.name === 'session-sweep')!;
            if (row.holder === victim.holder || Number(row.expires_at) <= Date.now()) return false;
            takeoverAt = Date.now();
            return true;
          },
          TTL_MS + SLACK_MS + 5_000,
          25,
        );
        await sleep(OBSERVE_MS);
        // Every lease the victim held now belongs to a live replica.
        const survivors = servers.filter((s) => s !== victim);
        for (const row of await leaseRows()) {
          assert.notEqual(row.holder, victim.holder, `${row.name} still held by the killed replica`);
        }

        // SIGTERM the new session-sweep holder: its leases are released, not left to expire.
        const current = (await leaseRows()).find((r) => r.name === 'session-sweep')!;
        const graceful = byHolder(current.holder)!;
        const stopped = await graceful.stop('SIGTERM');
        assert.equal(stopped.code, 0, graceful.output());
        for (const row of await leaseRows()) {
          assert.ok(
            row.holder !== graceful.holder || Number(row.expires_at) === 0,
            `${row.name} released at shutdown (expires_at ${row.expires_at})`,
          );
        }
        const last = survivors.find((s) => s !== graceful)!;
        await waitFor('the last replica to take over after the graceful stop', async () =>
          (await leaseRows()).every((r) => r.holder === last.holder),
        );
        const endAt = Date.now();
        await last.stop('SIGTERM');

        const runs = runsOf(servers);
        for (const [job, interval] of Object.entries(INTERVALS)) {
          const mine = runs.filter((r) => r.job === job);
          assert.ok(mine.length >= 4, `${job}: only ${mine.length} runs`);
          for (let i = 1; i < mine.length; i++) {
            const gap = mine[i]!.startedAt - mine[i - 1]!.startedAt;
            // Closer than the interval means two replicas ran it for one interval.
            assert.ok(
              gap >= interval,
              `${job}: runs ${gap} ms apart (interval ${interval}) on ${mine[i - 1]!.server} then ${mine[i]!.server}`,
            );
            // Far later means an interval went by with no replica running it.
            assert.ok(gap <= interval + TTL_MS + TICK_MS + SLACK_MS, `${job}: ${gap} ms without a run (interval ${interval})`);
          }
          assert.ok(endAt - mine.at(-1)!.startedAt <= interval + TTL_MS + TICK_MS + SLACK_MS, `${job}: no run near the end`);
        }
        // The session sweep went on under another replica, and not before the killed one's lease expired.
        const after = runs.filter((r) => r.job === 'session-sweep' && r.startedAt > killedAt);
        assert.ok(after.length > 0);
        assert.notEqual(after[0]!.holder, victim.holder);
        assert.ok(after[0]!.startedAt >= expiredAt, 'no run before the old lease expired');
        assert.ok(takeoverAt - killedAt <= TTL_MS + TICK_MS + SLACK_MS, `takeover took ${takeoverAt - killedAt} ms`);
        assert.ok(
          new Set(runs.filter((r) => r.job === 'session-sweep').map((r) => r.holder)).size >= 2,
          'the sweep ran under more than one replica',
        );
        for (const job of ONCE) {
          const mine = runs.filter((r) => r.job === job);
          assert.equal(mine.length, 1, `${job} ran ${mine.length} times: ${mine.map((r) => r.server).join(', ')}`);
        }
        process.stderr.write(
          `[ops] ${driver}: ${runs.length} job runs over ${((endAt - Math.min(...runs.map((r) => r.startedAt))) / 1000).toFixed(1)} s, ` +
            `takeover after SIGKILL in ${takeoverAt - killedAt} ms (lease TTL ${TTL_MS} ms)\n`,
        );
      } finally {
        for (const s of servers) await s.stop('SIGKILL');
        await db.close();
        await database.drop();
      }
    });
  });
}
