import { Migrator, type MigrationResultSet } from 'kysely';
import type { Db } from './connect.js';
import { migrationNames, migrationsFor } from './migrations/index.js';

export interface MigrationStatus {
  applied: string[];
  pending: string[];
  /** Recorded in the database but unknown to this build: the schema is newer than the code. */
  unknown: string[];
}

export class MigrationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MigrationError';
  }
}

function migrator(db: Db): Migrator {
  const migrations = migrationsFor(db.driver);
  return new Migrator({ db: db.kysely, provider: { getMigrations: async () => migrations } });
}

export async function migrationStatus(db: Db): Promise<MigrationStatus> {
  const known = migrationNames();
  const infos = await migrator(db).getMigrations();
  const applied = infos.filter((m) => m.executedAt !== undefined).map((m) => m.name);
  let recorded: string[] = [];
  try {
    const rows = await db.kysely
      .selectFrom('kysely_migration' as never)
      .select('name' as never)
      .execute();
    recorded = rows.map((r) => (r as { name: string }).name);
  } catch {
    // no tracking table yet: a fresh database
  }
  return {
    applied,
    pending: known.filter((n) => !applied.includes(n)),
    unknown: recorded.filter((n) => !known.includes(n)),
  };
}

function check(result: MigrationResultSet): string[] {
  const failed = result.results?.find((r) => r.status === 'Error');
  if (result.error) {
    const detail = result.error instanceof Error ? result.error.message : String(result.error);
    throw new MigrationError(`migration ${failed?.migrationName ?? ''} failed: ${detail}`.replace('  ', ' '));
  }
  return (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

async function refuseNewerSchema(db: Db): Promise<void> {
  const { unknown } = await migrationStatus(db);
  if (unknown.length > 0) {
    throw new MigrationError(
      `database schema is newer than this build: unknown migration(s) ${unknown.join(', ')}; upgrade joe-links before running against this database`,
    );
  }
}

/** Applies every pending migration in order; returns the names applied (empty when up to date). */
export async function migrateUp(db: Db): Promise<string[]> {
  await refuseNewerSchema(db);
  return check(await migrator(db).migrateToLatest());
}

/** Reverts the most recent migration; returns its name, or nothing when none is applied. */
export async function migrateDownOne(db: Db): Promise<string[]> {
  await refuseNewerSchema(db);
  return check(await migrator(db).migrateDown());
}
