import type { Kysely, Migration } from 'kysely';
import type { DbDriver } from '../../config.js';
import { Ddl, type MigrationStep } from './ddl.js';
import { analyticsMigrations, dirtyDayMigrations } from './analytics.js';
import { coreMigrations } from './core.js';
import { groupMigrations } from './groups.js';
import { historyMigrations } from './history.js';
import { idempotencyMigrations } from './idempotency.js';
import { linkNameMigrations } from './linkNames.js';
import { notifyMigrations } from './notify.js';
import { sessionDigestMigrations, sessionMigrations } from './sessions.js';
import { stateLinkMigrations } from './stateLinks.js';

/** Every migration, in order of application. Names are stable forever once released. */
const ALL: MigrationStep[] = [
  ...coreMigrations,
  ...stateLinkMigrations,
  ...analyticsMigrations,
  ...sessionMigrations,
  ...dirtyDayMigrations,
  ...historyMigrations,
  ...notifyMigrations,
  ...linkNameMigrations,
  ...groupMigrations,
  ...idempotencyMigrations,
  ...sessionDigestMigrations,
];

export function migrationNames(): string[] {
  return ALL.map((m) => m.name);
}

export function migrationsFor(driver: DbDriver): Record<string, Migration> {
  const out: Record<string, Migration> = {};
  for (const step of ALL) {
    /* eslint-disable @typescript-eslint/no-explicit-any -- a migration runs against a past schema, not today's table types */
    out[step.name] = {
      up: (db: Kysely<any>) => step.up(new Ddl(db, driver)),
      down: (db: Kysely<any>) => step.down(new Ddl(db, driver)),
    };
    /* eslint-enable @typescript-eslint/no-explicit-any */
  }
  return out;
}
